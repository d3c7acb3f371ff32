#include "practice/misconceptions.h"

#include <cmath>

namespace ridge::practice {
namespace {

using calc::Unit;

bool is(const MistakeContext& c, std::string_view calculator) {
  const ChainBlock* b = c.block();
  return b != nullptr && !b->expr && b->calculator == calculator;
}

bool key_is(const MistakeContext& c, std::initializer_list<std::string_view> keys) {
  const std::string k = c.key();
  for (auto key : keys) {
    if (k == key) return true;
  }
  return false;
}

// Sets `name` to `value` in blocks that have it with another value.
std::function<bool(const std::string&, calc::Given&)> set_param(std::string name, std::string value,
                                                                  std::string only_calculator = "") {
  return [=](const std::string& calculator, calc::Given& args) {
    if (!only_calculator.empty() && calculator != only_calculator) return false;
    auto it = args.find(name);
    if (it == args.end() || it->second == value) return false;
    it->second = value;
    return true;
  };
}

// A transfer-time or bandwidth result: the calculators that divide bytes by a link's rate.
bool link_time(const MistakeContext& c) {
  return (is(c, "transfer") || is(c, "allreduce")) && c.key() == "seconds";
}
bool link_rate(const MistakeContext& c) { return is(c, "transfer") && c.key() == "effective_bandwidth"; }

const calc::ModelArch* model_of(const MistakeContext& c) {
  const ChainBlock* b = c.block();
  if (b == nullptr) return nullptr;
  auto it = b->args.find("model");
  return it == b->args.end() ? nullptr : c.catalog.find_model(it->second);
}

// The engine's dense peak is what MFU and training time are quoted against; 2:4 sparsity
// doubles the datasheet figure (NVIDIA's H100 datasheet lists both).
std::optional<double> sparse_peak(const MistakeContext& c) {
  const double v = c.asked().value;
  if (c.asked().unit == Unit::kFlopPerSecond || (is(c, "roofline") && c.key() == "ridge_flops_per_byte")) return v * 2;
  if (is(c, "train") && key_is(c, {"seconds", "days", "gpu_hours", "cost_usd"})) return v / 2;
  if (is(c, "prefill") && c.key() == "seconds") return v / 2;
  if (is(c, "mfu") && c.key() == "mfu") return v / 2;
  return std::nullopt;
}

const std::vector<Misconception> kList = {
    // KV bytes scale with the KV heads; GQA shares each KV head across heads / kv_heads
    // query heads (Ainslie et al. 2023), so the query-head count over-counts by that ratio.
    {"kv-heads-as-attention-heads", "Used the attention (query) heads as KV heads", "gqa",
     [](const MistakeContext& c) -> std::optional<double> {
       const calc::ModelArch* m = model_of(c);
       if (m == nullptr || m->kv_heads <= 0 || m->heads <= m->kv_heads) return std::nullopt;
       const double ratio = static_cast<double>(m->heads) / static_cast<double>(m->kv_heads);
       if (key_is(c, {"kv_bytes_per_token", "kv_bytes_per_sequence", "kv_bytes_total"})) return c.asked().value * ratio;
       if (c.key() == "max_sequences") {
         auto free = c.result("free_bytes");
         auto per_seq = c.result("kv_bytes_per_sequence");
         if (!free || !per_seq || *per_seq <= 0) return std::nullopt;
         return std::floor(*free / (*per_seq * ratio));
       }
       return std::nullopt;
     }},
    {"tp-split-forgotten", "Forgot the tensor-parallel split (all the weights on one GPU)", "tensor-parallelism",
     [](const MistakeContext& c) -> std::optional<double> { return c.rerun(set_param("tp", "1")); }},
    {"pp-split-forgotten", "Forgot the pipeline-parallel split", "pipeline-parallelism",
     [](const MistakeContext& c) -> std::optional<double> { return c.rerun(set_param("pp", "1")); }},
    {"reserve-forgotten", "Forgot the memory reserve (activations, CUDA graphs, fragmentation)", "capacity-planning",
     [](const MistakeContext& c) -> std::optional<double> {
       return c.rerun([](const std::string& calculator, calc::Given& args) {
         if (calculator != "fit") return false;
         // The engine accepts a reserve greater than 0: a millionth is none to 6 digits.
         auto it = args.find("reserve");
         if (it != args.end() && it->second == "1e-6") return false;
         args["reserve"] = "1e-6";
         return true;
       });
     }},
    {"pue-forgotten", "Forgot the facility overhead (PUE)", "power-cooling",
     [](const MistakeContext& c) -> std::optional<double> { return c.rerun(set_param("pue", "1")); }},
    {"per-token-for-per-sequence", "Gave the KV bytes of one token for a whole sequence", "kv-cache",
     [](const MistakeContext& c) -> std::optional<double> {
       if (c.key() != "kv_bytes_per_sequence") return std::nullopt;
       return c.result("kv_bytes_per_token");
     }},
    {"per-sequence-for-total", "Gave one sequence's KV for all the concurrent sequences", "kv-cache",
     [](const MistakeContext& c) -> std::optional<double> {
       if (c.key() != "kv_bytes_total") return std::nullopt;
       return c.result("kv_bytes_per_sequence");
     }},
    {"weights-forgotten", "Forgot that the weights take memory before the KV cache", "weights-memory",
     [](const MistakeContext& c) -> std::optional<double> {
       if (!is(c, "fit") || c.key() != "max_sequences") return std::nullopt;
       auto budget = c.result("budget_bytes");
       auto per_seq = c.result("kv_bytes_per_sequence");
       if (!budget || !per_seq || *per_seq <= 0) return std::nullopt;
       return std::floor(*budget / *per_seq);
     }},
    {"fp32-weights", "Counted 4 bytes per parameter (fp32) for weights stored in a smaller dtype", "weights-memory",
     [](const MistakeContext& c) -> std::optional<double> {
       if (c.key() != "weights_bytes") return std::nullopt;
       auto params = c.result("params");
       if (!params) return std::nullopt;
       return *params * 4;
     }},
    // A link's rate in Gb/s read as GB/s: 8 bits per byte.
    {"bits-as-bytes", "Read a rate in bits per second as bytes per second (a factor of 8)", "units-and-prefixes",
     [](const MistakeContext& c) -> std::optional<double> {
       if (link_time(c)) return c.asked().value / 8;
       if (link_rate(c)) return c.asked().value * 8;
       return std::nullopt;
     }},
    // 1 GiB = 2^30 B = 1.0737e9 B: the GiB figure written with GB reads 6.9% low.
    {"gib-as-gb", "Wrote a GiB figure as GB (2^30 against 10^9)", "units-and-prefixes",
     [](const MistakeContext& c) -> std::optional<double> {
       if (c.asked().unit != Unit::kBytes && c.asked().unit != Unit::kBytesPerToken) return std::nullopt;
       return c.asked().value * 1e9 / 1073741824.0;
     }},
    // NVLink and NIC figures are often quoted summed over both directions.
    {"bidirectional-bandwidth", "Used the bidirectional bandwidth where one direction carries the data", "nvlink",
     [](const MistakeContext& c) -> std::optional<double> {
       if (link_time(c)) return c.asked().value / 2;
       if (link_rate(c)) return c.asked().value * 2;
       return std::nullopt;
     }},
    // An 8-GPU node has 8 NICs (one per GPU on DGX H100): one NIC's rate is 1/8 of the node's.
    {"one-nic-for-node", "Used one NIC's bandwidth for the whole node (8 NICs)", "rdma",
     [](const MistakeContext& c) -> std::optional<double> {
       if (link_time(c)) return c.asked().value * 8;
       if (link_rate(c)) return c.asked().value / 8;
       return std::nullopt;
     }},
    // Mixed-precision Adam holds 16 B per parameter (bf16 weights and gradients, fp32 master
    // weights, momentum and variance; Rajbhandari et al. 2020); 2 B is the weights alone.
    {"training-state-2-bytes", "Counted 2 bytes per parameter of training state instead of 16", "mixed-precision-training",
     [](const MistakeContext& c) -> std::optional<double> {
       if (!is(c, "training-memory")) return std::nullopt;
       auto per_param = c.result("bytes_per_param");
       if (!per_param || *per_param <= 2) return std::nullopt;
       if (c.key() == "bytes_per_param") return 2.0;
       if (key_is(c, {"state_bytes", "state_bytes_per_gpu"})) return c.asked().value * 2 / *per_param;
       return std::nullopt;
     }},
    {"zero-shard-forgotten", "Forgot that ZeRO shards the state across the data-parallel GPUs", "zero-fsdp",
     [](const MistakeContext& c) -> std::optional<double> {
       if (!is(c, "training-memory") || c.key() != "state_bytes_per_gpu") return std::nullopt;
       return c.result("state_bytes");
     }},
    // Training costs 6ND (forward 2ND, backward 4ND; Kaplan et al. 2020); 2ND is inference.
    {"2nd-for-6nd", "Counted 2ND (a forward pass) for training instead of 6ND", "training-flops",
     [](const MistakeContext& c) -> std::optional<double> {
       if (is(c, "train") && key_is(c, {"train_flops", "seconds", "days", "gpu_hours", "cost_usd"})) return c.asked().value / 3;
       if (is(c, "mfu") && key_is(c, {"mfu", "achieved_flops_per_gpu"})) return c.asked().value / 3;
       return std::nullopt;
     }},
    {"sparse-peak-for-dense", "Used the 2:4 sparse peak instead of the dense one", "structured-sparsity", sparse_peak},
    // Young/Daly: interval = sqrt(2 × write time × MTBF); dropping the 2 gives 1/sqrt(2) of it.
    {"young-daly-factor-forgotten", "Dropped the factor 2 under Young/Daly's square root", "checkpointing",
     [](const MistakeContext& c) -> std::optional<double> {
       if (!is(c, "checkpoint") || !key_is(c, {"interval_seconds", "optimal_interval_seconds"})) return std::nullopt;
       return c.asked().value / std::sqrt(2.0);
     }},
    {"aggregate-for-per-sequence", "Gave one sequence's rate for the whole batch's tokens per second", "continuous-batching",
     [](const MistakeContext& c) -> std::optional<double> {
       if (!is(c, "decode") || c.key() != "tokens_per_second") return std::nullopt;
       auto it = c.block()->args.find("batch");
       if (it == c.block()->args.end()) return std::nullopt;
       double batch = std::strtod(it->second.c_str(), nullptr);
       if (!(batch > 1)) return std::nullopt;
       return c.asked().value / batch;
     }},
};

}  // namespace

std::string MistakeContext::block_id() const {
  const std::string& ref = asked().ref;
  return ref.substr(0, ref.find('.'));
}

std::string MistakeContext::key() const {
  const std::string& ref = asked().ref;
  return ref.substr(ref.find('.') + 1);
}

const ChainBlock* MistakeContext::block() const {
  const std::string id = block_id();
  for (const auto& b : ex.blocks) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

const calc::Derivation* MistakeContext::derivation() const { return ex.chain.find(block_id()); }

std::optional<double> MistakeContext::result(std::string_view name) const {
  const calc::Derivation* d = derivation();
  if (d == nullptr) return std::nullopt;
  const calc::NamedResult* r = d->find(name);
  if (r == nullptr) return std::nullopt;
  return r->value;
}

std::optional<double> MistakeContext::rerun(
    const std::function<bool(const std::string& calculator, calc::Given& args)>& tweak) const {
  // Only the blocks up to the asked one: later blocks cannot change its value.
  const std::string id = block_id();
  std::vector<ChainBlock> blocks;
  for (const auto& b : ex.blocks) {
    blocks.push_back(b);
    if (b.id == id) break;
  }
  bool changed = false;
  for (auto& b : blocks) {
    if (!b.expr && tweak(b.calculator, b.args)) changed = true;
  }
  if (!changed) return std::nullopt;
  auto run = run_chain(blocks, registry, catalog, nullptr);
  if (!run) return std::nullopt;
  return run->value(asked().ref);
}

const std::vector<Misconception>& misconceptions() { return kList; }

const Misconception* find_misconception(std::string_view id) {
  for (const auto& m : kList) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

const Misconception* match_misconception(const MistakeContext& ctx, double given, double tolerance) {
  const double right = ctx.asked().value;
  auto rel = [](double a, double b) { return b == 0 ? std::fabs(a) : std::fabs(a - b) / std::fabs(b); };
  for (const auto& m : kList) {
    auto wrong = m.wrong(ctx);
    if (!wrong || !std::isfinite(*wrong)) continue;
    if (rel(*wrong, right) <= tolerance) continue;  // indistinguishable from the right answer here
    if (rel(given, *wrong) <= tolerance) return &m;
  }
  return nullptr;
}

}  // namespace ridge::practice
