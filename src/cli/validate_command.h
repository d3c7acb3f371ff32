// `ridge validate`: runs the performance model (`step`, `serve`) over every published run in
// data/published-runs.toml and prints predicted, measured and signed error, then the mean and
// worst absolute error per group (training, serving) on all runs, the fit half and the
// held-out half. `--json` prints the same as JSON; `--check` fails (exit 1) above thresholds;
// `--fit` grid-searches the fitted constants on the fit half and prints them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::cli {

// `args` are the words after "validate"; `runs_path` is data/published-runs.toml. Returns 0,
// 1 when --check finds an error above its threshold, 2 on bad input or an unreadable file.
int run_validate(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog,
                 const std::string& runs_path, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
