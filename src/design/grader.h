// The design-round grader (issue 35): evaluates a design on the performance model, grades
// each objective (predicted, target, pass, the binding constraint and the derivation), says
// what single change would fix the worst failing objective, and how far the model is trusted
// in that regime. Pure and deterministic: the same challenge, design and catalogs give the same
// verdict; the work is bounded (at most kMaxEvaluations designs per verdict).
//
// One function per kind evaluates a design (evaluate_serving, evaluate_training), so a richer
// model (serving at a request rate, disaggregation, speculative decoding: issue 31's part 4)
// drops in by replacing what that function reads, not the grader.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calc/catalog.h"
#include "calc/registry.h"
#include "design/challenge.h"

namespace ridge::design {

// Bumped whenever a verdict could change for the same submission (the model, the queueing
// approximation, the search).
inline constexpr const char* kGraderVersion = "design-grader/1 (perf model of issue 31, M/M/c queueing)";
// The neighbourhood search evaluates at most this many designs besides the submission.
inline constexpr int kMaxEvaluations = 24;

// The model's error on the published runs of one regime (data/published-runs.toml, as
// `ridge validate --json` reports it).
struct RegimeError {
  double mean = 0, worst = 0;
  int n = 0;
  std::string half;  // "held-out", or "all" when the held-out half has no run of the regime
};
using Trust = std::map<std::string, RegimeError, std::less<>>;  // "serving/decode aggregated" -> error
// Reads `ridge validate --json`'s "regimes" member; an unreadable text gives an empty table.
Trust trust_from_validate_json(const std::string& json_text);

// A design evaluated: each metric's value (in the metric's unit: objective_metrics()), the
// binding constraint and the derivation that shows it. `runs` is false when the design cannot
// run (does not fit, invalid layout): `failure` says why and `failure_binding` names it.
struct MetricValue {
  double value = 0;
  bool unbounded = false;  // a queue that never drains: the latency has no finite p99
  std::string binding;     // memory, compute, bandwidth, communication, bubble, queueing, failures, power, cost
  std::string derivation;
};
struct Evaluation {
  bool runs = true;
  std::string failure, failure_binding;
  std::map<std::string, MetricValue, std::less<>> metrics;
};
Evaluation evaluate_serving(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat);
Evaluation evaluate_training(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat);
Evaluation evaluate(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat);

struct ObjectiveVerdict {
  std::string name, unit, binding, derivation, regime;
  double predicted = 0, target = 0;
  bool at_most = true, pass = false, unbounded = false;
};
struct Suggestion {
  std::string field, from, to;
  std::string objective;  // the worst failing objective it fixes
  std::string effect;     // "ttft_p99_ms 2,400 -> 310 (target 500)"
  bool fixes = false;       // false: no single change fixes it; this one comes closest
  bool passes_all = false;
};
struct Verdict {
  std::string challenge, grader_version = kGraderVersion;
  bool pass = false, runs = true;
  std::string failure;  // why the design cannot run
  std::vector<ObjectiveVerdict> objectives;
  std::optional<Suggestion> suggestion;
  std::vector<std::string> trust;  // one line per regime the objectives draw on
  double cost_usd = 0;             // the board's ranking figure: monthly or training cost
  int evaluations = 0;             // designs evaluated, the submission included
};
Verdict grade(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat,
              const Trust& trust);

// {"challenge", "grader_version", "pass", "runs", "failure", "objectives": [{"name", "predicted",
// "target", "pass", "binding", "unit", "derivation"}], "suggestion": {...} or null, "trust": [...]}.
// An unbounded prediction is null.
std::string verdict_json(const Verdict& v, int indent = 2);

}  // namespace ridge::design
