// `ridge user add|list|remove` (operators) and `ridge drill [--topic T]` (the terminal drill).
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::cli {

int run_user(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
int run_drill(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog,
              std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
