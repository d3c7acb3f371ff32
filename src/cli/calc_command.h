// `ridge calc`: lists calculators, prints one's help, or runs it and prints the worked
// chain (text) or the derivation (--json). Flags are generated from the registry.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::cli {

// `args` are the words after "calc". Returns the process exit code: 0 ok, 2 bad input.
int run_calc(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog,
             std::ostream& out, std::ostream& err);

// The help text of one calculator: usage, each flag with unit, default and accepted range.
std::string calculator_help(const calc::Calculator& c, const calc::Catalog& catalog);

}  // namespace ridge::cli
