// `ridge work`: Work it in the terminal (issue 34). --list prints the workable slugs;
// SLUG --seed N --json prints the exercise; --answer NAME=VALUE ... grades it; without
// --answer it asks each step on stdin and shows the engine's chain at the end.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace CLI {
class App;
}

namespace ridge::cli {

struct WorkFlags {
  bool list = false;
  bool reasons = false;  // --list --reasons: also the questions with calc blocks that are not workable, and why
  std::string slug;
  uint64_t seed = 1;
  std::vector<std::string> answers;  // NAME=VALUE, NAME a step's ref (fit.max_sequences) or its key
  bool json = false;
  std::string content;  // empty: default_content_dir()
};

CLI::App* add_work(CLI::App& parent, WorkFlags& flags);

// 0 done; 1 no valid draw for the seed; 2 an unknown slug, a step name no step has, or a
// question that is not workable.
int run_work(const WorkFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog, std::istream& in,
             std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
