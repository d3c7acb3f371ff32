// Named mistakes: each a transform of an exercise's inputs (re-run through the engine) or of
// a step's result, giving the value a candidate who makes that mistake would answer. A wrong
// answer that matches one (and not the right value) names it, with the concept explaining it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "practice/workit.h"

namespace ridge::practice {

// What a transform sees: the exercise, the step asked, and the engine to re-run it with.
struct MistakeContext {
  const Exercise& ex;
  size_t step;
  const calc::Registry& registry;
  const calc::Catalog& catalog;

  const WorkStep& asked() const { return ex.steps[step]; }
  std::string block_id() const;
  std::string key() const;
  const ChainBlock* block() const;              // the asked result's block
  const calc::Derivation* derivation() const;   // its derivation for the drawn inputs
  std::optional<double> result(std::string_view key) const;  // another result of the same block
  // The asked step's value when every call block's inputs pass through `tweak` (which
  // answers whether it changed anything) and the chain re-runs: nullopt when nothing
  // changed or the engine refuses the changed chain. One chain evaluation.
  std::optional<double> rerun(const std::function<bool(const std::string& calculator, calc::Given& args)>& tweak) const;
};

struct Misconception {
  std::string id;       // "kv-heads-as-attention-heads"
  std::string title;    // "Used the attention (query) heads as KV heads"
  std::string concept_id;  // a concept page: /concepts/{concept_id}
  std::optional<double> (*wrong)(const MistakeContext&);
};

const std::vector<Misconception>& misconceptions();
const Misconception* find_misconception(std::string_view id);

// The first misconception whose wrong value is told apart from the right one (further than
// `tolerance`) and matches `given` within `tolerance`; nullptr when none does.
const Misconception* match_misconception(const MistakeContext& ctx, double given, double tolerance);

}  // namespace ridge::practice
