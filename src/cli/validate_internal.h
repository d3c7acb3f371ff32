// Internal to `ridge validate` (validate_command.cc: loading, evaluating, the ledger and the
// output; validate_fit.cc: the grid search of --fit): the runs, gates and rows both read.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::cli::validate_detail {

struct Run {
  std::string id, group, half, calculator, metric, unit, source, url, date;
  std::string deployment;  // serving: aggregated (default) or disaggregated
  std::string regime;      // set after loading: "dense bf16", "MoE fp8", "decode aggregated", ...
  double measured = 0;
  calc::Given params;
};

// A threshold `--check` holds one regime's error to, from the [[gate]] tables of the runs
// file: the issue's own bound where the model meets it, else a stated, higher one with its
// reason (issue_bound = false), printed as "not yet within the issue's bound".
struct Gate {
  std::string group, regime, half, why;
  double max_mean = 0, max_worst = 0;  // percent; 0 = not bounded
  bool issue_bound = false;
};

struct Row {
  const Run* run;
  double predicted = 0;
  double error = 0;  // signed, (predicted − measured) ÷ measured
  std::string failure;
};

struct Stats {
  int n = 0;
  double mean = 0, median = 0, p90 = 0, worst = 0;
};

// Each run (of `group`, `half` and a regime starting with `regime_prefix`, when not empty)
// evaluated with the fitted constants replaced by `overrides`.
std::vector<Row> evaluate(const std::vector<Run>& runs, const calc::Registry& registry, const calc::Catalog& catalog,
                          const calc::Given& overrides, const std::string& group = "", const std::string& half = "",
                          const std::string& regime_prefix = "");
// The mean absolute error of `rows` (a failed run counts 100%).
double mean_abs(const std::vector<Row>& rows);
// printf of one number.
std::string fmt(const char* f, double v);
// Grid search of the fitted constants on the fit half (validate --fit).
void fit(const std::vector<Run>& runs, const calc::Registry& registry, const calc::Catalog& catalog,
         const calc::Given& fixed, std::ostream& out);

}  // namespace ridge::cli::validate_detail
