#include "practice/drills.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace ridge::practice {
namespace {

struct Template {
  const char* id;
  const char* calculator;
  const char* topic;
  const char* result;
  // Builds the inputs and the prompt from a random engine.
  std::string (*build)(std::mt19937_64& rng, calc::Given& in);
};

template <class T, size_t N>
const T& pick(std::mt19937_64& rng, const T (&items)[N]) {
  return items[std::uniform_int_distribution<size_t>(0, N - 1)(rng)];
}

const char* kModels[] = {"llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "qwen3-32b", "llama-3.3-70b"};
const char* kGpus[] = {"h100-sxm", "h200", "b200", "mi300x", "a100-80gb-sxm"};
const char* kContexts[] = {"4096", "8192", "32768", "131072"};

const Template kTemplates[] = {
    {"kv-per-token", "fit", "napkin-math", "kv_bytes_per_token",
     [](std::mt19937_64& rng, calc::Given& in) {
       in = {{"model", pick(rng, kModels)}, {"gpu", "h100-sxm"}, {"context", "4096"}};
       return "How many bytes of KV cache does one token of " + in["model"] + " take in bf16?";
     }},
    {"weights", "fit", "napkin-math", "weights_bytes",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* dtypes[] = {"bf16", "fp8", "int4"};
       in = {{"model", pick(rng, kModels)}, {"gpu", "h100-sxm"}, {"context", "4096"}, {"weights-dtype", pick(rng, dtypes)}};
       return "How much memory do the weights of " + in["model"] + " take in " + in["weights-dtype"] + "?";
     }},
    {"max-sequences", "fit", "inference-serving", "max_sequences",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* gpus[] = {"4", "8"};
       in = {{"model", pick(rng, kModels)}, {"gpu", pick(rng, kGpus)}, {"gpus", pick(rng, gpus)}, {"context", pick(rng, kContexts)}};
       return "How many sequences of " + in["context"] + " tokens of " + in["model"] + " fit on " + in["gpus"] + " × " +
              in["gpu"] + " in bf16, keeping 10% of memory in reserve?";
     }},
    {"ridge", "roofline", "gpu-architecture", "ridge_flops_per_byte",
     [](std::mt19937_64& rng, calc::Given& in) {
       in = {{"gpu", pick(rng, kGpus)}};
       return "What is the bf16 ridge point of " + in["gpu"] + " in FLOP per byte?";
     }},
    {"decode-tps", "decode", "inference-serving", "tokens_per_second",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* batches[] = {"1", "8", "32"};
       in = {{"model", "llama-3.1-70b"}, {"gpu", pick(rng, kGpus)}, {"tp", "8"}, {"batch", pick(rng, batches)}, {"context", "4096"}};
       return "At batch " + in["batch"] + " with 4,096 tokens of context, what is the bandwidth floor on tokens per second "
              "for llama-3.1-70b on 8 × " + in["gpu"] + " (tp 8, bf16)?";
     }},
    {"train-days", "train", "distributed-training", "days",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* params[] = {"8B", "70B", "405B"};
       const char* tokens[] = {"2T", "15T"};
       const char* gpus[] = {"1024", "4096", "16384"};
       in = {{"params", pick(rng, params)}, {"tokens", pick(rng, tokens)}, {"gpu", "h100-sxm"}, {"gpus", pick(rng, gpus)}, {"mfu", "0.4"}};
       return "How many days does training a " + in["params"] + " dense model on " + in["tokens"] + " tokens take on " +
              in["gpus"] + " H100 at 40% MFU?";
     }},
    {"allreduce", "allreduce", "networking-storage", "seconds",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* bytes[] = {"2GB", "16GB", "140GB"};
       const char* ranks[] = {"8", "64", "512"};
       in = {{"bytes", pick(rng, bytes)}, {"ranks", pick(rng, ranks)}, {"bus-bandwidth", "400GB/s"}};
       return "How long does a ring all-reduce of " + in["bytes"] + " over " + in["ranks"] + " ranks take at 400 GB/s bus bandwidth?";
     }},
    {"checkpoint", "checkpoint", "fleet-reliability", "interval_seconds",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* mtbf[] = {"1", "3", "8"};
       const char* write[] = {"30", "60", "300"};
       in = {{"mtbf-hours", pick(rng, mtbf)}, {"write-seconds", pick(rng, write)}};
       return "With a job MTBF of " + in["mtbf-hours"] + " hours and a " + in["write-seconds"] +
              " s checkpoint write, what interval minimizes lost time (Young/Daly)?";
     }},
    {"cost", "cost", "napkin-math", "usd_per_million_tokens",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* price[] = {"2", "3.5", "25"};
       const char* tps[] = {"500", "2000", "20000"};
       in = {{"usd-per-hour", pick(rng, price)}, {"tokens-per-second", pick(rng, tps)}};
       return "A unit costs $" + in["usd-per-hour"] + " per hour and produces " + in["tokens-per-second"] +
              " tokens per second. What does a million tokens cost?";
     }},
};

std::string unit_hint(calc::Unit u) {
  switch (u) {
    case calc::Unit::kBytes: return "bytes: a number, or with kB, MB, GB, GiB";
    case calc::Unit::kSeconds: return "seconds: a number, or with ms, s, min, h";
    case calc::Unit::kDays: return "days";
    case calc::Unit::kUsd: return "US dollars";
    case calc::Unit::kFlopPerByte: return "FLOP per byte";
    case calc::Unit::kTokensPerSecond: return "tokens per second";
    default: return "a number";
  }
}

}  // namespace

std::vector<std::string> drill_template_ids() {
  std::vector<std::string> out;
  for (const auto& t : kTemplates) out.push_back(t.id);
  return out;
}

std::vector<std::string> drill_topics() {
  std::vector<std::string> out;
  for (const auto& t : kTemplates) {
    if (std::find(out.begin(), out.end(), t.topic) == out.end()) out.push_back(t.topic);
  }
  return out;
}

std::optional<Drill> make_drill(uint64_t seed, const std::string& topic, const calc::Registry& registry,
                                const calc::Catalog& catalog) {
  std::vector<const Template*> eligible;
  for (const auto& t : kTemplates) {
    if (topic.empty() || topic == t.topic) eligible.push_back(&t);
  }
  if (eligible.empty()) return std::nullopt;
  std::mt19937_64 rng(seed);
  const Template& t = *eligible[std::uniform_int_distribution<size_t>(0, eligible.size() - 1)(rng)];
  Drill d;
  d.seed = seed;
  d.template_id = t.id;
  d.calculator = t.calculator;
  d.topic = t.topic;
  d.result_key = t.result;
  d.prompt = t.build(rng, d.inputs);
  auto result = registry.evaluate(t.calculator, d.inputs, catalog);
  if (!result) return std::nullopt;
  d.answer = *result;
  const calc::NamedResult* r = d.answer.find(t.result);
  if (r == nullptr) return std::nullopt;
  d.expected = r->value;
  d.unit = r->unit;
  d.unit_hint = unit_hint(r->unit);
  return d;
}

Graded grade_drill(const Drill& drill, const std::string& answer, double tolerance) {
  Graded g;
  g.expected = drill.expected;
  calc::ParamSpec spec;
  spec.name = "answer";
  spec.type = calc::ParamType::kNumber;
  spec.unit = drill.unit == calc::Unit::kDays || drill.unit == calc::Unit::kCount ? calc::Unit::kNone : drill.unit;
  std::string text = answer;
  // Units people type after the number that the parser does not need.
  for (const char* word : {" FLOP/B", "FLOP/B", " tokens/s", "tokens/s", " days", "days", " sequences", "sequences"}) {
    size_t pos = text.find(word);
    if (pos != std::string::npos && pos + std::string(word).size() == text.size()) text.erase(pos);
  }
  auto parsed = calc::parse_number(spec, text);
  if (!parsed) {
    g.message = parsed.errors()[0].message + "; " + drill.unit_hint;
    return g;
  }
  g.given = *parsed;
  g.relative_error = drill.expected == 0 ? std::fabs(g.given) : std::fabs(g.given - drill.expected) / std::fabs(drill.expected);
  g.correct = g.relative_error <= tolerance;
  return g;
}

}  // namespace ridge::practice
