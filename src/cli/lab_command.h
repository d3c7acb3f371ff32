// `ridge lab list | test ID [--impl FILE.cc] | measure ID|--all [--json]`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ridge::cli {

int run_lab(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
