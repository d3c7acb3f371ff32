// `ridge check [DIR] [--run-snippets]` and `ridge show SLUG [--content DIR]`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace CLI {
class App;
}

namespace ridge::cli {

struct CheckFlags {
  std::string dir;  // empty: default_content_dir()
  bool run_snippets = false;
};

struct ShowFlags {
  std::string slug;
  std::string content;  // empty: default_content_dir()
};

// Add `check` and `show` to `parent`, their flags bound to `flags` (which must outlive the parse).
CLI::App* add_check(CLI::App& parent, CheckFlags& flags);
CLI::App* add_show(CLI::App& parent, ShowFlags& flags);

// 0 when the bank loads without an error, 1 with the errors printed to `err`.
int run_check(const CheckFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog,
              std::ostream& out, std::ostream& err);
// 0 with the question printed; 2 when no question has the slug (the near ones suggested).
int run_show(const ShowFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog,
             std::ostream& out, std::ostream& err);

// $RIDGE_CONTENT, ./content, or the source tree's content/.
std::string default_content_dir();

}  // namespace ridge::cli
