// Performance model: one training iteration from a parallel layout (`step`) and the latency
// and throughput of a serving deployment (`serve`). Both are validated against published runs
// by `ridge validate` (data/published-runs.toml); the fitted constants below are the only
// numbers chosen to match measurements, and each says which runs it was fitted on.
#include <algorithm>
#include <cmath>

#include "calc/common.h"

namespace ridge::calc {
namespace {

using namespace detail;

// ---- fitted constants (`ridge validate --fit --set kv-group-reuse=0` reproduces them) ----
// GEMM efficiency = e_max · I / (I + I_half), where I = 1 / (1/M + 1/K + 1/N) is the per-GPU
// MLP-up GEMM's intensity in FLOP per element moved (M = tokens of a micro-batch on the GPU,
// K = hidden size, N = MLP width / tp). Fitted on the 11 "fit" training runs in
// data/published-runs.toml by grid search (e_max in steps of 0.005, I_half over 0-500): the
// lowest mean absolute error among the constants whose worst error on the fit half is within
// the 20%. Result: 0.62 and 25 (mean 6.9%, worst 19.9% on the fit half).
constexpr const char* kGemmEfficiencyMax = "0.62";
constexpr const char* kGemmHalfIntensity = "25";
// Serving, fitted together on the 6 "fit" serving runs (grid: bandwidth 0.50-0.90 by 0.025,
// matmul 0.30-0.85 by 0.025, per-layer cost 0-300 us by 10 us; mean 8.9% on the fit half):
// the share of HBM bandwidth the decode kernels reach (0.90 is the grid's ceiling, set where
// a streaming kernel on H100 tops out; the fit sits on it), the share of the dense peak the
// GEMMs and attention reach, and a fixed cost per layer per forward pass (the launches and
// the small kernels between the GEMMs: norms, RoPE, the KV write, quantisation).
constexpr const char* kServeBandwidthEfficiency = "0.90";
constexpr const char* kServePrefillEfficiency = "0.525";
constexpr const char* kServeLayerOverhead = "150us";
// Not fitted: the share of a grouped-query KV head's reads that its query heads share. The
// published TensorRT-LLM runs (v0.5-v0.6.1, 2023) decode with the masked multi-head attention
// kernel, one thread block per query head, so each KV head is read once per query head: 0.
// The XQA kernels that read it once per group came for Llama 2 70B on Hopper in v0.10.0 (its
// release notes); pass 1 for an engine that has them.
constexpr const char* kServeKvGroupReuse = "0";

// ---- fixed assumptions, not fitted ----
// Collective bus bandwidth as a share of the link's one-direction rate: NCCL ring collectives
// on NVLink and InfiniBand reach roughly this much in nccl-tests (assumption, stated).
constexpr const char* kLinkEfficiency = "0.7";
// Bytes the optimizer step reads and writes per parameter on its GPU: mixed-precision Adam
// touches the fp32 master weight, two fp32 moments and the fp32 gradient, reading and writing
// most of them, plus the 16-bit weight copy (about 32 B).
constexpr double kOptimizerBytesPerParam = 32;
// One small all-reduce on NVLink costs about this much before its bytes (launch, the
// synchronisation between the ranks); an assumption of the order nccl-tests and TensorRT-LLM's
// custom all-reduce show for messages of a few kilobytes, not fitted.
constexpr const char* kAllReduceLatency = "10us";
constexpr double kActivationBytes = 2;  // 16-bit activations between ranks

// A non-negative parameter (zero allowed) with a non-zero default.
ParamSpec zero_or_more(std::string name, Unit unit, std::string help, double max, const char* default_value) {
  ParamSpec spec = optional_zero(std::move(name), unit, std::move(help), max);
  spec.default_value = default_value;
  return spec;
}

double default_scale_out(const Accelerator& gpu) {
  // One InfiniBand HCA per GPU: 200 Gb/s HDR in DGX A100 (Selene, as Narayanan et al. 2021 §5
  // describe it), 400 Gb/s NDR in DGX H100 and later.
  return gpu.generation == "Ampere" ? 25e9 : 50e9;
}

std::vector<ParamSpec> step_params() {
  return {
      model_param(), config_param(), gpu_param(),
      count("gpus", Unit::kCount, "GPUs in the run", 1, 1e7, "", true, "3072"),
      count("tp", Unit::kCount, "tensor-parallel size", 1, 1024, "1"),
      count("pp", Unit::kCount, "pipeline-parallel stages", 1, 1024, "1"),
      count("cp", Unit::kCount, "context-parallel size", 1, 1024, "1"),
      count("ep", Unit::kCount, "expert-parallel size (MoE)", 1, 4096, "1"),
      count("vp", Unit::kCount, "virtual stages per GPU (interleaved 1F1B)", 1, 256, "1"),
      count("seq", Unit::kTokens, "sequence length", 1, 1e8, "", true, "2048"),
      count("micro-batch", Unit::kCount, "sequences per micro-batch", 1, 1e6, "1"),
      count("global-batch", Unit::kCount, "sequences per iteration", 1, 1e9, "", true, "1536"),
      choice("recompute", {"none", "selective", "full"}, "selective",
             "activation recomputation: none, selective (attention core, Korthikanti et al. 2022) or full"),
      choice("sequence-parallel", {"on", "off"}, "on", "sequence parallelism with TP (Korthikanti et al. 2022)"),
      dtype_param("dtype", "GEMM dtype (bf16 or fp8)", "bf16"),
      number("scale-out-bandwidth", Unit::kBytesPerSecond,
             "per-GPU network bandwidth, one direction (default 25 GB/s on Ampere: one 200 Gb/s HDR HCA per GPU as "
             "in DGX A100; 50 GB/s otherwise: 400 Gb/s NDR)",
             0, 1e15, "", false, "25GB/s"),
      count("gpus-per-node", Unit::kCount, "GPUs sharing the scale-up (NVLink) domain", 1, 1e5, "8"),
      number("gemm-efficiency-max", Unit::kRatio, "e_max of the GEMM efficiency law (fitted, see ridge validate)", 0, 1,
             kGemmEfficiencyMax),
      zero_or_more("gemm-half-intensity", Unit::kNone, "I_half of the GEMM efficiency law, FLOP per element (fitted)",
                   1e9, kGemmHalfIntensity),
      number("link-efficiency", Unit::kRatio, "collective bus bandwidth as a share of the link (assumed 0.7, nccl-tests)",
             0, 1, kLinkEfficiency),
      optional_zero("dp-overlap", Unit::kRatio,
                    "share of the DP gradient collectives hidden behind backward (default 0: Megatron-LM's "
                    "--overlap-grad-reduce is off by default, and the published runs of 2021-22 did not overlap, "
                    "Korthikanti et al. 2022 §6.3)",
                    1),
      choice("grad-reduce-dtype", {"auto", "fp32", "bf16", "fp16"}, "auto",
             "dtype of the DP gradient reduction (auto: Megatron-LM's default, fp32 main grads for bf16 and fp8 "
             "training unless --grad-reduce-in-bf16, the parameter dtype for fp16)"),
  };
}

FieldError layout_error(const std::string& field, double value, const std::string& why, const std::string& accepted) {
  return FieldError{field, num(value), why, accepted};
}

Result<Derivation> step(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const Accelerator& gpu = *in.gpu();
  Dtype dt = in.dtype("dtype");
  if (dt != Dtype::kBf16 && dt != Dtype::kFp16 && dt != Dtype::kFp8) {
    return FieldError{"dtype", std::string(dtype_name(dt)), "is not a training GEMM dtype", "bf16, fp16, fp8"};
  }
  auto peak = peak_for(gpu, dt, "dtype");
  if (!peak) return peak.errors();

  const double gpus = in.number("gpus"), tp = in.number("tp"), pp = in.number("pp"), cp = in.number("cp");
  const double ep = in.number("ep"), vp = in.number("vp"), s = in.number("seq"), b = in.number("micro-batch");
  const double gb = in.number("global-batch");
  const std::string recompute = in.text("recompute");
  const bool sp = in.text("sequence-parallel") == "on";
  const double node = in.number("gpus-per-node"), link_eff = in.number("link-efficiency");

  // Layout checks, each failure named.
  Errors errors;
  const double model_parallel = tp * pp * cp;
  if (std::fmod(gpus, model_parallel) != 0) {
    errors.push_back(layout_error("gpus", gpus, "is not a multiple of tp × pp × cp = " + num(model_parallel),
                                  "a multiple of tp × pp × cp"));
  }
  const double dp = std::floor(gpus / model_parallel);
  if (dp >= 1 && std::fmod(gb, b * dp) != 0) {
    errors.push_back(layout_error("global-batch", gb,
                                  "does not split into whole micro-batches per replica (micro-batch " + num(b) +
                                      " × DP " + num(dp) + " = " + num(b * dp) + ")",
                                  "a multiple of micro-batch × DP"));
  }
  if (m.heads % static_cast<int64_t>(tp) != 0) {
    errors.push_back(layout_error("tp", tp, "does not divide the attention heads (" + num(m.heads) + ")",
                                  "a divisor of the head count"));
  }
  if (m.layers % static_cast<int64_t>(pp * vp) != 0) {
    errors.push_back(layout_error("pp", pp, "× vp (" + num(vp) + ") does not divide the layers (" + num(m.layers) + ")",
                                  "pp × vp dividing the layer count"));
  }
  if (std::fmod(s, cp) != 0) {
    errors.push_back(layout_error("cp", cp, "does not divide the sequence (" + num(s) + ")", "a divisor of --seq"));
  }
  if (ep > 1 && !m.is_moe()) {
    errors.push_back(layout_error("ep", ep, "needs a mixture-of-experts model", "1 for a dense model"));
  } else if (ep > 1 && (m.routed_experts % static_cast<int64_t>(ep) != 0 || std::fmod(dp * cp, ep) != 0)) {
    errors.push_back(layout_error("ep", ep, "must divide the routed experts (" + num(m.routed_experts) +
                                                ") and DP × CP (" + num(dp * cp) + ")",
                                  "a common divisor of the experts and DP × CP"));
  }
  if (pp == 1 && vp > 1) errors.push_back(layout_error("vp", vp, "needs pipeline parallelism", "1 when --pp is 1"));
  if (!errors.empty()) return errors;

  Derivation d("step", "Training step time of " + m.id);
  describe_model(d, m, in.has("config") ? "config" : "model");
  describe_gpu(d, gpu);
  describe_inputs(d, in, step_params());
  const double scale_up = gpu.scale_up_bandwidth / 2;  // catalog states bidirectional
  const double scale_out = in.has("scale-out-bandwidth") ? in.number("scale-out-bandwidth") : default_scale_out(gpu);
  d.assume("scale-up link: half the catalog's bidirectional " + q(gpu.scale_up_bandwidth, Unit::kBytesPerSecond) +
           " per direction; scale-out " + q(scale_out, Unit::kBytesPerSecond) + " per GPU per direction" +
           (in.has("scale-out-bandwidth") ? " (given)" : " (default: one InfiniBand HCA per GPU)"));
  d.assume("collectives run at " + num(link_eff) + " of the link (ring algorithm, bus bandwidth as nccl-tests define it)");
  d.assume("FLOPs from Narayanan et al. (2021) eq. 3: 6·N·tokens for the matmuls plus 12·L·s²·h for attention "
           "(no causal saving); the logit layer is not recomputed");
  d.assume("TP, EP and PP communication is exposed (not overlapped with compute); CP's ring hides behind attention");
  d.assume("sequence parallelism changes memory, not time, here: its reduce-scatter + all-gather move the bytes of one "
           "all-reduce (Korthikanti et al. 2022 §4.2.2)");

  const ParamCount pc = count_params(m);
  const double h = static_cast<double>(m.hidden), layers = static_cast<double>(m.layers);
  const double logit_params = static_cast<double>(m.vocab) * h;
  // Matmul parameters per token: the active ones, less an untied input embedding (a lookup).
  const double matmul_params = pc.active - (m.tied_embeddings ? 0 : pc.embedding);
  const double micro_batches = gb / (b * dp);
  const double tokens_mb = b * s;

  d.step("Data parallel", "gpus ÷ (tp × pp × cp)", num(gpus) + " ÷ (" + num(tp) + " × " + num(pp) + " × " + num(cp) + ")",
         dp, Unit::kCount);
  d.step("Micro-batches per replica", "global batch ÷ (micro-batch × DP)",
         num(gb) + " ÷ (" + num(b) + " × " + num(dp) + ")", micro_batches, Unit::kCount);
  double dense_flops = d.step("Matmul FLOPs per micro-batch", "6 × N × tokens",
                              "6 × " + num(matmul_params) + " × " + num(tokens_mb), 6 * matmul_params * tokens_mb,
                              Unit::kFlop);
  // Forward attention core of one sequence, summed over the layers with each one's bound
  // (model.h); for uniform full attention 2 × L × s² × heads·d, so 3 passes × 2 (Megatron counts
  // the full square) give the 12 × L × s² × h × b of Narayanan et al. 2021.
  const double attn_forward = attention_flops_per_sequence(m, s);
  double attn_flops = d.step("Attention FLOPs per micro-batch", "6 × attention forward per sequence × b  (= 12 × L × s² × h × b for full attention)",
                             "6 × " + num(attn_forward) + " × " + num(b),
                             6 * attn_forward * b, Unit::kFlop);
  const double model_flops_mb = dense_flops + attn_flops;
  double extra = 0;
  std::string extra_formula = "0 (no recomputation)", extra_subst = "0";
  if (recompute == "full") {
    extra = (6 * (matmul_params - logit_params) * tokens_mb + attn_flops) / 3;
    extra_formula = "one more forward of every layer: (6 × (N − V·h) × tokens + attention) ÷ 3";
    extra_subst = "(6 × " + num(matmul_params - logit_params) + " × " + num(tokens_mb) + " + " + num(attn_flops) + ") ÷ 3";
  } else if (recompute == "selective") {
    extra = 2 * attn_forward * b;
    extra_formula = "one more forward of the attention core: 2 × attention forward × b  (4 × L × s² × h × b for full attention)";
    extra_subst = "2 × " + num(attn_forward) + " × " + num(b);
  }
  extra = d.step("Recomputation FLOPs", extra_formula, extra_subst, extra, Unit::kFlop);
  const double hw_flops_mb = model_flops_mb + extra;
  double flops_gpu = d.step("FLOPs per GPU per micro-batch", "(model + recompute) ÷ (tp × pp × cp)",
                            num(hw_flops_mb) + " ÷ " + num(model_parallel), hw_flops_mb / model_parallel, Unit::kFlop);

  // GEMM efficiency from the per-GPU shape of the MLP's up projection.
  const double width = m.is_moe() && m.expert_intermediate > 0 ? static_cast<double>(m.expert_intermediate)
                                                                : static_cast<double>(m.intermediate);
  const double gm = tokens_mb / cp, gk = h, gn = width / tp;
  double intensity = d.step("GEMM intensity", "1 ÷ (1/M + 1/K + 1/N), M = b·s/cp, K = h, N = ffn/tp",
                            "1 ÷ (1/" + num(gm) + " + 1/" + num(gk) + " + 1/" + num(gn) + ")",
                            1 / (1 / gm + 1 / gk + 1 / gn), Unit::kNone);
  const double emax = in.number("gemm-efficiency-max"), ihalf = in.number("gemm-half-intensity");
  double eff = d.step("GEMM efficiency", "e_max × I ÷ (I + I_half)  (fitted, see ridge validate)",
                      num(emax) + " × " + num(intensity) + " ÷ (" + num(intensity) + " + " + num(ihalf) + ")",
                      emax * intensity / (intensity + ihalf), Unit::kRatio);
  double t_compute = d.step("Compute per micro-batch per stage", "FLOPs per GPU ÷ (peak × efficiency)",
                            num(flops_gpu) + " ÷ (" + q(*peak, Unit::kFlopPerSecond) + " × " + num(eff) + ")",
                            flops_gpu / (*peak * eff), Unit::kSeconds);

  const double layers_stage = layers / pp;
  const double act_mb = tokens_mb / cp * h * kActivationBytes;  // one micro-batch's hidden states on a CP rank
  double t_tp = 0;
  if (tp > 1) {
    const double bw = (tp <= node ? scale_up : scale_out) * link_eff;
    const double per_layer = recompute == "full" ? 6 : 4;
    t_tp = d.step(sp ? "TP reduce-scatter + all-gather" : "TP all-reduces",
                  num(per_layer) + " per layer × layers per stage × 2(t−1)/t × b·s·h·2 B ÷ bus bandwidth",
                  num(per_layer) + " × " + num(layers_stage) + " × " + num(2 * (tp - 1) / tp) + " × " + num(act_mb) +
                      " ÷ " + q(bw, Unit::kBytesPerSecond),
                  per_layer * layers_stage * 2 * (tp - 1) / tp * act_mb / bw, Unit::kSeconds);
  }
  double t_cp = 0;
  if (cp > 1) {
    const double bw = (tp * cp <= node ? scale_up : scale_out) * link_eff;
    const double kv_bytes = 2 * tokens_mb / cp * static_cast<double>(m.kv_heads * m.head_dim) / tp * kActivationBytes;
    const double ring = 3 * layers_stage * (cp - 1) * kv_bytes / bw;  // K,V forward; dK,dV backward (2×)
    const double attn_time = (attn_flops + (recompute == "none" ? 0 : extra)) / model_parallel / (*peak * eff);
    t_cp = d.step("CP ring exchange (exposed)", "max(0, 3 × layers × (cp−1) × K,V block ÷ bw − attention time)",
                  "max(0, " + q(ring, Unit::kSeconds) + " − " + q(attn_time, Unit::kSeconds) + ")",
                  std::max(0.0, ring - attn_time), Unit::kSeconds);
  }
  double t_ep = 0;
  if (ep > 1) {
    const double bw = (tp * ep <= node ? scale_up : scale_out) * link_eff;
    const double moe_layers_stage = static_cast<double>(m.moe_layers) / pp;
    const double bytes = act_mb / (sp ? tp : 1) * static_cast<double>(m.experts_per_token) * (ep - 1) / ep;
    t_ep = d.step("EP all-to-all", "4 per MoE layer × top-k × tokens·h·2 B × (ep−1)/ep ÷ bw",
                  "4 × " + num(moe_layers_stage) + " × " + num(bytes) + " ÷ " + q(bw, Unit::kBytesPerSecond),
                  4 * moe_layers_stage * bytes / bw, Unit::kSeconds);
  }
  double t_pp = 0;
  if (pp > 1) {
    const double bytes = act_mb / tp;  // scatter/gather (or SP) sends 1/t of the boundary per rank
    t_pp = d.step("PP point-to-point", "2 (activation, gradient) × vp × b·s·h·2 B ÷ tp ÷ scale-out",
                  "2 × " + num(vp) + " × " + num(bytes) + " ÷ " + q(scale_out * link_eff, Unit::kBytesPerSecond),
                  2 * vp * bytes / (scale_out * link_eff), Unit::kSeconds);
  }
  const double t_mb = d.step("Per micro-batch per stage", "compute + TP + CP + EP + PP",
                             q(t_compute, Unit::kSeconds) + " + " + q(t_tp, Unit::kSeconds) + " + " +
                                 q(t_cp, Unit::kSeconds) + " + " + q(t_ep, Unit::kSeconds) + " + " + q(t_pp, Unit::kSeconds),
                             t_compute + t_tp + t_cp + t_ep + t_pp, Unit::kSeconds);
  double t_bubble = d.step("Pipeline bubble time", "(pp − 1) ÷ vp × per-micro-batch time  (1F1B; Narayanan et al. 2021 §2.2)",
                           "(" + num(pp) + " − 1) ÷ " + num(vp) + " × " + q(t_mb, Unit::kSeconds),
                           (pp - 1) / vp * t_mb, Unit::kSeconds);
  double t_pipe = d.step("Pipeline time", "m × per-micro-batch time + bubble",
                         num(micro_batches) + " × " + q(t_mb, Unit::kSeconds) + " + " + q(t_bubble, Unit::kSeconds),
                         micro_batches * t_mb + t_bubble, Unit::kSeconds);
  const double params_gpu = (pc.total - (m.is_moe() ? pc.expert * m.routed_experts * m.moe_layers * (1 - 1 / ep) : 0)) /
                            (tp * pp);
  double t_dp = 0;
  if (dp * cp > 1) {
    const double ranks = dp * cp;
    std::string gdt = in.text("grad-reduce-dtype");
    if (gdt == "auto") gdt = dt == Dtype::kFp16 ? "fp16" : "fp32";
    const double grad_bytes = gdt == "fp32" ? 4 : 2;
    d.assume("DP gradients reduced in " + gdt +
             (in.text("grad-reduce-dtype") == "auto" ? " (Megatron-LM's default for " + std::string(dtype_name(dt)) +
                                                          " training: bf16 accumulates and all-reduces in fp32)"
                                                    : " (given)") +
             "; an all-reduce (reduce-scatter + all-gather of the same bytes); " +
             (in.number("dp-overlap") > 0 ? num(in.number("dp-overlap")) + " of it hidden behind backward (given)"
                                          : "none of it overlapped (Megatron-LM's --overlap-grad-reduce is off by default)"));
    const double bytes = params_gpu * grad_bytes;
    const double raw = 2 * (ranks - 1) / ranks * bytes / (scale_out * link_eff);
    t_dp = d.step("DP gradient all-reduce (exposed)",
                  "2(d−1)/d × params per GPU × " + num(grad_bytes) + " B ÷ scale-out × (1 − overlap)",
                  num(2 * (ranks - 1) / ranks) + " × " + num(bytes) + " ÷ " +
                      q(scale_out * link_eff, Unit::kBytesPerSecond) + " × (1 − " + num(in.number("dp-overlap")) + ")",
                  raw * (1 - in.number("dp-overlap")), Unit::kSeconds);
  }
  double t_opt = d.step("Optimizer step", "params per GPU × 32 B ÷ HBM bandwidth  (Adam, fp32 master and moments)",
                        num(params_gpu) + " × 32 ÷ " + q(gpu.memory_bandwidth, Unit::kBytesPerSecond),
                        params_gpu * kOptimizerBytesPerParam / gpu.memory_bandwidth, Unit::kSeconds);
  double step_s = d.step("Step time", "pipeline + DP exposed + optimizer",
                         q(t_pipe, Unit::kSeconds) + " + " + q(t_dp, Unit::kSeconds) + " + " + q(t_opt, Unit::kSeconds),
                         t_pipe + t_dp + t_opt, Unit::kSeconds);

  const double batches = gb / b;  // micro-batches in the whole iteration
  const double model_flops_s = model_flops_mb * batches / step_s / gpus;
  const double hw_flops_s = hw_flops_mb * batches / step_s / gpus;
  d.result("step_seconds", step_s, Unit::kSeconds);
  d.result("compute_seconds", micro_batches * t_compute, Unit::kSeconds);
  d.result("exposed_comm_seconds", micro_batches * (t_tp + t_cp + t_ep + t_pp) + t_dp, Unit::kSeconds);
  // The bubble's share of the whole step. With no DP or optimizer time it equals the
  // pipeline-bubble calculator's idle ÷ (m + idle), idle = (pp − 1) ÷ vp.
  double bubble = d.step("Bubble share of the step", "bubble time ÷ step time",
                         q(t_bubble, Unit::kSeconds) + " ÷ " + q(step_s, Unit::kSeconds), t_bubble / step_s, Unit::kRatio);
  d.result("bubble_fraction", bubble, Unit::kRatio);
  d.result("tokens_per_second_per_gpu", gb * s / step_s / gpus, Unit::kTokensPerSecond);
  d.result("model_flops_per_second_per_gpu", model_flops_s, Unit::kFlopPerSecond);
  d.result("mfu", model_flops_s / *peak, Unit::kRatio);
  d.result("hfu", hw_flops_s / *peak, Unit::kRatio);
  d.set_conclusion("One iteration takes " + q(step_s, Unit::kSeconds) + " at " + num(std::round(model_flops_s / *peak * 1000) / 10) +
                   "% MFU; the pipeline bubble is " + num(std::round(bubble * 1000) / 10) + "% of it.");
  return d;
}

std::vector<ParamSpec> serve_params() {
  return {
      model_param(), config_param(), gpu_param(),
      count("tp", Unit::kCount, "tensor-parallel GPUs per replica", 1, 1024, "1"),
      count("batch", Unit::kCount, "concurrent sequences (a static batch)", 1, 1e6, "1"),
      count("input-tokens", Unit::kTokens, "prompt tokens per sequence", 1, 1e8, "", true, "2048"),
      count("output-tokens", Unit::kTokens, "generated tokens per sequence", 1, 1e8, "", true, "128"),
      dtype_param("weights-dtype", "weight storage (fp8 weights also compute in fp8)", "bf16"),
      dtype_param("kv-dtype", "KV-cache storage (default: as the weights)", ""),
      number("bandwidth-efficiency", Unit::kRatio, "share of HBM bandwidth a decode step reaches (fitted)", 0, 1,
             kServeBandwidthEfficiency),
      number("prefill-efficiency", Unit::kRatio, "share of the dense peak a prefill reaches (fitted)", 0, 1,
             kServePrefillEfficiency),
      zero_or_more("layer-overhead", Unit::kSeconds,
                   "fixed cost per layer of each forward pass, prefill or decode step: launches and the small "
                   "kernels between the GEMMs (fitted)",
                   1, kServeLayerOverhead),
      number("link-efficiency", Unit::kRatio, "collective bus bandwidth as a share of the link (assumed)", 0, 1,
             kLinkEfficiency),
      zero_or_more("allreduce-latency", Unit::kSeconds,
                   "fixed latency of one small TP all-reduce on the scale-up link (assumed 10 us)", 1, kAllReduceLatency),
      zero_or_more("kv-group-reuse", Unit::kRatio,
                   "share of a GQA KV head's reads its query heads share in decode (assumed 0: a decode kernel per "
                   "query head, as TensorRT-LLM before XQA; 1 = read once per group)", 1,
                   kServeKvGroupReuse),
  };
}

Result<Derivation> serve(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const Accelerator& gpu = *in.gpu();
  auto dtypes = serving_dtypes(in, gpu);
  if (!dtypes) return dtypes.errors();
  const Dtype compute = dtypes->weights == Dtype::kFp8 ? Dtype::kFp8 : Dtype::kBf16;
  auto peak = peak_for(gpu, compute, "weights-dtype");
  if (!peak) return peak.errors();
  const double tp = in.number("tp"), batch = in.number("batch"), isl = in.number("input-tokens");
  const double osl = in.number("output-tokens");
  if (m.heads % static_cast<int64_t>(tp) != 0) {
    return FieldError{"tp", num(tp), "does not divide the attention heads (" + num(m.heads) + ")",
                      "a divisor of the head count"};
  }
  Derivation d("serve", "Serving latency and throughput of " + m.id);
  describe_model(d, m, in.has("config") ? "config" : "model");
  describe_gpu(d, gpu);
  describe_inputs(d, in, serve_params());
  d.assume("a static batch: every sequence is prefilled together, then decoded together (gptSessionBenchmark style)");
  d.assume("each phase is a sum of kernels: the GEMMs at their roofline (weights read at the bandwidth share, or the "
           "FLOPs at the matmul share of peak, whichever is slower), then attention (prefill: FLOPs; decode: the KV "
           "cache read), then two TP all-reduces per layer, then a fixed cost per layer; KV length averaged over "
           "the output");
  d.assume("compute in " + std::string(dtype_name(compute)) + "; activations 16-bit between ranks");

  const ParamCount pc = count_params(m);
  const double layers = static_cast<double>(m.layers), h = static_cast<double>(m.hidden);
  const double matmul_params = pc.active - (m.tied_embeddings ? 0 : pc.embedding);
  const double e_bw = in.number("bandwidth-efficiency"), e_pf = in.number("prefill-efficiency");
  const double overhead = in.number("layer-overhead"), link = in.number("link-efficiency");
  const double bw = gpu.memory_bandwidth * e_bw;
  const double rate = tp * *peak * e_pf;
  const double weight_bytes = pc.total * dtype_bytes(dtypes->weights);
  const double kv_copies = std::max(1.0, tp / static_cast<double>(m.kv_heads));
  const double group = static_cast<double>(m.heads / m.kv_heads);
  const double reuse = in.number("kv-group-reuse");
  const double kv_reads = m.is_mla() ? 1 : 1 + (group - 1) * (1 - reuse);
  const double allreduce_bw = gpu.scale_up_bandwidth / 2 * link;

  const double ar_latency = in.number("allreduce-latency");
  const double blocks = static_cast<double>(residual_blocks(m));  // 2 × L for a transformer
  // One TP all-reduce of `tokens` hidden states: its latency plus the ring's 2(t−1)/t bytes.
  auto allreduces = [&](double tokens) {
    return tp > 1 ? blocks * (ar_latency + 2 * (tp - 1) / tp * tokens * h * 2 / allreduce_bw) : 0.0;
  };

  // Prefill: the GEMMs at the roofline, attention on top (a separate kernel), the TP all-reduces
  // and a fixed cost per layer.
  const double pf_tokens = batch * isl;
  double pf_gemm_flops = d.step("Prefill GEMM FLOPs", "2 × N × batch × input",
                                "2 × " + num(matmul_params) + " × " + num(batch) + " × " + num(isl),
                                2 * matmul_params * pf_tokens, Unit::kFlop);
  double pf_gemm = d.step("Prefill GEMMs", "max(FLOPs ÷ (tp × peak × e_mm), weights ÷ tp ÷ (HBM × e_bw))",
                          "max(" + num(pf_gemm_flops) + " ÷ (" + num(tp) + " × " + q(*peak, Unit::kFlopPerSecond) +
                              " × " + num(e_pf) + "), " + num(weight_bytes) + " ÷ " + num(tp) + " ÷ " +
                              q(bw, Unit::kBytesPerSecond) + ")",
                          std::max(pf_gemm_flops / rate, weight_bytes / tp / bw), Unit::kSeconds);
  const double pf_attn_seq = attention_flops_per_sequence(m, isl);
  double pf_attn_flops = d.step("Prefill attention FLOPs", "batch × attention per sequence  (causal; 2 × L × input² × heads·d for full attention)",
                                num(batch) + " × " + num(pf_attn_seq), batch * pf_attn_seq, Unit::kFlop);
  double pf_attn = d.step("Prefill attention", "FLOPs ÷ (tp × peak × e_mm)",
                          num(pf_attn_flops) + " ÷ (" + num(tp) + " × " + q(*peak, Unit::kFlopPerSecond) + " × " +
                              num(e_pf) + ")",
                          pf_attn_flops / rate, Unit::kSeconds);
  double pf_comm = 0;
  if (tp > 1) {
    pf_comm = d.step("Prefill TP all-reduces", "residual blocks (2 × L) × (latency + 2(t−1)/t × batch·input·h·2 B ÷ link)",
                     num(blocks) + " × (" + q(ar_latency, Unit::kSeconds) + " + " + num(2 * (tp - 1) / tp) +
                         " × " + num(pf_tokens * h * 2) + " ÷ " + q(allreduce_bw, Unit::kBytesPerSecond) + ")",
                     allreduces(pf_tokens), Unit::kSeconds);
  }
  double ttft = d.step("Time to first token", "GEMMs + attention + TP all-reduces + L × per-layer overhead",
                       q(pf_gemm, Unit::kSeconds) + " + " + q(pf_attn, Unit::kSeconds) + " + " + q(pf_comm, Unit::kSeconds) +
                           " + " + num(layers) + " × " + q(overhead, Unit::kSeconds),
                       pf_gemm + pf_attn + pf_comm + layers * overhead, Unit::kSeconds);

  // Decode, at the average context: the GEMMs read every weight once per step (or are
  // compute-bound at a large batch); attention reads the KV cache; they are separate kernels.
  const double ctx = isl + osl / 2;
  double dec_gemm = d.step("Decode GEMMs per step", "max(weights ÷ tp ÷ (HBM × e_bw), 2 × N × batch ÷ (tp × peak × e_mm))",
                           "max(" + num(weight_bytes) + " ÷ " + num(tp) + " ÷ " + q(bw, Unit::kBytesPerSecond) + ", 2 × " +
                               num(matmul_params) + " × " + num(batch) + " ÷ " + q(rate, Unit::kFlopPerSecond) + ")",
                           std::max(weight_bytes / tp / bw, 2 * matmul_params * batch / rate), Unit::kSeconds);
  // Cache read per sequence at the average context: every layer's KV within its bound plus any
  // recurrent state (model.h); KV per token × context for full attention.
  const double cache_seq = (kv_elements_per_sequence(m, ctx) + state_elements_per_sequence(m)) * dtype_bytes(dtypes->kv);
  double kv_bytes = d.step("KV read per step per GPU", "batch × cache per sequence at (input + output/2) × copies ÷ tp",
                           num(batch) + " × " + num(cache_seq) + " × " + num(kv_copies) + " ÷ " + num(tp),
                           batch * cache_seq * kv_copies / tp, Unit::kBytes);
  double kv_traffic = d.step("KV traffic per step per GPU", "KV read × (1 + (heads per KV head − 1) × (1 − reuse))",
                             num(kv_bytes) + " × (1 + " + num(group - 1) + " × (1 − " + num(reuse) + "))",
                             kv_bytes * kv_reads, Unit::kBytes);
  const double dec_attn_flops = batch * attention_flops_per_decode_token(m, ctx);
  double dec_attn = d.step("Decode attention per step", "max(KV traffic ÷ (HBM × e_bw), 4 × L × batch × context × heads·d ÷ rate)",
                           "max(" + num(kv_traffic) + " ÷ " + q(bw, Unit::kBytesPerSecond) + ", " + num(dec_attn_flops) +
                               " ÷ " + q(rate, Unit::kFlopPerSecond) + ")",
                           std::max(kv_traffic / bw, dec_attn_flops / rate), Unit::kSeconds);
  double dec_comm = 0;
  if (tp > 1) {
    dec_comm = d.step("Decode TP all-reduces", "residual blocks (2 × L) × (latency + 2(t−1)/t × batch·h·2 B ÷ link)",
                      num(blocks) + " × (" + q(ar_latency, Unit::kSeconds) + " + " + num(2 * (tp - 1) / tp) +
                          " × " + num(batch * h * 2) + " ÷ " + q(allreduce_bw, Unit::kBytesPerSecond) + ")",
                      allreduces(batch), Unit::kSeconds);
  }
  double tpot = d.step("Time per output token", "GEMMs + attention + TP all-reduces + L × per-layer overhead",
                       q(dec_gemm, Unit::kSeconds) + " + " + q(dec_attn, Unit::kSeconds) + " + " +
                           q(dec_comm, Unit::kSeconds) + " + " + num(layers) + " × " + q(overhead, Unit::kSeconds),
                       dec_gemm + dec_attn + dec_comm + layers * overhead, Unit::kSeconds);
  double request = d.step("Batch latency", "TTFT + (output − 1) × TPOT  (the first token comes out of the prefill)",
                          q(ttft, Unit::kSeconds) + " + " + num(osl - 1) + " × " + q(tpot, Unit::kSeconds),
                          ttft + (osl - 1) * tpot, Unit::kSeconds);
  d.result("ttft_seconds", ttft, Unit::kSeconds);
  d.result("tpot_seconds", tpot, Unit::kSeconds);
  d.result("output_tokens_per_second", batch / tpot, Unit::kTokensPerSecond);
  d.result("output_tokens_per_second_per_gpu", batch / tpot / tp, Unit::kTokensPerSecond);
  d.result("requests_per_second", batch / request, Unit::kCount);
  d.set_conclusion("First token after " + q(ttft, Unit::kSeconds) + ", then one token every " + q(tpot, Unit::kSeconds) +
                   " per sequence.");
  return d;
}

}  // namespace

void register_perf_calculators(Registry& r) {
  r.add({"step", "Training step time from a parallel layout: compute, TP/CP/EP/PP/DP communication, bubble, MFU",
         step_params(),
         {"step_seconds", "compute_seconds", "exposed_comm_seconds", "bubble_fraction", "tokens_per_second_per_gpu",
          "model_flops_per_second_per_gpu", "mfu", "hfu"},
         "--model llama-3.1-70b --gpu h100-sxm --gpus 1024 --tp 8 --pp 4 --seq 8192 --global-batch 512", step});
  r.add({"serve", "Serving latency (TTFT, TPOT) and throughput of a static batch", serve_params(),
         {"ttft_seconds", "tpot_seconds", "output_tokens_per_second", "output_tokens_per_second_per_gpu",
          "requests_per_second"},
         "--model llama-3.1-70b --gpu h100-sxm --tp 4 --batch 64 --input-tokens 2048 --output-tokens 128", serve});
}

}  // namespace ridge::calc
