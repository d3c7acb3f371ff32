// `ridge user add|list|remove` (operators) and `ridge drill [--topic T]` (the terminal drill).
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

struct UserFlags {
  std::string verb;  // add, list or remove: set by the parse
  std::string email;
  std::string db = "sqlite:ridge.db";
};

struct DrillFlags {
  std::string topic;  // empty: any topic
  uint64_t seed = 0;  // 0: a random one
  int count = 1;
};

// Add `user` (with its verbs) and `drill` to `parent`, their flags bound to `flags` (which
// must outlive the parse) and checked by validators.
CLI::App* add_user(CLI::App& parent, UserFlags& flags);
CLI::App* add_drill(CLI::App& parent, DrillFlags& flags);

// `add` reads the password from `in` (one line). 0 done, 1 a store failure or no such user,
// 2 a password the accounts refuse.
int run_user(const UserFlags& flags, std::istream& in, std::ostream& out, std::ostream& err);
// Asks `count` drills on `out`, reads answers from `in`, prints the score. 0, or 1 when no
// drill could be made.
int run_drill(const DrillFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog,
              std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
