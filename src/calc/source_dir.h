// The source tree this binary was built from: where ridge finds content/, data/, web/static and
// lab/ when it runs from elsewhere, and where the tests find their inputs. One translation unit
// carries the path, so a second checkout rebuilds one object, not every one (ccache hits the rest).
#pragma once

namespace ridge {

// The absolute path of the source tree at build time, or "." when built without one.
const char* source_dir();

}  // namespace ridge
