// `ridge design`: the design rounds of issue 35 from the terminal. --list prints the challenge
// ids one a line; ID --submit FILE.toml grades a design (--json: the verdict as the web API
// gives it); --check grades every challenge's reference (must pass) and common mistake (must
// fail), as CI does.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "calc/registry.h"
#include "design/challenge.h"
#include "design/grader.h"

namespace ridge::cli {

struct DesignFlags {
  std::string id, submit, content;  // content empty: default_content_dir()
  bool list = false, json = false, check = false;
};

CLI::App* add_design(CLI::App& parent, DesignFlags& flags);

// The trust table from the validation ledger (data/published-runs.toml), computed once.
design::Trust ledger_trust(const calc::Registry& registry, const calc::Catalog& catalog, const std::string& runs_path);

// Grades every challenge's reference and common mistake; the errors name file and field.
// Used by `ridge design --check` and `ridge check`.
calc::Errors check_challenges(const design::LoadedChallenges& loaded, const calc::Registry& registry,
                              const calc::Catalog& catalog);

// 0 ok (a graded design that passes, or --list); 1 a design that fails or a failed --check;
// 2 bad input (unknown id, unreadable or invalid submission: every field named).
int run_design(const DesignFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog,
               const std::string& runs_path, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
