#include "practice/workit.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

#include "bank/markdown.h"
#include "calc/expr.h"
#include "practice/drills.h"
#include "practice/misconceptions.h"

namespace ridge::practice {
namespace {

using Results = std::map<std::string, const calc::Derivation*>;

// "{{fit.kv_bytes_per_token:GB:1}}" -> "fit.kv_bytes_per_token", in the order written.
std::vector<std::string> references_in(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find("{{", pos)) != std::string::npos) {
    size_t end = text.find("}}", pos);
    if (end == std::string::npos) break;
    std::string ref = text.substr(pos + 2, end - pos - 2);
    ref = ref.substr(0, ref.find(':'));
    if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(ref);
    pos = end + 2;
  }
  return out;
}

const calc::ParamSpec* spec_of(const calc::Registry& registry, const std::string& calculator, const std::string& name) {
  const calc::Calculator* c = registry.find(calculator);
  if (c == nullptr) return nullptr;
  const std::string normalized = calc::normalize_param_name(name);  // weights_dtype = weights-dtype
  for (const auto& p : c->params) {
    if (p.name == normalized) return &p;
  }
  return nullptr;
}

bool is_power_of_two(double v) { return v >= 1 && v == std::floor(v) && std::fmod(std::log2(v), 1.0) == 0; }

std::string plain(double v, bool whole) {
  char buf[64];
  if (whole) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

// Two significant digits: the precision a prompt's figure has.
double round2(double v) {
  if (v == 0) return 0;
  double scale = std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 1);
  return std::round(v / scale) * scale;
}

// A new value for one literal input, or nullopt when the parameter is not varied (choices,
// dtypes, texts, configs, booleans-as-numbers, ratios fixed by the story such as a reserve).
std::optional<std::string> draw_value(const calc::ParamSpec& spec, const std::string& original, std::mt19937_64& rng,
                                      const calc::Catalog& catalog) {
  switch (spec.type) {
    case calc::ParamType::kModel: {
      const calc::ModelArch* m = catalog.find_model(original);
      if (m == nullptr) return std::nullopt;
      // Another model of the same kind (dense or mixture of experts), so the story holds.
      std::vector<const std::string*> same;
      for (const auto& [id, arch] : catalog.models) {
        if (id != original && (arch.routed_experts > 0) == (m->routed_experts > 0)) same.push_back(&id);
      }
      if (same.empty()) return std::nullopt;
      return *same[std::uniform_int_distribution<size_t>(0, same.size() - 1)(rng)];
    }
    case calc::ParamType::kGpu: {
      const calc::Accelerator* g = catalog.hardware.find(original);
      if (g == nullptr) return std::nullopt;
      // Same vendor: the prompt's interconnect and software story stay true.
      std::vector<const std::string*> same;
      for (const auto& a : catalog.hardware.all()) {
        if (a.id == original || a.vendor != g->vendor || a.memory_bytes <= 0) continue;
        // Every dtype the original runs (fp8, fp4...), so the question's dtypes stay valid.
        bool supports_all = true;
        for (const auto& [dtype, peak] : g->peak_flops) supports_all = supports_all && a.supports(dtype);
        if (supports_all) same.push_back(&a.id);
      }
      if (same.empty()) return std::nullopt;
      return *same[std::uniform_int_distribution<size_t>(0, same.size() - 1)(rng)];
    }
    case calc::ParamType::kNumber:
    case calc::ParamType::kCount: {
      auto parsed = calc::parse_number(spec, original);
      if (!parsed) return std::nullopt;
      const double v = *parsed;
      if (v <= 0 || spec.unit == calc::Unit::kBool) return std::nullopt;
      const bool whole = spec.type == calc::ParamType::kCount;
      double drawn = 0;
      if (spec.unit == calc::Unit::kRatio) {
        // A fraction (MFU, efficiency, reserve) moves by a quarter either way.
        static const double kFactors[] = {0.75, 0.9, 1.1, 1.25};
        drawn = round2(v * kFactors[std::uniform_int_distribution<int>(0, 3)(rng)]);
      } else if (whole && is_power_of_two(v)) {
        // Sizes chosen as powers of two (GPUs, context, batch) stay powers of two.
        static const double kFactors[] = {0.5, 2, 4};
        drawn = v * kFactors[std::uniform_int_distribution<int>(v >= 2 ? 0 : 1, 2)(rng)];
      } else {
        static const double kFactors[] = {0.5, 0.7, 1.5, 2, 3};
        drawn = round2(v * kFactors[std::uniform_int_distribution<int>(0, 4)(rng)]);
        if (whole) drawn = std::max(1.0, std::round(drawn));
      }
      drawn = std::clamp(drawn, spec.min, spec.max);
      if ((spec.min_exclusive && drawn <= spec.min) || drawn == v) return std::nullopt;
      return plain(drawn, whole);
    }
    default:
      return std::nullopt;
  }
}

bool drawable(const calc::ParamSpec* spec) {
  return spec != nullptr && (spec->type == calc::ParamType::kModel || spec->type == calc::ParamType::kGpu ||
                             spec->type == calc::ParamType::kNumber || spec->type == calc::ParamType::kCount);
}

// "max_sequences" -> "max sequences".
std::string spoken(std::string key) {
  std::replace(key.begin(), key.end(), '_', ' ');
  return key;
}

}  // namespace

const calc::Derivation* ChainRun::find(std::string_view id) const {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == id) return &derivations[i];
  }
  return nullptr;
}

std::optional<double> ChainRun::value(std::string_view ref) const {
  size_t dot = ref.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const calc::Derivation* d = find(ref.substr(0, dot));
  if (d == nullptr) return std::nullopt;
  const calc::NamedResult* r = d->find(ref.substr(dot + 1));
  if (r == nullptr) return std::nullopt;
  return r->value;
}

WorkPlan plan_question(const bank::Question& q, const calc::Registry& registry, const calc::Catalog& catalog) {
  WorkPlan plan;
  plan.slug = q.slug;
  plan.tolerance = q.work.tolerance;
  std::vector<bank::Diagnostic> ignored;
  for (const bank::Block& b : bank::split_blocks(q.body_markdown, 1, q.file, ignored)) {
    if (!b.fenced || b.info.rfind("calc", 0) != 0) continue;
    ChainBlock cb;
    std::istringstream words(b.info.substr(4));
    std::string word;
    while (words >> word) {
      if (word.rfind("id=", 0) == 0) cb.id = word.substr(3);
    }
    if (cb.id.empty()) continue;
    if (calc::is_expr_block(b.text)) {
      cb.expr = true;
      cb.text = b.text;
    } else {
      bank::CalcCall call;
      std::string error;
      if (!bank::parse_call(b.text, call, error)) continue;
      cb.calculator = call.calculator;
      cb.args = call.args;
    }
    plan.blocks.push_back(std::move(cb));
  }
  if (!q.work.workable) {
    plan.reason = q.work.reason;
    return plan;
  }
  if (plan.blocks.empty()) {
    plan.reason = "no calc blocks";
    return plan;
  }
  // Something must vary: a literal input the engine knows how to draw.
  bool varies = false;
  for (const auto& b : plan.blocks) {
    for (const auto& [name, value] : b.args) {
      if (value.find("{{") != std::string::npos) continue;
      const calc::ParamSpec* spec = spec_of(registry, b.calculator, name);
      if (spec == nullptr) continue;
      if (spec->type == calc::ParamType::kModel || spec->type == calc::ParamType::kGpu ||
          spec->type == calc::ParamType::kNumber || spec->type == calc::ParamType::kCount) {
        varies = true;
      }
    }
  }
  if (!varies) {
    plan.reason = "no calc input can vary (every call takes its inputs by reference or by choice)";
    return plan;
  }
  plan.asked = q.work.asked.empty() ? references_in(q.tldr_markdown) : q.work.asked;
  // Only results of this question's blocks, and not yes/no flags (asked as numbers).
  std::set<std::string> ids;
  for (const auto& b : plan.blocks) ids.insert(b.id);
  plan.asked.erase(std::remove_if(plan.asked.begin(), plan.asked.end(),
                                  [&](const std::string& ref) { return !ids.count(ref.substr(0, ref.find('.'))); }),
                   plan.asked.end());
  // Numbers only: a yes/no result ("fits") is the story a draw keeps, not a step to type.
  std::string why;
  auto as_written = run_chain(plan.blocks, registry, catalog, &why);
  if (!as_written) {
    plan.reason = "the chain as written fails: " + why;
    return plan;
  }
  plan.asked.erase(std::remove_if(plan.asked.begin(), plan.asked.end(),
                                  [&](const std::string& ref) {
                                    const calc::Derivation* d = as_written->find(ref.substr(0, ref.find('.')));
                                    const calc::NamedResult* r = d ? d->find(ref.substr(ref.find('.') + 1)) : nullptr;
                                    return r == nullptr || r->unit == calc::Unit::kBool;
                                  }),
                   plan.asked.end());
  if (plan.asked.empty()) {
    plan.reason = "the TL;DR quotes no numeric calc result and [work] asks none";
    return plan;
  }
  for (size_t i = 0; i < as_written->derivations.size(); ++i) {
    for (const auto& r : as_written->derivations[i].results()) {
      if (r.unit == calc::Unit::kBool) plan.story.emplace_back(as_written->ids[i] + "." + r.key, r.value);
    }
  }
  plan.workable = true;
  return plan;
}

std::optional<ChainRun> run_chain(const std::vector<ChainBlock>& blocks, const calc::Registry& registry,
                                  const calc::Catalog& catalog, std::string* error) {
  ChainRun run;
  run.derivations.reserve(blocks.size());
  Results results;
  for (const ChainBlock& b : blocks) {
    std::optional<calc::Derivation> d;
    std::string call;
    if (b.expr) {
      call = b.text;
      auto r = calc::evaluate_expr(b.text, [&](std::string_view ref) { return calc::lookup_result(ref, results); });
      if (!r) {
        if (error) *error = "calc " + b.id + ": " + calc::to_string(r.errors());
        return std::nullopt;
      }
      d = std::move(r).value();
    } else {
      calc::Given args;
      call = b.calculator;
      for (const auto& [name, value] : b.args) {
        std::string v = value;
        if (v.find("{{") != std::string::npos) {
          std::vector<bank::Diagnostic> diags;
          v = bank::substitute_references(v, results, 1, "", diags, /*raw=*/true);
          if (!diags.empty()) {
            if (error) *error = "calc " + b.id + ": " + diags[0].message;
            return std::nullopt;
          }
        }
        call += " " + name + "=" + v;
        args[name] = v;
      }
      auto r = registry.evaluate(b.calculator, args, catalog);
      if (!r) {
        if (error) *error = "calc " + b.id + ": " + calc::to_string(r.errors());
        return std::nullopt;
      }
      d = std::move(r).value();
    }
    run.ids.push_back(b.id);
    run.calls.push_back(std::move(call));
    run.derivations.push_back(std::move(*d));
    // Stable: the vector was reserved for every block, so it never reallocates.
    results[b.id] = &run.derivations.back();
  }
  return run;
}

std::optional<Exercise> make_exercise(const WorkPlan& plan, const std::string& title, uint64_t seed,
                                      const calc::Registry& registry, const calc::Catalog& catalog,
                                      std::string* error) {
  if (!plan.workable) {
    if (error) *error = plan.slug + " is not workable: " + plan.reason;
    return std::nullopt;
  }
  std::string why;
  std::mt19937_64 rng(seed ^ std::hash<std::string>{}(plan.slug));
  for (int attempt = 1; attempt <= kMaxDraws; ++attempt) {
    Exercise ex;
    ex.slug = plan.slug;
    ex.seed = seed;
    ex.tolerance = plan.tolerance;
    ex.attempts = attempt;
    ex.blocks = plan.blocks;
    // The same literal (a model, a context) draws the same new value in every block.
    std::map<std::pair<std::string, std::string>, std::optional<std::string>> drawn;
    // The first three tries vary each input with probability 2/3; later tries vary a single
    // one, which keeps a many-block story (what fits, what is compute-bound) far more often.
    const bool single = attempt > 3;
    size_t variable = 0;
    for (const ChainBlock& b : ex.blocks) {
      for (const auto& [name, value] : b.args) {
        if (value.find("{{") == std::string::npos && drawable(spec_of(registry, b.calculator, name))) ++variable;
      }
    }
    size_t chosen = variable == 0 ? 0 : std::uniform_int_distribution<size_t>(0, variable - 1)(rng);
    size_t index = 0;
    for (ChainBlock& b : ex.blocks) {
      if (seed == 0) break;  // seed 0: the question as written
      for (auto& [name, value] : b.args) {
        if (value.find("{{") != std::string::npos) continue;
        const calc::ParamSpec* spec = spec_of(registry, b.calculator, name);
        if (spec == nullptr) continue;
        auto key = std::make_pair(name, value);
        auto it = drawn.find(key);
        const size_t this_index = drawable(spec) ? index++ : variable;
        if (it == drawn.end()) {
          // Each input varies with probability 2/3, so a draw changes a few things, not all.
          std::optional<std::string> v;
          const bool vary = single ? this_index == chosen : std::uniform_int_distribution<int>(0, 2)(rng) != 0;
          if (vary) v = draw_value(*spec, value, rng, catalog);
          if (single && vary && !v) ++chosen;  // nothing to draw there: the next input instead
          it = drawn.emplace(key, v).first;
          if (v) ex.inputs.push_back({b.id, name, value, *v});
        }
        if (it->second) value = *it->second;
      }
    }
    if (ex.inputs.empty() && seed != 0) {
      why = "no input changed";
      continue;
    }
    auto run = run_chain(ex.blocks, registry, catalog, &why);
    if (!run) continue;
    // The draw keeps the chain's yes/no results (a model that fit still fits).
    bool same_story = true;
    for (const auto& [ref, was] : plan.story) {
      auto now = run->value(ref);
      if (!now || *now != was) {
        same_story = false;
        why = ref + " changes from " + (was != 0 ? "yes" : "no");
        break;
      }
    }
    if (!same_story) continue;
    bool valid = true;
    for (const auto& ref : plan.asked) {
      auto v = run->value(ref);
      const calc::Derivation* d = run->find(ref.substr(0, ref.find('.')));
      if (!v || !std::isfinite(*v) || d == nullptr) {
        why = ref + " has no finite value";
        valid = false;
        break;
      }
      const calc::NamedResult* r = d->find(ref.substr(ref.find('.') + 1));
      WorkStep step;
      step.ref = ref;
      step.label = spoken(r->key) + " (" + ref.substr(0, ref.find('.')) + ")";
      step.unit = r->unit;
      step.value = *v;
      step.unit_hint = answer_unit_hint(r->unit);
      ex.steps.push_back(std::move(step));
    }
    if (!valid) continue;
    ex.chain = std::move(*run);
    ex.prompt = title + (seed == 0 ? "" : "\nWork it with these inputs:");
    for (const auto& in : ex.inputs) ex.prompt += "\n  " + in.param + ": " + in.drawn + " (was " + in.original + ")";
    return ex;
  }
  if (error) *error = plan.slug + " seed " + std::to_string(seed) + ": no valid draw in " + std::to_string(kMaxDraws) + " tries; last: " + why;
  return std::nullopt;
}

StepGrade grade_step(const Exercise& ex, size_t step, const std::string& answer, const calc::Registry& registry,
                     const calc::Catalog& catalog) {
  const WorkStep& s = ex.steps[step];
  Drill d;
  d.unit = s.unit;
  d.unit_hint = s.unit_hint;
  d.expected = s.value;
  Graded g = grade_drill(d, answer, ex.tolerance);
  StepGrade out;
  out.ref = s.ref;
  out.correct = g.correct;
  out.given = g.given;
  out.expected = g.expected;
  out.relative_error = g.relative_error;
  out.message = g.message;
  if (!g.correct && g.message.empty()) {
    MistakeContext ctx{ex, step, registry, catalog};
    out.misconception = match_misconception(ctx, g.given, ex.tolerance);
  }
  return out;
}

}  // namespace ridge::practice
