// `ridge lab list | test ID [--impl FILE.cc] | measure ID|--all [--json]`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ridge::cli {

struct LabFlags {
  std::string verb;  // list, test or measure: set by the parse
  std::string id;    // a build's id, checked; empty for measure --all
  std::vector<std::string> impl;          // test --impl, one file per flag
  bool cases = false;                     // test --cases
  std::string case_name;                  // test --case
  double timeout = 0;                     // test --timeout, seconds; 0: the sandbox's default
  double memory = 0;                      // test --memory, MiB; 0: the sandbox's default
  std::vector<std::string> gtest_flags;   // test's words after --
  bool all = false, json = false;         // measure
};

// Adds `lab` with its verbs to `parent`, the flags bound to `flags` (which must outlive the parse).
CLI::App* add_lab(CLI::App& parent, LabFlags& flags);

// 0 ok, 1 tests failed or the implementation did not build, 2 bad input (said on `err`).
int run_lab(const LabFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
