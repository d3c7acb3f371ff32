// Numeric drills generated from the calculator registry: a template picks a calculator, a
// result to ask for and ranges for its inputs; a seed picks the inputs. The user answers a
// number with a unit, graded within a tolerance (10% by default), then sees the worked chain.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::practice {

struct Drill {
  uint64_t seed = 0;
  std::string template_id;
  std::string calculator;
  std::string topic;
  std::string prompt;      // "How many bytes of KV cache per token does llama-3.1-70b need in bf16?"
  std::string result_key;  // "kv_bytes_per_token"
  calc::Unit unit = calc::Unit::kNone;
  std::string unit_hint;   // "bytes (a number, or with GB, MB...)"
  calc::Given inputs;
  calc::Derivation answer{"", ""};
  double expected = 0;
};

struct Graded {
  bool correct = false;
  double given = 0;
  double expected = 0;
  double relative_error = 0;
  std::string message;  // why the answer could not be read, when it could not
};

// The template ids ("ridge", "kv-per-token", ...), for courses that name their drills.
std::vector<std::string> drill_template_ids();

// The topic of a template ("" for an unknown id), and the first seed from `seed` on whose
// drill is of that template (nullopt for an unknown id): a course links its own drills.
std::string drill_template_topic(const std::string& template_id);
std::optional<uint64_t> seed_for_template(uint64_t seed, const std::string& template_id);

// Topic ids the drills cover, for `ridge drill --topic`.
std::vector<std::string> drill_topics();

// A drill from `seed`, optionally restricted to a topic. nullopt when the topic has no drills.
std::optional<Drill> make_drill(uint64_t seed, const std::string& topic, const calc::Registry& registry,
                                const calc::Catalog& catalog);

// What an answer in `unit` may be typed as, for error messages ("bytes: a number (10.7e9) or ...").
std::string answer_unit_hint(calc::Unit unit);

// Reads "10.7 GB", "10.7e9", "40", "295 FLOP/B"... in the drill's unit and grades it.
Graded grade_drill(const Drill& drill, const std::string& answer, double tolerance = 0.10);

}  // namespace ridge::practice
