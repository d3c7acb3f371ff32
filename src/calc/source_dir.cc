#include "calc/source_dir.h"

#ifndef RIDGE_SOURCE_DIR
#define RIDGE_SOURCE_DIR "."
#endif

namespace ridge {

const char* source_dir() { return RIDGE_SOURCE_DIR; }

}  // namespace ridge
