#include "design/grader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "design/grader_internal.h"

namespace ridge::design {

using namespace grader_detail;

Evaluation evaluate(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat) {
  return c.kind == Kind::kServing ? evaluate_serving(c, d, r, cat) : evaluate_training(c, d, r, cat);
}

namespace {

// How far an objective misses: predicted ÷ target for a ceiling, target ÷ predicted for a
// floor; 1 or below passes; an unbounded prediction is infinitely far.
double miss(const Objective& o, const MetricValue& m) {
  if (m.unbounded) return std::numeric_limits<double>::infinity();
  if (o.at_most) return m.value / o.target;
  return m.value > 0 ? o.target / m.value : std::numeric_limits<double>::infinity();
}

std::vector<ObjectiveVerdict> judge(const Challenge& c, const Evaluation& ev) {
  std::vector<ObjectiveVerdict> out;
  for (const auto& o : c.objectives) {
    ObjectiveVerdict v;
    v.name = o.metric;
    v.unit = metric_unit(o.metric);
    v.target = o.target;
    v.at_most = o.at_most;
    if (!ev.runs) {
      v.unbounded = true;
      v.binding = ev.failure_binding;
      v.derivation = "the design cannot run: " + ev.failure;
    } else {
      const MetricValue& m = ev.metrics.at(o.metric);
      v.predicted = m.value;
      v.unbounded = m.unbounded;
      v.binding = m.binding;
      v.derivation = m.derivation;
      v.pass = miss(o, m) <= 1;
    }
    out.push_back(v);
  }
  return out;
}

std::string cost_metric(const Challenge& c) { return c.kind == Kind::kServing ? "monthly_cost_usd" : "training_cost_usd"; }

// The neighbourhood: one field changed to an adjacent value open in the challenge. Text fields
// (GPU, dtypes, recompute) try every other open value; counts try the neighbours in their list,
// or ±1, ×2 and ÷2 in their range. Deterministic order; at most kMaxEvaluations.
std::vector<std::pair<std::string, std::string>> neighbours(const Challenge& c, const Design& d) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [field, range] : c.ranges) {
    const double v = num(d, field);
    for (double cand : {v + 1, v * 2, v - 1, std::floor(v / 2)}) {
      if (cand >= range.first && cand <= range.second && cand != v) {
        const std::string s = cnt(cand);
        if (std::find(out.begin(), out.end(), std::make_pair(field, s)) == out.end()) out.emplace_back(field, s);
      }
    }
  }
  for (const auto& [field, values] : c.choices) {
    const std::string cur = text(d, field);
    auto it = std::find(values.begin(), values.end(), cur);
    const auto* spec_list = &submission_fields(c.kind);
    auto spec = std::find_if(spec_list->begin(), spec_list->end(), [&](const FieldSpec& s) { return s.name == field; });
    const bool numeric = spec != spec_list->end() && spec->numeric;
    if (numeric && it != values.end()) {
      if (it + 1 != values.end()) out.emplace_back(field, *(it + 1));
      if (it != values.begin()) out.emplace_back(field, *(it - 1));
    } else {
      for (const auto& v : values) {
        if (v != cur) out.emplace_back(field, v);
      }
    }
  }
  if (out.size() > static_cast<size_t>(kMaxEvaluations)) out.resize(kMaxEvaluations);
  return out;
}

std::string regime_of(const Challenge& c, const std::string& metric, const Design& d, const calc::Catalog& cat) {
  if (c.kind == Kind::kServing) {
    if (metric == "ttft_p99_ms") return "serving/prefill aggregated";
    if (metric == "tpot_p99_ms") return "serving/decode aggregated";
    return "serving/end-to-end aggregated";
  }
  const calc::ModelArch* m = cat.find_model(text(c.fixed, "model"));
  const bool moe = m && m->is_moe();
  return std::string("training/") + (moe ? "MoE " : "dense ") + text(d, "dtype");
}

}  // namespace

Verdict grade(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat,
              const Trust& trust) {
  Verdict v;
  v.challenge = c.id;
  const Evaluation ev = evaluate(c, d, r, cat);
  v.evaluations = 1;
  v.runs = ev.runs;
  v.failure = ev.failure;
  v.objectives = judge(c, ev);
  v.pass = ev.runs && std::all_of(v.objectives.begin(), v.objectives.end(), [](const auto& o) { return o.pass; });
  if (ev.runs) v.cost_usd = ev.metrics.at(cost_metric(c)).value;

  for (auto& o : v.objectives) {
    o.regime = regime_of(c, o.name, d, cat);
    if (o.name.find("cost") != std::string::npos || o.name == "facility_power_mw") o.regime.clear();
  }
  std::vector<std::string> seen;
  for (const auto& o : v.objectives) {
    if (o.regime.empty() || std::find(seen.begin(), seen.end(), o.regime) != seen.end()) continue;
    seen.push_back(o.regime);
    auto t = trust.find(o.regime);
    if (t == trust.end()) {
      v.trust.push_back(o.regime + ": no published run of this regime in the ledger; treat a near miss with care");
    } else {
      v.trust.push_back(o.regime + ": the model's mean error is " + fmt(t->second.mean * 100) + "% (worst " +
                        fmt(t->second.worst * 100) + "%) on " + std::to_string(t->second.n) + " " + t->second.half +
                        " published run" + (t->second.n == 1 ? "" : "s"));
    }
  }
  if (v.pass) return v;

  // The worst failing objective: the largest miss (cannot-run designs: every objective fails,
  // and the search looks for the change that makes the design run and meets the most).
  int worst = -1;
  double worst_miss = 0;
  for (size_t i = 0; i < c.objectives.size(); ++i) {
    if (v.objectives[i].pass) continue;
    const double m = ev.runs ? miss(c.objectives[i], ev.metrics.at(c.objectives[i].metric))
                             : std::numeric_limits<double>::infinity();
    if (worst < 0 || m > worst_miss) {
      worst = static_cast<int>(i);
      worst_miss = m;
    }
  }
  struct Candidate {
    std::string field, value;
    bool fixes = false, all = false;
    int passing = 0;
    double cost = 0, worst_miss = 0;  // the worst objective's miss after the change
    ObjectiveVerdict worst_after;
  };
  std::optional<Candidate> best;
  for (const auto& [field, value] : neighbours(c, d)) {
    Design changed = d;
    changed[field] = value;
    auto ok = validate_submission(c, changed);
    if (!ok) continue;
    const Evaluation e = evaluate(c, *ok, r, cat);
    ++v.evaluations;
    if (!e.runs) continue;
    Candidate cand;
    cand.field = field;
    cand.value = value;
    auto verdicts = judge(c, e);
    cand.fixes = verdicts[static_cast<size_t>(worst)].pass;
    cand.passing = static_cast<int>(std::count_if(verdicts.begin(), verdicts.end(), [](const auto& o) { return o.pass; }));
    cand.all = cand.passing == static_cast<int>(verdicts.size());
    cand.cost = e.metrics.at(cost_metric(c)).value;
    cand.worst_after = verdicts[static_cast<size_t>(worst)];
    cand.worst_miss = miss(c.objectives[static_cast<size_t>(worst)], e.metrics.at(c.objectives[static_cast<size_t>(worst)].metric));
    auto better = [](const Candidate& a, const Candidate& b) {
      if (a.fixes != b.fixes) return a.fixes;
      if (a.all != b.all) return a.all;
      if (a.passing != b.passing) return a.passing > b.passing;
      if (!a.fixes && a.worst_miss != b.worst_miss) return a.worst_miss < b.worst_miss;
      return a.cost < b.cost;
    };
    if (!best || better(cand, *best)) best = cand;
  }
  // A change that fixes the worst objective; else the one that brings it closest (said so), as
  // long as it improves on the submission.
  if (best && (best->fixes || !ev.runs || best->worst_miss < worst_miss)) {
    Suggestion s;
    s.field = best->field;
    s.from = text(d, best->field);
    s.to = best->value;
    s.objective = v.objectives[static_cast<size_t>(worst)].name;
    s.passes_all = best->all;
    s.fixes = best->fixes;
    const auto& before = v.objectives[static_cast<size_t>(worst)];
    auto shown = [](const ObjectiveVerdict& o) { return o.unbounded ? std::string("unbounded") : fmt(o.predicted); };
    s.effect = s.objective + " " + (ev.runs ? shown(before) : std::string("(cannot run)")) + " -> " + shown(best->worst_after) +
               " " + before.unit + " (target " + (before.at_most ? "at most " : "at least ") + fmt(before.target) + ")" +
               (s.passes_all ? "; the design then passes every objective"
                             : best->fixes ? "; other objectives still fail"
                                           : "; the closest single change, not yet enough");
    v.suggestion = s;
  }
  return v;
}

}  // namespace ridge::design
