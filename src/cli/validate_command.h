// `ridge validate`: runs the performance model (`step`, `serve`) over every published run in
// data/published-runs.toml and prints predicted, measured and signed error, then the mean and
// worst absolute error per group (training, serving) on all runs, the fit half and the
// held-out half, then mean, median, p90 and worst per regime (dense/MoE × bf16/fp8 training;
// prefill/decode/end-to-end × aggregated/disaggregated serving) on the held-out half and on all. `--json` prints the same as JSON; `--check` fails (exit 1) when a [[gate]] of the runs file
// (a regime's threshold) or a --max-* flag is exceeded; every gate prints as the bound or
// as "not yet within the bound" with its reason; `--markdown` prints the ledger (each
// regime held-out and all side by side with its gates, then each regime's runs with their
// sources) for bench/README.md. One computation (ledger_of in the .cc) feeds the text, the JSON
// ("ledger", "gates") and the Markdown; /calc renders the JSON's;
// `--fit` grid-searches the fitted constants on the fit half and prints them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace CLI {
class App;
}

namespace ridge::cli {

// The flags of `ridge validate`; thresholds in percent. The thresholds that CI holds are the
// [[gate]] tables of data/published-runs.toml (per regime, on the held-out half); these flags
// add bounds on all runs, 0 = not checked.
struct ValidateFlags {
  bool json = false, check = false, fit = false;
  bool markdown = false;  // the ledger as Markdown tables (bench/README.md, the ledger page)
  double max_training_mean = 0, max_training_worst = 0, max_serving_mean = 0;
  // On the held-out half (issue 31: training mean 8, worst 20; serving mean 12); 0 = not checked.
  double max_held_out_training_mean = 0, max_held_out_training_worst = 0, max_held_out_serving_mean = 0;
  std::vector<std::string> set;  // NAME=VALUE, each checked to have a name and an '='
};

// Adds `validate` to `parent`, its flags bound to `flags` (which must outlive the parse).
CLI::App* add_validate(CLI::App& parent, ValidateFlags& flags);

// `runs_path` is data/published-runs.toml. Returns 0, 1 when --check finds an error above its
// threshold, 2 on an unreadable file. Nothing throws out.
int run_validate(const ValidateFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog,
                 const std::string& runs_path, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
