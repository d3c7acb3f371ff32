// Performance model, training: one iteration from a parallel layout (`step`; serving is in
// calculators_serve.cc), validated by `ridge validate` against data/published-runs.toml.
#include <algorithm>
#include <cmath>

#include "calc/common.h"
#include "calc/perf_common.h"
#include "calc/training.h"
#include "calc/training_moe.h"

namespace ridge::calc {
namespace {

using namespace detail;

// ---- fixed assumptions, not fitted ----
// Bytes the optimizer step moves per parameter on its GPU: mixed-precision Adam reads and writes
// the fp32 master weight, two fp32 moments and the fp32 gradient, and the 16-bit copy (about 32 B).
constexpr double kOptimizerBytesPerParam = 32;
// The share of HBM bandwidth a streaming kernel (a cast, a copy) reaches, taken for every chip: the
// STREAM copy Azure measured on ND H100 v5, 2.90 of 3.35 TB/s (AI Benchmarking Guide).
constexpr double kStreamEfficiency = 0.87;
constexpr double kActivationBytes = 2;  // 16-bit activations between ranks

// One InfiniBand HCA per GPU: 200 Gb/s HDR in DGX A100 (Selene, Narayanan et al. 2021 §5), 400 Gb/s NDR after.
double default_scale_out(const Accelerator& gpu) { return gpu.generation == "Ampere" ? 25e9 : 50e9; }

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
  // The experts' own TP (Megatron-Core's expert grid: expert-tp × ep × expert-DP = tp × dp × cp
  // ranks per stage, parallel_state.initialize_model_parallel); below tp, EP takes TP ranks too.
  const double etp = in.number("expert-tp") > 0 ? in.number("expert-tp") : tp;
  const double gb = in.number("global-batch");
  const std::string recompute = in.text("recompute");
  const bool sp = in.text("sequence-parallel") == "on";
  const double link_eff = in.number("link-efficiency");
  const double node = in.has("gpus-per-node") ? in.number("gpus-per-node")
                                              : (gpu.has_system() ? gpu.system.scale_up_domain : 8);

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
  PipelineRequest preq;
  preq.layers = m.layers;
  preq.pp = static_cast<int64_t>(pp);
  preq.vp = static_cast<int64_t>(vp);
  preq.account_embedding = in.text("account-for-embedding") == "on";
  preq.account_loss = in.text("account-for-loss") == "on";
  preq.first_layers = static_cast<int64_t>(in.number("first-stage-layers"));
  preq.last_layers = static_cast<int64_t>(in.number("last-stage-layers"));
  auto split = pipeline_split(preq);
  if (!split) errors.insert(errors.end(), split.errors().begin(), split.errors().end());
  if (std::fmod(s, cp) != 0) {
    errors.push_back(layout_error("cp", cp, "does not divide the sequence (" + num(s) + ")", "a divisor of --seq"));
  }
  if (ep > 1 && !m.is_moe()) {
    errors.push_back(layout_error("ep", ep, "needs a mixture-of-experts model", "1 for a dense model"));
  } else if (ep > 1 && (m.routed_experts % static_cast<int64_t>(ep) != 0 || std::fmod(dp * cp * tp / etp, ep) != 0)) {
    errors.push_back(layout_error("ep", ep, "must divide the routed experts (" + num(m.routed_experts) +
                                                ") and DP × CP × TP ÷ expert-tp (" + num(dp * cp * tp / etp) + ")",
                                  "a common divisor of the experts and DP × CP × TP ÷ expert-tp (--expert-tp 1 folds "
                                  "EP into the TP ranks, Megatron-Core's --expert-tensor-parallel-size 1)"));
  }
  if (etp > tp || std::fmod(tp, etp) != 0) {
    errors.push_back(layout_error("expert-tp", etp, "does not divide --tp (" + num(tp) + ")", "a divisor of --tp, 0 for tp"));
  }
  if (pp == 1 && vp > 1) errors.push_back(layout_error("vp", vp, "needs pipeline parallelism", "1 when --pp is 1"));
  if (recompute == "full" && in.text("recompute-modules") != "none") {
    // Full recomputation already runs every module's forward again: counting them twice is wrong.
    errors.push_back(FieldError{"recompute-modules", in.text("recompute-modules"),
                                "adds nothing to --recompute full, which already runs every module's forward again",
                                "none with --recompute full; a module list with selective or none"});
  }
  if (!errors.empty()) return errors;

  Derivation d("step", "Training step time of " + m.id);
  describe_model(d, m, in.has("config") ? "config" : "model");
  describe_gpu(d, gpu);
  describe_inputs(d, in, step_params());
  // The fabric model (hardware.h, estimate_collective): inside the scale-up domain the measured
  // busbw where the catalog has one, else NVLink × efficiency; across domains the NICs the group
  // holds in each domain. --scale-out-bandwidth gives one NIC per GPU at that rate instead.
  const double nic_override = in.has("scale-out-bandwidth") ? in.number("scale-out-bandwidth")
                              : gpu.has_system()               ? 0
                                                               : default_scale_out(gpu);
  const double scale_out = nic_override > 0 ? nic_override : gpu.system.nic_bandwidth;
  d.assume("fabric: scale-up domain of " + num(node) + " GPUs, NVLink " + q(gpu.scale_up_bandwidth / 2, Unit::kBytesPerSecond) +
           " per direction per GPU; scale-out " +
           (nic_override > 0 ? q(nic_override, Unit::kBytesPerSecond) + " per GPU (one NIC each" +
                                   std::string(in.has("scale-out-bandwidth") ? ", given)" : ", default: one InfiniBand HCA per GPU)")
                             : num(gpu.system.nics) + " NICs × " + q(gpu.system.nic_bandwidth, Unit::kBytesPerSecond) +
                                   " per " + num(gpu.system.gpus) + " GPUs (" + gpu.system.name + ")"));
  const double alpha = in.number("collective-latency");
  d.assume("collectives without a measured figure run at " + num(link_eff) +
           " of the link (bus bandwidth as nccl-tests define it), plus a latency alpha of " +
           q(alpha, Unit::kSeconds) + " each (assumed)");
  auto collective = [&](const std::string& kind, double group, double stride, double bytes) {
    return estimate_collective(gpu, kind, group, ranks_per_domain(group, stride, node), bytes, link_eff,
                               alpha, nic_override);
  };
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
  // The output layer (6·V·h per token, never recomputed) sits on the last stage; the rest is
  // spread evenly over the transformer layers. Each stage's share follows the pipeline split.
  const PipelineSplit& ps = *split;
  const double logit_flops = 6 * logit_params * tokens_mb;
  double layer_flops = d.step("FLOPs per transformer layer per micro-batch", "(model + recompute − 6 × V·h × tokens) ÷ L",
                              "(" + num(hw_flops_mb) + " − 6 × " + num(logit_params) + " × " + num(tokens_mb) + ") ÷ " +
                                  num(layers),
                              (hw_flops_mb - logit_flops) / layers, Unit::kFlop);
  d.assume("pipeline split: " + ps.rule + "; the output layer and loss run on the last stage, the embedding lookup on "
           "the first; the slowest stage sets the pace of the pipeline and its bubble");
  // The heaviest stage: the last carries the output layer; the first or a middle one may hold
  // more layers (explicit counts). Ties go to the last (it also runs the output layer).
  struct Stage {
    const char* name;
    double layers;
    bool output;
  };
  Stage stages[3] = {{"first", ps.first, pp == 1}, {"middle", ps.middle, false}, {"last", ps.last, true}};
  const Stage* heavy = &stages[2];
  for (const Stage& st : stages) {
    if (pp <= 2 && &st == &stages[1]) continue;  // no middle stage
    auto work = [&](const Stage& x) { return x.layers * layer_flops + (x.output ? logit_flops : 0); };
    if (work(st) > work(*heavy)) heavy = &st;
  }
  const double layers_stage = heavy->layers;
  const std::string stage_name = pp == 1 ? "the one stage" : "the heaviest stage (" + std::string(heavy->name) + ")";
  double flops_gpu = d.step("FLOPs per GPU per micro-batch on " + stage_name,
                            std::string("(layers on the stage × per layer") + (heavy->output ? " + output layer" : "") +
                                ") ÷ (tp × cp)",
                            "(" + num(layers_stage) + " × " + num(layer_flops) +
                                (heavy->output ? " + " + num(logit_flops) : std::string()) + ") ÷ " + num(tp * cp),
                            (layers_stage * layer_flops + (heavy->output ? logit_flops : 0)) / (tp * cp), Unit::kFlop);
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
  // The stage's FLOPs by kind: attention (FlashAttention runs in 16 bits even in an FP8 recipe:
  // Transformer Engine's FP8 attention is off unless asked for), the routed experts' grouped
  // GEMMs, and the other GEMMs (with the output layer on the last stage).
  const double share = layers_stage / layers / (tp * cp);
  const double attn_total = attn_flops + (recompute == "selective" ? extra : recompute == "full" ? attn_flops / 3 : 0);
  double expert_total = 0;
  if (m.is_moe() && m.routed_experts > m.experts_per_token) {
    // Active expert parameters from count_params alone: total − active = (E − k) experts' worth.
    const double e = static_cast<double>(m.routed_experts), k = static_cast<double>(m.experts_per_token);
    const double expert_active = (pc.total - pc.active) * k / (e - k);
    expert_total = 6 * expert_active * tokens_mb * (recompute == "full" ? 4.0 / 3 : 1);
  }
  const double attn_gpu = attn_total * share, expert_gpu = expert_total * share;
  const double gemm_gpu = flops_gpu - attn_gpu - expert_gpu;
  double peak_attn = *peak;
  if (dt == Dtype::kFp8) {
    auto p16 = peak_for(gpu, Dtype::kBf16, "dtype");
    if (!p16) return p16.errors();
    peak_attn = *p16;
    d.assume("FP8 covers the linear layers only: attention runs in bf16 at " + q(peak_attn, Unit::kFlopPerSecond) +
             " (Transformer Engine's FP8 dot-product attention is off by default)");
  }
  double t_gemm = d.step("Dense GEMMs on the stage", "GEMM FLOPs per GPU ÷ (peak × efficiency)",
                         num(gemm_gpu) + " ÷ (" + q(*peak, Unit::kFlopPerSecond) + " × " + num(eff) + ")",
                         gemm_gpu / (*peak * eff), Unit::kSeconds);
  double t_attn = d.step("Attention on the stage", "attention FLOPs per GPU ÷ (" +
                             std::string(dt == Dtype::kFp8 ? "bf16 " : "") + "peak × efficiency)",
                         num(attn_gpu) + " ÷ (" + q(peak_attn, Unit::kFlopPerSecond) + " × " + num(eff) + ")",
                         attn_gpu / (peak_attn * eff), Unit::kSeconds);
  const double imbalance = in.number("moe-imbalance");
  double t_expert = 0;
  if (expert_gpu > 0) {
    // The grouped GEMM of one expert: the tokens routed to it from the ep ranks, h, its width.
    const double e = static_cast<double>(m.routed_experts), k = static_cast<double>(m.experts_per_token);
    // With expert-tp below tp an expert-TP group gathers etp of the tp sequence-parallel shards,
    // and each expert keeps f ÷ etp of its width.
    const double me = gm * etp / tp * ep * k / e, ne = width / etp;
    const double ie = 1 / (1 / me + 1 / gk + 1 / ne);
    const double gg = in.number("grouped-gemm-efficiency");
    double eff_e = d.step("Expert GEMM efficiency",
                          "e_max × I ÷ (I + I_half) × grouped-GEMM share, I from M = tokens × expert-tp ÷ tp × ep × k ÷ E "
                          "per expert, N = f ÷ expert-tp",
                          num(emax) + " × " + num(ie) + " ÷ (" + num(ie) + " + " + num(ihalf) + ") × " + num(gg),
                          emax * ie / (ie + ihalf) * gg, Unit::kRatio);
    t_expert = d.step("Expert GEMMs on the stage", "expert FLOPs per GPU × (1 + imbalance) ÷ (peak × efficiency)",
                      num(expert_gpu) + " × (1 + " + num(imbalance) + ") ÷ (" + q(*peak, Unit::kFlopPerSecond) + " × " +
                          num(eff_e) + ")",
                      expert_gpu * (1 + imbalance) / (*peak * eff_e), Unit::kSeconds);
  }
  // The routed tokens' own memory traffic, which no GEMM efficiency covers: the dispatcher's
  // shuffling passes (moe_shuffle_passes in training_moe.h, by dispatcher). The experts' gated
  // activation (SwiGLU) reads 2·k·f and writes k·f forward, reads 3·k·f and writes 2·k·f backward
  // (8 k·f). The router's logits, softmax, top-k and load-balancing loss pass over tokens × E fp32
  // scores about ten times forward and backward (40·E bytes). All 16-bit, at HBM's streaming share.
  double t_moe_mem = 0, t_host = 0;
  const MoeDispatcher dispatcher = moe_dispatcher(in.text("moe-dispatcher"));
  const double ek = m.is_moe() ? static_cast<double>(m.experts_per_token) : 0, ee = static_cast<double>(m.routed_experts);
  const double ep_ranks = dispatcher == MoeDispatcher::kAllToAll ? ek : moe_ranks_step(d, ee, ek, ep);
  const double local_experts = m.is_moe() ? static_cast<double>(m.routed_experts) / ep : 0;
  const double moe_layers_on_stage = static_cast<double>(m.moe_layers) * layers_stage / layers;
  if (m.is_moe() && moe_layers_on_stage > 0) {
    const double k = static_cast<double>(m.experts_per_token), e = static_cast<double>(m.routed_experts);
    const double shuffles = moe_shuffle_passes(dispatcher, local_experts, k, ep_ranks);
    const double bytes_token = kActivationBytes * (shuffles * h + 8 * k * width) + 40 * e;
    const double tokens = tokens_mb / cp * etp / tp;  // the expert-TP group's tokens (all b·s ÷ cp at etp = tp)
    const double bw = gpu.memory_bandwidth * kStreamEfficiency;
    t_moe_mem = d.step("MoE token shuffling, activation and router (memory-bound)",
                       "MoE layers × tokens × (2 B × (" + num(shuffles) + "·h + 8·k·f) + 40·E B) ÷ (HBM × " +
                           num(kStreamEfficiency) + ")",
                       num(moe_layers_on_stage) + " × " + num(tokens) + " × (2 × (" + num(shuffles) + " × " + num(h) +
                           " + 8 × " + num(k) + " × " + num(width) + ") + 40 × " + num(e) + ") ÷ " +
                           q(bw, Unit::kBytesPerSecond),
                       moe_layers_on_stage * tokens * bytes_token / bw, Unit::kSeconds);
    // The host (training_moe.h): it also stops the host running ahead, so it hides only the
    // expert GEMMs it launches, not the rest.
    t_host = moe_host_step(d, moe_layers_on_stage, local_experts, in.number("moe-host-per-expert"),
                           in.number("moe-host-per-launch"),
                           moe_launches_per_expert(dt == Dtype::kFp8, in.text("fp8-recipe"), m.mlp_bias));
  }
  double t_scores = 0;
  if (in.text("attention-kernel") == "unfused") {
    // Without FlashAttention the b × heads × s × s scores go through HBM (Megatron-LM 2021-22:
    // baddbmm for QKᵀ, FusedScaleMaskSoftmax, dropout, bmm with V). Element passes of 2 B:
    // forward 5.5 (QKᵀ writes 1; the softmax reads and writes 2; dropout reads 1, writes 1 and
    // a 1-byte mask 0.5; the AV GEMM reads 1); backward 9.5 (dV reads the probabilities 1 and
    // dP is written 1; dropout's backward reads 1.5, writes 1; softmax's reads 2, writes 1; dQ
    // and dK read dS 2); recomputation (selective or full) repeats the forward's 5.5.
    const double passes = 5.5 + 9.5 + (recompute == "none" ? 0 : 5.5);
    const double elems = layers_stage * b * static_cast<double>(m.heads) / tp * (s / cp) * s;
    const double bw = gpu.memory_bandwidth * kStreamEfficiency;
    t_scores = d.step("Attention scores through HBM (unfused attention)",
                      "layers × b × heads ÷ tp × (s ÷ cp) × s × " + num(passes) + " passes × 2 B ÷ (HBM × " +
                          num(kStreamEfficiency) + ")",
                      num(layers_stage) + " × " + num(b) + " × " + num(m.heads) + " ÷ " + num(tp) + " × " + num(s / cp) +
                          " × " + num(s) + " × " + num(passes) + " × 2 ÷ " + q(bw, Unit::kBytesPerSecond),
                      elems * passes * 2 / bw, Unit::kSeconds);
  }
  double t_quant = 0;
  if (dt == Dtype::kFp8) {
    // Every FP8 GEMM's inputs are quantized by a memory-bound kernel: per token per layer, the
    // inputs of the linear layers (forward) and the gradients of their outputs (backward) hold
    // Σ(K + N) = 4h + P_layer ÷ h elements (QKV: h in, (a + 2kv)·d out; proj: a·d in, h out;
    // fc1: h in, g·f out; fc2: f in, h out; P = h·(2a + 2kv)·d + (g + 1)·h·f). Transformer
    // Engine's cast-transpose reads 2 B and writes the row-wise and column-wise copies, 1 B each
    // (4 B); current scaling first reads the tensor once more for its amax (6 B); block scaling
    // takes its per-block amax in the same pass (4 B). Delayed scaling keeps an amax history
    // instead (a few small kernels, not counted).
    const std::string recipe = in.text("fp8-recipe");
    const double per_elem = recipe == "current" ? 6 : 4;
    const double p_layer = (matmul_params - logit_params) / layers;
    const double elems = 4 * h + p_layer / h;
    const double bytes = tokens_mb / cp * layers_stage * elems / tp * per_elem;
    const double bw = gpu.memory_bandwidth * kStreamEfficiency;
    t_quant = d.step("FP8 quantization on the stage (" + recipe + " scaling)",
                     "tokens × layers × (4h + P_layer ÷ h) ÷ tp × " + num(per_elem) + " B ÷ (HBM × " +
                         num(kStreamEfficiency) + ")",
                     num(tokens_mb / cp) + " × " + num(layers_stage) + " × " + num(elems) + " ÷ " + num(tp) + " × " +
                         num(per_elem) + " ÷ " + q(bw, Unit::kBytesPerSecond),
                     bytes / bw, Unit::kSeconds);
  }
  // Modules recomputed beside --recompute (Megatron-Core's recompute_modules, selective): their
  // forward runs again in the backward pass, memory-bound. layernorm: the pre-MLP norm of each MoE
  // layer (TE fuses the attention's input norm into its QKV GEMM, so there is none to recompute):
  // reads h, writes h. moe_act: the experts' gated activation forward, reads 2·k·f and writes k·f.
  double t_remod = 0;
  const std::string modules = in.text("recompute-modules");
  if (modules != "none" && m.is_moe() && moe_layers_on_stage > 0) {
    const bool norm = modules.find("layernorm") != std::string::npos;
    const bool act = modules.find("moe_act") != std::string::npos;
    const double k = static_cast<double>(m.experts_per_token);
    const double tokens = tokens_mb / cp * etp / tp;
    const double act_passes = act ? 3 : 0, norm_passes = norm ? 2 : 0;
    const double bw = gpu.memory_bandwidth * kStreamEfficiency;
    t_remod = d.step("Recomputed modules (" + modules + ", memory-bound)",
                     "MoE layers × tokens × 2 B × (" + num(norm_passes) + "·h + " + num(act_passes) +
                         "·k·f) ÷ (HBM × " + num(kStreamEfficiency) + ")",
                     num(moe_layers_on_stage) + " × " + num(tokens) + " × 2 × (" + num(norm_passes) + " × " + num(h) +
                         " + " + num(act_passes) + " × " + num(k) + " × " + num(width) + ") ÷ " +
                         q(bw, Unit::kBytesPerSecond),
                     moe_layers_on_stage * tokens * kActivationBytes * (norm_passes * h + act_passes * k * width) / bw,
                     Unit::kSeconds);
  }
  double t_compute = d.step("Compute per micro-batch on the stage",
                            "dense GEMMs + attention + scores in HBM + experts + MoE memory-bound + quantization" +
                                std::string(t_remod > 0 ? " + recomputed modules" : ""),
                            q(t_gemm, Unit::kSeconds) + " + " + q(t_attn, Unit::kSeconds) + " + " +
                                q(t_scores, Unit::kSeconds) + " + " + q(t_expert, Unit::kSeconds) + " + " +
                                q(t_moe_mem, Unit::kSeconds) + " + " + q(t_quant, Unit::kSeconds) +
                                (t_remod > 0 ? " + " + q(t_remod, Unit::kSeconds) : std::string()),
                            t_gemm + t_attn + t_scores + t_expert + t_moe_mem + t_quant + t_remod, Unit::kSeconds);

  const double act_mb = tokens_mb / cp * h * kActivationBytes;  // one micro-batch's hidden states on a CP rank
  double t_tp = 0;
  if (tp > 1) {
    const CollectiveEstimate c = collective("all_reduce", tp, 1, act_mb);
    d.assume("TP collectives: " + c.explanation);
    const double per_layer = recompute == "full" ? 6 : 4;
    t_tp = d.step(sp ? "TP reduce-scatter + all-gather" : "TP all-reduces",
                  num(per_layer) + " per layer × layers on the stage × (alpha + 2(t−1)/t × b·s·h·2 B ÷ busbw)",
                  num(per_layer) + " × " + num(layers_stage) + " × (" + q(c.alpha, Unit::kSeconds) + " + " +
                      num(2 * (tp - 1) / tp) + " × " + num(act_mb) + " ÷ " + q(c.busbw, Unit::kBytesPerSecond) + ")",
                  per_layer * layers_stage * c.seconds, Unit::kSeconds);
  }
  double t_cp = 0;
  if (cp > 1) {
    const double kv_bytes = 2 * tokens_mb / cp * static_cast<double>(m.kv_heads * m.head_dim) / tp * kActivationBytes;
    const CollectiveEstimate c = collective("all_gather", cp, tp, kv_bytes * cp);
    d.assume("CP ring: " + c.explanation);
    const double ring = 3 * layers_stage * (cp - 1) * kv_bytes / c.busbw;  // K,V forward; dK,dV backward (2×)
    const double attn_time =
        (attn_flops + (recompute == "none" ? 0 : extra)) * layers_stage / layers / (tp * cp) / (*peak * eff);
    t_cp = d.step("CP ring exchange (exposed)", "max(0, 3 × layers × (cp−1) × K,V block ÷ busbw − attention time)",
                  "max(0, " + q(ring, Unit::kSeconds) + " − " + q(attn_time, Unit::kSeconds) + ")",
                  std::max(0.0, ring - attn_time), Unit::kSeconds);
  }
  double t_ep = 0;
  if (ep > 1) {
    // Dispatch and combine, forward and backward: four all-to-alls per MoE layer of the rank's tokens'
    // copies (k; HybridEP sends one per destination rank: moe_ranks_per_token).
    const double bytes = act_mb / (sp ? tp : 1) * ep_ranks;
    const CollectiveEstimate c = collective("alltoall", ep, etp, bytes);  // EP ranks stride over expert-tp
    d.assume("EP all-to-all: " + c.explanation);
    const std::string copies = dispatcher == MoeDispatcher::kAllToAll ? "top-k" : "ranks per token";
    t_ep = d.step("EP all-to-all", "4 per MoE layer × (alpha + (ep−1)/ep × tokens·" + copies + "·h·2 B ÷ busbw) × (1 + imbalance)",
                  "4 × " + num(moe_layers_on_stage) + " × (" + q(c.alpha, Unit::kSeconds) + " + " + num((ep - 1) / ep) +
                      " × " + num(bytes) + " ÷ " + q(c.busbw, Unit::kBytesPerSecond) + ") × (1 + " + num(imbalance) + ")",
                  4 * moe_layers_on_stage * c.seconds * (1 + imbalance), Unit::kSeconds);
  }
  double t_pp = 0;
  if (pp > 1) {
    // Send/receive between neighbouring stages: each GPU sends its 1/t of the boundary over its
    // own NIC (stages sit in different domains once tp × cp × dp fills one).
    const double bytes = act_mb / tp;
    const double link = (tp * cp * dp < node ? gpu.scale_up_bandwidth / 2 : scale_out) * link_eff;
    t_pp = d.step("PP point-to-point", "2 (activation, gradient) × vp × (alpha + b·s·h·2 B ÷ tp ÷ link)",
                  "2 × " + num(vp) + " × (" + q(alpha, Unit::kSeconds) + " + " + num(bytes) + " ÷ " +
                      q(link, Unit::kBytesPerSecond) + ")",
                  2 * vp * (alpha + bytes / link), Unit::kSeconds);
  }
  const double t_gpu = t_compute + t_tp + t_cp + t_ep + t_pp;
  const double t_mb = t_host > 0
                          ? d.step("Per micro-batch on the stage", "max(expert GEMMs, MoE host time) + the rest of compute + TP + CP + EP + PP",
                                   "max(" + q(t_expert, Unit::kSeconds) + ", " + q(t_host, Unit::kSeconds) + ") + " +
                                       q(t_compute - t_expert, Unit::kSeconds) + " + " + q(t_tp + t_cp + t_ep + t_pp, Unit::kSeconds),
                                   std::max(t_expert, t_host) + t_gpu - t_expert, Unit::kSeconds)
                          : d.step("Per micro-batch on the stage", "compute + TP + CP + EP + PP",
                                   q(t_compute, Unit::kSeconds) + " + " + q(t_tp, Unit::kSeconds) + " + " +
                                       q(t_cp, Unit::kSeconds) + " + " + q(t_ep, Unit::kSeconds) + " + " +
                                       q(t_pp, Unit::kSeconds),
                                   t_gpu, Unit::kSeconds);
  double t_bubble = d.step("Pipeline bubble time", "(pp − 1) ÷ vp × per-micro-batch time  (1F1B; Narayanan et al. 2021 §2.2)",
                           "(" + num(pp) + " − 1) ÷ " + num(vp) + " × " + q(t_mb, Unit::kSeconds),
                           (pp - 1) / vp * t_mb, Unit::kSeconds);
  double t_pipe = d.step("Pipeline time", "m × per-micro-batch time + bubble",
                         num(micro_batches) + " × " + q(t_mb, Unit::kSeconds) + " + " + q(t_bubble, Unit::kSeconds),
                         micro_batches * t_mb + t_bubble, Unit::kSeconds);
  // Parameters on one GPU of the stage with the most: the layers' share (experts split over ep),
  // the embedding on the first stage and the output layer on the last (a tied embedding keeps a
  // copy there too, as Megatron-LM does for pp > 1).
  const double embed_params = static_cast<double>(m.vocab) * h;
  const double held = pc.total - (m.is_moe() ? pc.expert * m.routed_experts * m.moe_layers * (1 - 1 / ep) : 0);
  const double per_layer_params = (held - embed_params * (m.tied_embeddings ? 1 : 2)) / layers;
  double stage_params = held;
  if (pp > 1) {
    stage_params = std::max({ps.first * per_layer_params + embed_params, ps.last * per_layer_params + embed_params,
                             pp > 2 ? ps.middle * per_layer_params : 0.0});
  }
  // The stage's experts, held ÷ ep above, split over expert-tp rather than tp.
  const double expert_stage =
      m.is_moe() ? pc.expert * static_cast<double>(m.routed_experts) * moe_layers_on_stage / ep : 0;
  const double params_gpu = stage_params / tp + expert_stage * (1 / etp - 1 / tp);
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
    // The routed experts' gradients reduce over the expert-data-parallel group only: the
    // DP × CP ranks holding the same experts, dp·cp ÷ ep of them at a stride of tp × ep
    // (Megatron-Core's parallel_state: the expert-model-parallel group is cut from the
    // data-parallel ranks, the expert-data-parallel group strides over it). With ep filling a
    // node that group has one GPU per node, so its ring runs on one NIC per GPU.
    const double expert_gpu_params = expert_stage / etp;
    const double edp = ranks * tp / (ep * etp);  // expert-DP ranks: dp·cp ÷ ep at etp = tp
    const double dense_gpu_params = params_gpu - expert_gpu_params;
    const CollectiveEstimate c = collective("all_reduce", ranks, tp, dense_gpu_params * grad_bytes);
    d.assume("DP collectives: " + c.explanation);
    double raw = c.seconds;
    if (expert_gpu_params > 0 && edp > 1) {
      const CollectiveEstimate ce = collective("all_reduce", edp, etp * ep, expert_gpu_params * grad_bytes);
      d.assume("expert-DP collectives (" + num(edp) + " ranks at a stride of " + num(etp * ep) +
               "): " + ce.explanation);
      raw = d.step("DP gradient all-reduces, dense and expert",
                   "dense (DP × CP ranks) + experts (DP × CP × TP ÷ (ep × expert-tp) ranks)",
                   q(c.seconds, Unit::kSeconds) + " + " + q(ce.seconds, Unit::kSeconds) + "  (" +
                       num(dense_gpu_params) + " and " + num(expert_gpu_params) + " params × " + num(grad_bytes) +
                       " B; busbw " + q(c.busbw, Unit::kBytesPerSecond) + " and " + q(ce.busbw, Unit::kBytesPerSecond) + ")",
                   c.seconds + ce.seconds, Unit::kSeconds);
    }
    // Overlap has a window: Megatron-LM's --overlap-grad-reduce starts each bucket's
    // reduce-scatter during the backward of the LAST micro-batch only (the others run under
    // no_sync), and --overlap-param-gather hides the all-gather behind the first micro-batch's
    // forward (megatron/core/distributed/distributed_data_parallel.py). The window is one
    // micro-batch's time on the stage; what does not fit in it is exposed.
    const double overlap = in.number("dp-overlap");
    t_dp = d.step("DP gradient all-reduce (exposed)",
                  "collective − min(overlap × collective, one micro-batch),  collective = alpha + 2(d−1)/d × params "
                  "per GPU × " + num(grad_bytes) + " B ÷ busbw",
                  q(raw, Unit::kSeconds) + " − min(" + num(overlap) + " × " + q(raw, Unit::kSeconds) + ", " +
                      q(t_mb, Unit::kSeconds) + ")",
                  raw - std::min(overlap * raw, t_mb), Unit::kSeconds);
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

}  // namespace

void register_perf_calculators(Registry& r) {
  r.add({"step", "Training step time from a parallel layout: compute, TP/CP/EP/PP/DP communication, bubble, MFU",
         step_params(),
         {"step_seconds", "compute_seconds", "exposed_comm_seconds", "bubble_fraction", "tokens_per_second_per_gpu",
          "model_flops_per_second_per_gpu", "mfu", "hfu"},
         "--model llama-3.1-70b --gpu h100-sxm --gpus 1024 --tp 8 --pp 4 --seq 8192 --global-batch 512", step});
  register_serve_calculators(r);
}

}  // namespace ridge::calc
