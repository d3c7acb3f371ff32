// `ridge check [DIR] [--run-snippets]` and `ridge show SLUG`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::cli {

int run_check(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog,
              std::ostream& out, std::ostream& err);
int run_show(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog,
             std::ostream& out, std::ostream& err);

// $RIDGE_CONTENT, ./content, or the source tree's content/.
std::string default_content_dir();

}  // namespace ridge::cli
