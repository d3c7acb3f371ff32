// `ridge grant EMAIL [--months N]` and `ridge revoke EMAIL`: paid access by hand, for
// operators (and the only way in on a grant-only site).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ridge::cli {

int run_grant(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_revoke(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
