// Serving calculators: the bandwidth floor of a decode step, and dollars per token.
#include <cmath>

#include "calc/common.h"

namespace ridge::calc {
namespace {

using namespace detail;

std::vector<ParamSpec> decode_params() {
  return {
      model_param(), config_param(), gpu_param(),
      count("tp", Unit::kCount, "tensor-parallel degree; must divide the attention heads", 1, 1024, "1"),
      count("batch", Unit::kCount, "sequences decoded together in one step", 1, 1e6, "1"),
      count("context", Unit::kTokens, "tokens already in each sequence's KV cache", 0, 1e8, "0"),
      dtype_param("weights-dtype",
                  "storage dtype of every weight (default: as the checkpoint ships them, its quantization_config, "
                  "else bf16)",
                  ""),
      weights_group_param(),
      dtype_param("kv-dtype", "storage dtype of the KV cache (default: as --weights-dtype, else bf16)", ""),
      state_dtype_param(),
      attention_param(),
      number("bandwidth-efficiency", Unit::kRatio, "fraction of peak memory bandwidth the kernels reach (1 = the floor)",
             0, 1, "1"),
      optional_zero("step-overhead", Unit::kSeconds, "fixed time per step: launches, sampling, scheduling (accepts us, ms)", 10),
  };
}

Result<Derivation> decode(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const Accelerator& gpu = *in.gpu();
  auto dtypes = serving_dtypes(in, gpu);
  if (!dtypes) return dtypes.errors();
  const Dtype kvd = dtypes->kv;
  const double tp = in.number("tp"), batch = in.number("batch"), context = in.number("context");
  const auto tp_int = static_cast<int64_t>(tp);
  if (m.heads % tp_int != 0) {
    return FieldError{"tp", in.raw().at("tp"),
                      "does not divide the " + std::to_string(m.heads) + " attention heads of " + m.id,
                      divisors(m.heads)};
  }
  Derivation d("decode", "Decode step floor for " + m.id + " on " + num(tp) + " × " + gpu.id);
  describe_model(d, m, in.has("config") ? "config" : "model");
  describe_gpu(d, gpu);
  auto storage = weight_storage(m, in);
  if (!storage) return storage.errors();
  describe_inputs(d, in, decode_params(), implied_weights(*storage));
  if (!storage->as_shipped && !m.shipped_quantization.empty()) {
    d.assume("the checkpoint ships " + m.shipped_quantization + " weights (quantization_config); weights are sized at --weights-dtype");
  }
  d.assume("decode is memory-bound: each step reads the weights it uses and every sequence's KV cache once");
  d.assume("the floor ignores compute, kernel launch gaps and the all-reduce time; real steps are slower");
  d.assume("weights and KV split evenly across the tensor-parallel group");
  check_context(m, context, d);
  ParamCount p = count_params(m);
  const double wb = storage->format.bytes, kb = dtype_bytes(kvd);
  const bool uniform = !storage->format.quantized();
  if (!uniform) {
    d.assume("weights in " + storage->name +
             (storage->as_shipped ? " (quantization_config; --weights-dtype sizes them at one dtype instead)" : ""));
  }
  double resident = uniform ? d.step("Weights per GPU", "params × bytes ÷ tp",
                                     num(p.total) + " × " + num(wb) + " B ÷ " + num(tp), p.total * wb / tp, Unit::kBytes)
                            : d.step("Weights per GPU", "(" + storage->formula + ") ÷ tp",
                                     "(" + storage->substituted + ") ÷ " + num(tp), storage->bytes / tp, Unit::kBytes);
  double read_params = p.total;
  if (m.is_moe()) {
    // Distinct experts a batch touches per MoE layer, with uniform routing:
    // E × (1 − (1 − k/E)^B).
    double e = static_cast<double>(m.routed_experts), k = static_cast<double>(m.experts_per_token);
    double touched = e * (1 - std::pow(1 - k / e, batch));
    d.assume("MoE routing taken as uniform: a batch of B tokens touches E × (1 − (1 − k/E)^B) experts per layer");
    touched = d.step("Experts read per MoE layer", "E × (1 − (1 − k/E)^batch)",
                     num(e) + " × (1 − (1 − " + num(k) + "/" + num(e) + ")^" + num(batch) + ")", touched, Unit::kCount);
    read_params = params_read_per_decode_step(m, batch);
    d.step("Parameters read per step", "total − untouched experts",
           num(p.total) + " − " + num(p.expert) + " × " + num(m.moe_layers) + " × " + num(e - touched),
           read_params, Unit::kCount);
  }
  double weight_s;
  if (uniform) {
    weight_s = d.step("Weight read time", "params read × bytes ÷ tp ÷ bandwidth",
                      num(read_params) + " × " + num(wb) + " B ÷ " + num(tp) + " ÷ " +
                          q(gpu.memory_bandwidth, Unit::kBytesPerSecond),
                      read_params * wb / tp / gpu.memory_bandwidth, Unit::kSeconds);
  } else {
    // Untouched experts are the only weights a step skips, each at the experts' stored size.
    const double untouched = p.total - read_params;
    const double read_bytes = storage->bytes - untouched * storage->expert_bytes;
    weight_s = d.step("Weight read time", "(weight bytes − untouched experts × bytes each) ÷ tp ÷ bandwidth",
                      "(" + q(storage->bytes, Unit::kBytes) + " − " + num(untouched) + " × " +
                          format_significant(storage->expert_bytes, 4) + " B) ÷ " + num(tp) + " ÷ " +
                          q(gpu.memory_bandwidth, Unit::kBytesPerSecond),
                      read_bytes / tp / gpu.memory_bandwidth, Unit::kSeconds);
  }
  double kv_token = d.step("KV per token", kv_formula(m), kv_substituted(m, kb), kv_elements_per_token(m) * kb,
                           Unit::kBytes);
  const double replication = kv_replication(m, tp, in.text("attention"), d);
  double kv_s, kv_per_gpu;
  if (!m.cache_is_per_token_times_context() && (kv_elements_per_sequence(m, context) != kv_elements_per_token(m) * context || m.has_state())) {
    const double ssm_bytes = in.has("state-dtype") ? dtype_bytes(in.dtype("state-dtype")) : 0;
    const double held = cache_held_per_sequence(kv_per_sequence_step(m, kv_token, context, d, kb, ssm_bytes), replication, d);
    kv_per_gpu = batch * held / tp;
    kv_s = d.step("KV read time", "batch × cache held per sequence ÷ tp ÷ bandwidth",
                  num(batch) + " × " + q(held, Unit::kBytes) + " ÷ " + num(tp) + " ÷ " +
                      q(gpu.memory_bandwidth, Unit::kBytesPerSecond),
                  batch * held / tp / gpu.memory_bandwidth, Unit::kSeconds);
  } else {
    kv_per_gpu = batch * context * kv_token * replication / tp;
    kv_s = d.step("KV read time", "batch × context × KV per token × copies ÷ tp ÷ bandwidth",
                  num(batch) + " × " + num(context) + " × " + num(kv_token) + " B × " + num(replication) + " ÷ " +
                      num(tp) + " ÷ " + q(gpu.memory_bandwidth, Unit::kBytesPerSecond),
                  batch * context * kv_token * replication / tp / gpu.memory_bandwidth, Unit::kSeconds);
  }
  const double efficiency = in.number("bandwidth-efficiency"), overhead = in.number("step-overhead");
  double floor_s = weight_s + kv_s;
  double step;
  if (efficiency < 1 || overhead > 0) {
    d.assume("bandwidth reached: " + format_significant(efficiency * 100, 3) + "% of peak; fixed overhead " +
             q(overhead, Unit::kSeconds) + " per step");
    step = d.step("Step", "(weight read + KV read) ÷ efficiency + overhead",
                  "(" + q(weight_s, Unit::kSeconds) + " + " + q(kv_s, Unit::kSeconds) + ") ÷ " + num(efficiency) + " + " +
                      q(overhead, Unit::kSeconds),
                  (weight_s + kv_s) / efficiency + overhead, Unit::kSeconds);
  } else {
    step = d.step("Step floor", "weight read + KV read", q(weight_s, Unit::kSeconds) + " + " + q(kv_s, Unit::kSeconds),
                  weight_s + kv_s, Unit::kSeconds);
  }
  double tps = d.step("Tokens per second", "batch ÷ step", num(batch) + " ÷ " + q(step, Unit::kSeconds), batch / step,
                      Unit::kTokensPerSecond);
  const double blocks = static_cast<double>(residual_blocks(m));
  double allreduces = tp > 1 ? blocks : 0.0;
  d.step("All-reduces per step", tp > 1 ? "one per residual block (after attention, after the MLP)" : "none at tp = 1",
         tp > 1 ? (blocks == 2.0 * m.layers ? "2 × " + num(m.layers) : count_of(blocks, "block") + " over " + count_of(static_cast<long double>(m.layers), "layer")) : "0",
         allreduces, Unit::kCount);
  d.result("weight_bytes_per_gpu", resident, Unit::kBytes);
  d.result("weight_read_seconds", weight_s, Unit::kSeconds);
  d.result("kv_read_seconds", kv_s, Unit::kSeconds);
  d.result("kv_replication", replication, Unit::kNone);
  d.result("step_seconds_floor", floor_s, Unit::kSeconds);
  d.result("step_seconds", step, Unit::kSeconds);
  d.result("tokens_per_second", tps, Unit::kTokensPerSecond);
  d.result("allreduces_per_step", allreduces, Unit::kCount);
  // Range of validity (issue 33): the floor reads what the GPU holds; a batch whose cache does
  // not fit beside the weights cannot run as one step, so its time is stated as out of range.
  if (resident > gpu.memory_bytes) {
    d.assume("warning: the weights alone (" + q(resident, Unit::kBytes) + " per GPU) exceed the " + q(gpu.memory_bytes, Unit::kBytes) +
             " of one " + gpu.id + ": this step cannot run, the times are outside the model's range");
  } else if (resident + kv_per_gpu > gpu.memory_bytes) {
    d.assume("warning: the batch's KV cache (" + q(kv_per_gpu, Unit::kBytes) + " per GPU) does not fit beside the weights (" +
             q(resident, Unit::kBytes) + ") in the " + q(gpu.memory_bytes, Unit::kBytes) + " of one " + gpu.id +
             ": this batch cannot be decoded in one step; a smaller batch or context, or a larger tp, fits");
  }
  if (resident > gpu.memory_bytes) {
    d.set_conclusion("The weights alone (" + q(resident, Unit::kBytes) + " per GPU) exceed the " +
                     q(gpu.memory_bytes, Unit::kBytes) + " of one " + gpu.id + ": raise --tp.");
  }
  return d;
}

std::vector<ParamSpec> cost_params() {
  return {
      number("usd-per-hour", Unit::kUsdPerHour, "price of the serving unit per hour (a GPU or a node)", 0, 1e6, "", true, "2.50"),
      number("tokens-per-second", Unit::kTokensPerSecond, "tokens the unit produces per second", 0, 1e12, "", true, "1000"),
  };
}

Result<Derivation> cost(const Inputs& in, const Catalog&) {
  const double price = in.number("usd-per-hour"), tps = in.number("tokens-per-second");
  Derivation d("cost", "Dollars per million tokens");
  describe_inputs(d, in, cost_params());
  d.assume("the unit is busy all hour at this throughput; idle time raises the real figure");
  double per_s = d.step("Price per second", "$/h ÷ 3,600", q(price, Unit::kUsdPerHour) + " ÷ 3,600", price / 3600,
                        Unit::kUsd);
  double per_m = d.step("Per million tokens", "$/s ÷ tokens/s × 10^6",
                        '$' + format_significant(per_s, 4) + " ÷ " + num(tps) + " × 10^6", per_s / tps * 1e6, Unit::kUsd);
  d.result("usd_per_million_tokens", per_m, Unit::kUsd);
  return d;
}

}  // namespace

void register_serving_calculators(Registry& r) {
  r.add({"decode", "Bandwidth floor of one decode step: weight and KV reads, tokens per second", decode_params(),
         {"weight_bytes_per_gpu", "weight_read_seconds", "kv_read_seconds", "step_seconds_floor", "tokens_per_second",
          "allreduces_per_step", "kv_replication", "step_seconds"},
         "--model llama-3.1-70b --gpu h100-sxm --tp 8 --batch 1 --context 4096", decode});
  r.add({"cost", "Dollars per million tokens from an hourly price and a throughput", cost_params(),
         {"usd_per_million_tokens"}, "--usd-per-hour 2.50 --tokens-per-second 1000", cost});
}

}  // namespace ridge::calc
