// Compute calculators: the roofline, training time and cost (6ND), fleet size, MFU from a
// measured run, and prefill time.
#include <cmath>

#include "calc/common.h"

namespace ridge::calc {
namespace {

using namespace detail;

constexpr double kSecondsPerDay = 86400;

std::vector<ParamSpec> roofline_params() {
  return {
      gpu_param(),
      dtype_param("dtype", "compute dtype of the kernel", "bf16"),
      number("flops", Unit::kFlop, "the kernel's FLOP (optional, with --bytes)", 0, 1e30, "", false, "2e12"),
      number("bytes", Unit::kBytes, "the kernel's bytes moved to and from memory (optional, with --flops)", 0, 1e30,
             "", false, "4e9"),
  };
}

Result<Derivation> roofline(const Inputs& in, const Catalog&) {
  const Accelerator& gpu = *in.gpu();
  Dtype dt = in.dtype("dtype");
  auto peak = peak_for(gpu, dt, "dtype");
  if (!peak) return peak.errors();
  if (in.has("flops") != in.has("bytes")) {
    const char* missing = in.has("flops") ? "bytes" : "flops";
    return FieldError{missing, "", "is required when --" + std::string(in.has("flops") ? "flops" : "bytes") + " is given",
                      "both --flops and --bytes, or neither"};
  }
  Derivation d("roofline", "Roofline of " + gpu.id + " in " + std::string(dtype_name(dt)));
  describe_gpu(d, gpu);
  describe_inputs(d, in, roofline_params());
  d.assume("dense peak from the vendor, no sparsity; attainable = min(peak, intensity × bandwidth)");
  d.assume("peaks are the vendor's: sustained clocks under power limits reach less");
  d.step("Peak", "dense " + std::string(dtype_name(dt)) + " FLOP/s (" + gpu.source + ", " + gpu.as_of + ")",
         q(*peak, Unit::kFlopPerSecond), *peak, Unit::kFlopPerSecond);
  d.step("Bandwidth", "memory bandwidth", q(gpu.memory_bandwidth, Unit::kBytesPerSecond), gpu.memory_bandwidth,
         Unit::kBytesPerSecond);
  double ridge = d.step("Ridge point", "peak ÷ bandwidth",
                        q(*peak, Unit::kFlopPerSecond) + " ÷ " + q(gpu.memory_bandwidth, Unit::kBytesPerSecond),
                        *peak / gpu.memory_bandwidth, Unit::kFlopPerByte);
  d.result("peak_flops", *peak, Unit::kFlopPerSecond);
  d.result("bandwidth", gpu.memory_bandwidth, Unit::kBytesPerSecond);
  d.result("ridge_flops_per_byte", ridge, Unit::kFlopPerByte);
  if (in.has("flops")) {
    double flops = in.number("flops"), bytes = in.number("bytes");
    double intensity = d.step("Intensity", "FLOP ÷ bytes", num(flops) + " ÷ " + num(bytes), flops / bytes,
                              Unit::kFlopPerByte);
    double attainable = d.step("Attainable", "min(peak, intensity × bandwidth)",
                               "min(" + q(*peak, Unit::kFlopPerSecond) + ", " + num(intensity) + " × " +
                                   q(gpu.memory_bandwidth, Unit::kBytesPerSecond) + ")",
                               std::min(*peak, intensity * gpu.memory_bandwidth), Unit::kFlopPerSecond);
    // Range of validity (issue 33): the roofline places any intensity, but traffic has a floor.
    // A dense n × n × n matrix multiply that reads A and B and writes C once moves 3n²·b bytes
    // for 2n³ FLOP, intensity 2n/(3b); the largest whose three operands fit in the chip's
    // memory M has n = sqrt(M/(3b)). A kernel claiming more reuse than that from this memory is
    // counted wrong (FLOP in the wrong unit, bytes of one tile rather than the whole kernel).
    const double b = dtype_bytes(dt);
    const double n_max = std::sqrt(gpu.memory_bytes / (3 * b));
    const double most = 2 * n_max / (3 * b);
    if (intensity > most) {
      d.assume("warning: an intensity of " + format_significant(intensity, 4) + " FLOP/B is beyond what a kernel reaches from " +
               gpu.id + "'s memory: even a matrix multiply whose three " + std::string(dtype_name(dt)) +
               " operands fill the " + q(gpu.memory_bytes, Unit::kBytes) + " (n = " + format_significant(n_max, 4) +
               ", each read once) reaches 2n ÷ 3b = " + format_significant(most, 4) +
               " FLOP/B; check the FLOP and byte counts, the operating point is outside what the roofline describes");
    }
    bool compute_bound = intensity >= ridge;
    double seconds = d.step("Time at the roof", "FLOP ÷ attainable", num(flops) + " ÷ " + q(attainable, Unit::kFlopPerSecond),
                            flops / attainable, Unit::kSeconds);
    d.result("intensity", intensity, Unit::kFlopPerByte);
    d.result("seconds", seconds, Unit::kSeconds);
    d.result("attainable_flops", attainable, Unit::kFlopPerSecond);
    d.result("compute_bound", compute_bound ? 1 : 0, Unit::kBool);
    d.set_conclusion(std::string(compute_bound ? "Compute-bound" : "Memory-bound") + ": intensity " +
                     num(std::round(intensity * 10) / 10) + " FLOP/B against a ridge of " +
                     num(std::round(ridge)) + " FLOP/B.");
  }
  return d;
}

// Parameters for 6ND: --params, or the model's active parameters (what each token touches).
Result<double> training_params(const Inputs& in, const Catalog& catalog, Derivation& d) {
  auto model = resolve_model(in, catalog, false);
  if (!model) return model.errors();
  if (*model != nullptr && in.has("params")) {
    return FieldError{"params", in.raw().at("params"), "cannot be combined with --model or --config",
                      "one of --params, --model, --config"};
  }
  if (*model != nullptr) {
    describe_model(d, **model, in.has("config") ? "config" : "model");
    ParamCount p = count_params(**model);
    if ((*model)->is_moe()) {
      d.assume("mixture of experts: 6ND uses the active parameters per token (" + q(p.active, Unit::kCount) +
               "), not the total (" + q(p.total, Unit::kCount) + ")");
    }
    return p.active;
  }
  if (!in.has("params")) return FieldError{"params", "", "is required (or --model / --config)", "a count such as 70B"};
  return in.number("params");
}

std::vector<ParamSpec> train_params() {
  return {
      count("params", Unit::kCount, "parameters (active parameters for MoE); or give --model", 1, 1e16, "", false, "70B"),
      model_param(), config_param(),
      count("tokens", Unit::kTokens, "training tokens; k = 1,000, B = 1e9, T = 1e12", 1, 1e18, "", true, "15T"),
      gpu_param(),
      count("gpus", Unit::kCount, "GPUs in the run", 1, 1e7, "", true, "16384"),
      number("mfu", Unit::kRatio, "model FLOPs utilization, as a fraction or percentage", 0, 1, "0.4"),
      number("usd-per-gpu-hour", Unit::kUsdPerHour, "price of one GPU-hour (optional)", 0, 1e4, "", false, "2.50"),
      dtype_param("dtype", "training compute dtype", "bf16"),
  };
}

Result<Derivation> train(const Inputs& in, const Catalog& catalog) {
  Derivation d("train", "Time and cost to train");
  auto params = training_params(in, catalog, d);
  if (!params) return params.errors();
  const Accelerator& gpu = *in.gpu();
  auto peak = peak_for(gpu, in.dtype("dtype"), "dtype");
  if (!peak) return peak.errors();
  describe_gpu(d, gpu);
  describe_inputs(d, in, train_params());
  const double tokens = in.number("tokens"), gpus = in.number("gpus"), mfu = in.number("mfu");
  d.assume("training FLOPs = 6 × N × D: 2 for the forward pass and 4 for the backward, per parameter and token (Kaplan et al., 2020)");
  d.assume("attention FLOPs and activation recomputation are left out of 6ND; MFU counts only the model FLOPs");
  double flops = d.step("Training FLOPs", "6 × N × D", "6 × " + num(*params) + " × " + num(tokens),
                        6 * *params * tokens, Unit::kFlop);
  double rate = d.step("Cluster rate", "gpus × peak × MFU",
                       num(gpus) + " × " + q(*peak, Unit::kFlopPerSecond) + " × " + num(mfu), gpus * *peak * mfu,
                       Unit::kFlopPerSecond);
  double seconds = d.step("Time", "FLOPs ÷ rate", num(flops) + " ÷ " + num(rate), flops / rate, Unit::kSeconds);
  double gpu_hours = d.step("GPU-hours", "gpus × time", num(gpus) + " × " + q(seconds / 3600, Unit::kHours),
                            gpus * seconds / 3600, Unit::kHours);
  d.result("train_flops", flops, Unit::kFlop);
  d.result("seconds", seconds, Unit::kSeconds);
  d.result("days", seconds / kSecondsPerDay, Unit::kDays);
  d.result("gpu_hours", gpu_hours, Unit::kHours);
  if (in.has("usd-per-gpu-hour")) {
    double price = in.number("usd-per-gpu-hour");
    double cost = d.step("Cost", "GPU-hours × price", num(std::round(gpu_hours)) + " × " + q(price, Unit::kUsdPerHour),
                         gpu_hours * price, Unit::kUsd);
    d.result("cost_usd", cost, Unit::kUsd);
  }
  return d;
}

std::vector<ParamSpec> fleet_params() {
  return {
      number("flops", Unit::kFlop, "total training FLOPs (or give --params and --tokens)", 0, 1e35, "", false, "3.8e25"),
      count("params", Unit::kCount, "parameters (active for MoE)", 1, 1e16, "", false, "405B"),
      count("tokens", Unit::kTokens, "training tokens", 1, 1e18, "", false, "15.6T"),
      number("days", Unit::kDays, "wall-clock days available", 0, 36500, "", true, "90"),
      gpu_param(),
      number("mfu", Unit::kRatio, "model FLOPs utilization", 0, 1, "0.4"),
      dtype_param("dtype", "training compute dtype", "bf16"),
  };
}

Result<Derivation> fleet(const Inputs& in, const Catalog&) {
  const Accelerator& gpu = *in.gpu();
  auto peak = peak_for(gpu, in.dtype("dtype"), "dtype");
  if (!peak) return peak.errors();
  Derivation d("fleet", "GPUs needed to train in time");
  describe_gpu(d, gpu);
  describe_inputs(d, in, fleet_params());
  double flops;
  if (in.has("flops")) {
    if (in.has("params") || in.has("tokens")) {
      return FieldError{"flops", in.raw().at("flops"), "cannot be combined with --params/--tokens",
                        "either --flops or both --params and --tokens"};
    }
    flops = in.number("flops");
  } else if (in.has("params") && in.has("tokens")) {
    d.assume("training FLOPs = 6 × N × D");
    flops = d.step("Training FLOPs", "6 × N × D", "6 × " + num(in.number("params")) + " × " + num(in.number("tokens")),
                   6 * in.number("params") * in.number("tokens"), Unit::kFlop);
  } else {
    return FieldError{in.has("params") ? "tokens" : "params", "", "is required",
                      "either --flops or both --params and --tokens"};
  }
  const double days = in.number("days"), mfu = in.number("mfu");
  d.assume("the run goes at the stated MFU for every one of the days: no restarts, no failures");
  double per_gpu = d.step("FLOPs per GPU", "peak × MFU × days × 86,400 s",
                          q(*peak, Unit::kFlopPerSecond) + " × " + num(mfu) + " × " + num(days) + " × 86,400",
                          *peak * mfu * days * kSecondsPerDay, Unit::kFlop);
  double gpus = d.step("GPUs", "ceil(FLOPs ÷ FLOPs per GPU)", "ceil(" + num(flops) + " ÷ " + num(per_gpu) + ")",
                       std::ceil(flops / per_gpu), Unit::kCount);
  double pow2 = std::pow(2.0, std::ceil(std::log2(std::max(1.0, gpus))));
  d.step("Rounded to a power of two", "2^ceil(log2 GPUs)", "2^" + num(std::log2(pow2)), pow2, Unit::kCount);
  d.result("gpus", gpus, Unit::kCount);
  d.result("gpus_power_of_two", pow2, Unit::kCount);
  return d;
}

std::vector<ParamSpec> mfu_params() {
  return {
      count("params", Unit::kCount, "parameters (active for MoE)", 1, 1e16, "", true, "405B"),
      count("tokens", Unit::kTokens, "tokens processed", 1, 1e18, "", true, "15.6T"),
      gpu_param(),
      count("gpus", Unit::kCount, "GPUs (with --seconds)", 1, 1e7, "", false, "16384"),
      number("seconds", Unit::kSeconds, "wall-clock time (with --gpus); accepts s, min, h, d", 0, 1e12, "", false, "54d"),
      number("gpu-hours", Unit::kHours, "GPU-hours consumed (instead of --gpus and --seconds)", 0, 1e13, "", false, "3.8e7"),
      dtype_param("dtype", "compute dtype the MFU is measured against", "bf16"),
  };
}

Result<Derivation> mfu(const Inputs& in, const Catalog&) {
  const Accelerator& gpu = *in.gpu();
  auto peak = peak_for(gpu, in.dtype("dtype"), "dtype");
  if (!peak) return peak.errors();
  Derivation d("mfu", "Model FLOPs utilization of a run");
  describe_gpu(d, gpu);
  describe_inputs(d, in, mfu_params());
  double gpu_seconds;
  if (in.has("gpu-hours")) {
    if (in.has("gpus") || in.has("seconds")) {
      return FieldError{"gpu-hours", in.raw().at("gpu-hours"), "cannot be combined with --gpus/--seconds",
                        "either --gpu-hours or both --gpus and --seconds"};
    }
    gpu_seconds = in.number("gpu-hours") * 3600;
  } else if (in.has("gpus") && in.has("seconds")) {
    gpu_seconds = in.number("gpus") * in.number("seconds");
  } else {
    return FieldError{in.has("gpus") ? "seconds" : "gpus", "", "is required",
                      "either --gpu-hours or both --gpus and --seconds"};
  }
  const double params = in.number("params"), tokens = in.number("tokens");
  d.assume("model FLOPs = 6 × N × D; recomputation does not count toward MFU");
  double flops = d.step("Model FLOPs", "6 × N × D", "6 × " + num(params) + " × " + num(tokens),
                        6 * params * tokens, Unit::kFlop);
  double achieved = d.step("Achieved per GPU", "FLOPs ÷ GPU-seconds", num(flops) + " ÷ " + num(gpu_seconds),
                           flops / gpu_seconds, Unit::kFlopPerSecond);
  double ratio = d.step("MFU", "achieved ÷ peak", q(achieved, Unit::kFlopPerSecond) + " ÷ " + q(*peak, Unit::kFlopPerSecond),
                        achieved / *peak, Unit::kRatio);
  // Range of validity (issue 33): MFU is a share of the chip's peak, so no run reaches 100%;
  // a figure above it is a wrong input (a peak in another dtype, a token count with padding,
  // GPU time that leaves out GPUs), stated as a warning, not a result to quote.
  if (ratio > 1) {
    d.assume("warning: the MFU is " + format_significant(ratio * 100, 4) + "% of the " + std::string(dtype_name(in.dtype("dtype"))) +
             " peak; no run exceeds its chip's peak, so an input is wrong (the peak's dtype, the token count or the "
             "GPU time) and the figure is not a utilization");
    d.set_conclusion("MFU above 100% means the inputs are wrong: check the peak's dtype and the token count.");
  }
  d.result("achieved_flops_per_gpu", achieved, Unit::kFlopPerSecond);
  d.result("mfu", ratio, Unit::kRatio);
  return d;
}

std::vector<ParamSpec> prefill_params() {
  return {
      model_param(), config_param(), gpu_param(),
      count("gpus", Unit::kCount, "GPUs sharing the prefill (tensor parallel)", 1, 4096, "1"),
      count("prompt", Unit::kTokens, "prompt tokens; k = 1,000, Ki = 1,024", 1, 1e8, "", true, "8192"),
      number("efficiency", Unit::kRatio, "fraction of peak the prefill kernels reach", 0, 1, "0.5"),
      dtype_param("dtype", "compute dtype", "bf16"),
  };
}

Result<Derivation> prefill(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const Accelerator& gpu = *in.gpu();
  auto peak = peak_for(gpu, in.dtype("dtype"), "dtype");
  if (!peak) return peak.errors();
  Derivation d("prefill", "Prefill time for one prompt");
  describe_model(d, m, in.has("config") ? "config" : "model");
  describe_gpu(d, gpu);
  describe_inputs(d, in, prefill_params());
  const double gpus = in.number("gpus"), prompt = in.number("prompt"), eff = in.number("efficiency");
  ParamCount p = count_params(m);
  d.assume("prefill is compute-bound: 2 FLOP per active parameter per token, plus causal attention");
  d.assume("communication between the GPUs is hidden or ignored");
  double linear = d.step("Matmul FLOPs", "2 × active params × prompt", "2 × " + num(p.active) + " × " + num(prompt),
                         2 * p.active * prompt, Unit::kFlop);
  // QK^T and AV: 2 FLOP per multiply-add over the causal pairs of each layer (prompt² / 2 for
  // full attention, fewer under a window, a chunk or a sparse top-k; a fixed state update for
  // linear and SSM layers): model.h attention_flops_per_sequence.
  double attn;
  if (m.is_hybrid() || m.has_state() || m.has_sliding_window() || m.runs.size() > 2 ||
      std::any_of(m.runs.begin(), m.runs.end(), [](const LayerRun& r) {
        return r.mixers.size() != 1 || r.mixers[0].bound != CacheBound::kFull || r.mixers[0].sparse_topk > 0;
      })) {
    for (const auto& line : describe_runs(m, 2)) d.assume(line);
    attn = d.step("Attention FLOPs", "Σ over layers: 2 × heads × (qk_dim + v_dim) × causal pairs within each layer's bound",
                  "prompt " + num(prompt), attention_flops_per_sequence(m, prompt), Unit::kFlop);
  } else {
    const Mixer& x = m.runs.front().mixers.front();
    double qk_dim = static_cast<double>(x.qk_dim), v_dim = static_cast<double>(x.v_dim);
    attn = d.step("Attention FLOPs", "layers × heads × prompt² × (qk_dim + v_dim)  (causal half of 2 × 2)",
                  num(m.layers) + " × " + num(m.heads) + " × " + num(prompt) + "² × (" + num(qk_dim) + " + " + num(v_dim) + ")",
                  attention_flops_per_sequence(m, prompt), Unit::kFlop);
  }
  double flops = d.step("Prefill FLOPs", "matmul + attention", num(linear) + " + " + num(attn), linear + attn, Unit::kFlop);
  double seconds = d.step("Time", "FLOPs ÷ (gpus × peak × efficiency)",
                          num(flops) + " ÷ (" + num(gpus) + " × " + q(*peak, Unit::kFlopPerSecond) + " × " + num(eff) + ")",
                          flops / (gpus * *peak * eff), Unit::kSeconds);
  // Range of validity (issue 33): "compute-bound" holds while the prompt is long enough that the
  // matmuls take longer than one read of the weights (2 FLOP per parameter per token against
  // b bytes per parameter: a prompt past about peak × efficiency × b ÷ (2 × bandwidth) tokens).
  // A shorter prompt is bound by the weight read, and the time above is too low.
  const double weight_read = p.total * dtype_bytes(in.dtype("dtype")) / gpus / gpu.memory_bandwidth;
  if (weight_read > seconds) {
    d.assume("warning: reading the weights once (" + q(p.total * dtype_bytes(in.dtype("dtype")) / gpus, Unit::kBytes) +
             " per GPU in " + std::string(dtype_name(in.dtype("dtype"))) + " at " + q(gpu.memory_bandwidth, Unit::kBytesPerSecond) +
             ") takes " + q(weight_read, Unit::kSeconds) + ", longer than the compute: a prompt this short is memory-bound, "
             "outside the compute-bound formula, and the prefill takes at least the weight read");
  }
  d.result("prefill_flops", flops, Unit::kFlop);
  d.result("tokens_per_second", prompt / seconds, Unit::kTokensPerSecond);
  d.result("seconds", seconds, Unit::kSeconds);
  return d;
}

std::vector<ParamSpec> chip_params() { return {gpu_param()}; }

// The catalog entry as results, so answers can reference a chip's figures instead of
// quoting them: {{h100.memory_bytes:GB}}.
Result<Derivation> chip(const Inputs& in, const Catalog&) {
  const Accelerator& gpu = *in.gpu();
  Derivation d("chip", gpu.name);
  describe_gpu(d, gpu);
  d.assume("vendor figures, dense peaks (no sparsity); source: " + gpu.source + (gpu.source_url.empty() ? "" : " " + gpu.source_url) +
           ", as of " + gpu.as_of);
  if (!gpu.notes.empty()) d.assume(gpu.notes);
  d.step("Memory", "as the vendor states it", q(gpu.memory_bytes, Unit::kBytes), gpu.memory_bytes, Unit::kBytes);
  d.step("Memory bandwidth", "as the vendor states it", q(gpu.memory_bandwidth, Unit::kBytesPerSecond), gpu.memory_bandwidth,
         Unit::kBytesPerSecond);
  d.result("memory_bytes", gpu.memory_bytes, Unit::kBytes);
  d.result("memory_bandwidth", gpu.memory_bandwidth, Unit::kBytesPerSecond);
  for (Dtype dt : kAllDtypes) {
    if (!gpu.supports(dt)) continue;
    std::string key = "peak_" + std::string(dtype_name(dt)) + "_flops";
    d.step("Dense " + std::string(dtype_name(dt)), "vendor peak", q(gpu.peak(dt), Unit::kFlopPerSecond), gpu.peak(dt),
           Unit::kFlopPerSecond);
    d.result(key, gpu.peak(dt), Unit::kFlopPerSecond);
  }
  double ridge = d.step("Ridge point (bf16)", "bf16 peak ÷ bandwidth",
                        q(gpu.peak(Dtype::kBf16), Unit::kFlopPerSecond) + " ÷ " + q(gpu.memory_bandwidth, Unit::kBytesPerSecond),
                        gpu.peak(Dtype::kBf16) / gpu.memory_bandwidth, Unit::kFlopPerByte);
  d.result("ridge_bf16_flops_per_byte", ridge, Unit::kFlopPerByte);
  if (gpu.scale_up_bandwidth > 0) d.result("scale_up_bandwidth", gpu.scale_up_bandwidth, Unit::kBytesPerSecond);
  if (gpu.power_watts > 0) d.result("power_watts", gpu.power_watts, Unit::kWatts);
  // The links by name (issue 32, one network): answers pass these to transfer and expr
  // blocks instead of typing a link rate. Scale-up per direction is half the vendor's
  // bidirectional aggregate (hardware.toml's convention for NVIDIA and AMD).
  if (gpu.scale_up_bandwidth > 0) {
    d.result("scale_up_per_direction",
             d.step("Scale-up per direction", "bidirectional ÷ 2", q(gpu.scale_up_bandwidth, Unit::kBytesPerSecond) + " ÷ 2",
                    gpu.scale_up_bandwidth / 2, Unit::kBytesPerSecond),
             Unit::kBytesPerSecond);
  }
  if (gpu.host_link_bandwidth > 0) d.result("host_link_per_direction", gpu.host_link_bandwidth, Unit::kBytesPerSecond);
  if (gpu.has_system() && gpu.system.nic_bandwidth > 0) {
    const SystemSpec& s = gpu.system;
    d.assume("scale-out: " + s.name + ", " + num(s.nics) + " NICs at " + q(s.nic_bandwidth, Unit::kBytesPerSecond) +
             " each, one direction");
    d.result("nic_bandwidth", s.nic_bandwidth, Unit::kBytesPerSecond);
    d.result("node_nic_bandwidth",
             d.step("Node's NICs together", "NICs × rate", num(s.nics) + " × " + q(s.nic_bandwidth, Unit::kBytesPerSecond),
                    s.nics * s.nic_bandwidth, Unit::kBytesPerSecond),
             Unit::kBytesPerSecond);
    d.result("scale_out_per_gpu", s.scale_out_bandwidth(), Unit::kBytesPerSecond);
    d.result("scale_up_domain", s.scale_up_domain, Unit::kCount);
  }
  return d;
}

}  // namespace

void register_compute_calculators(Registry& r) {
  std::vector<std::string> chip_keys = {"memory_bytes", "memory_bandwidth", "ridge_bf16_flops_per_byte",
                                        "scale_up_bandwidth", "power_watts", "scale_up_per_direction", "nic_bandwidth",
                                        "node_nic_bandwidth", "scale_out_per_gpu", "scale_up_domain",
                                        "host_link_per_direction"};
  for (Dtype dt : kAllDtypes) chip_keys.push_back("peak_" + std::string(dtype_name(dt)) + "_flops");
  r.add({"chip", "A chip's catalog figures (memory, bandwidth, dense peaks, scale-up, power) with source and date",
         chip_params(), chip_keys, "--gpu h100-sxm", chip});
  r.add({"roofline", "Peak, bandwidth and ridge point of a chip; where a kernel lands", roofline_params(),
         {"peak_flops", "bandwidth", "ridge_flops_per_byte", "intensity", "attainable_flops", "compute_bound", "seconds"},
         "--gpu h100-sxm --dtype bf16 --flops 2e12 --bytes 4e9", roofline});
  r.add({"train", "Training time, GPU-hours and cost from 6ND", train_params(),
         {"train_flops", "seconds", "days", "gpu_hours", "cost_usd"},
         "--params 405B --tokens 15.6T --gpu h100-sxm --gpus 16384 --mfu 0.4", train});
  r.add({"fleet", "GPUs needed to finish a training run in a number of days", fleet_params(),
         {"gpus", "gpus_power_of_two"}, "--params 70B --tokens 15T --days 30 --gpu h100-sxm --mfu 0.4", fleet});
  r.add({"mfu", "Model FLOPs utilization from parameters, tokens and GPU time", mfu_params(),
         {"achieved_flops_per_gpu", "mfu"}, "--params 405B --tokens 15.6T --gpu h100-sxm --gpu-hours 30.84e6", mfu});
  r.add({"prefill", "Compute-bound time to process a prompt", prefill_params(), {"prefill_flops", "seconds", "tokens_per_second"},
         "--model llama-3.1-70b --gpu h100-sxm --gpus 8 --prompt 8192", prefill});
}

}  // namespace ridge::calc
