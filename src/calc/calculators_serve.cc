// Performance model, serving: the latency and throughput of a static batch (`serve`, the
// roofline of one prefill and one decode step, validated by `ridge validate` against
// data/published-runs.toml) and of a deployment at a request rate (`serve-rate`: continuous
// batching, p99 from a stated queueing model, disaggregated pools, MoE routing, speculative
// decoding; the model itself is serving_model.h, one function per prediction).
#include <algorithm>
#include <cmath>

#include "calc/common.h"
#include "calc/hardware.h"
#include "calc/perf_common.h"
#include "calc/serving_model.h"

namespace ridge::calc {
namespace {

using namespace detail;

// ---- fitted constants (`ridge validate --fit` reproduces them) ----
// Fitted on the "fit" half of data/published-runs.toml only, by the grid search in
// src/cli/validate_command.cc (see the split rule at the top of that file).
// Serving, fitted together on the 8 "fit" serving runs (grid: bandwidth 0.50-0.90 by 0.025,
// matmul 0.30-0.85 by 0.025, per-layer cost 0-300 us by 10 us): the share of HBM bandwidth
// the decode kernels reach (0.90 is the grid's ceiling, set where a streaming kernel on H100
// tops out; the fit sits on it), the share of the dense peak the GEMMs and attention reach,
// and a fixed cost per layer per forward pass (the launches and the small kernels between the
// GEMMs: norms, RoPE, the KV write, quantisation). Was 0.90, 0.525, 150 us (fitted on 6 runs,
// before the NIM 1.8 latency table joined); now 0.90, 0.50, 70 us (fit half mean 10.3%).
// Held-out serving 15.8% -> 12.1% (decode 42.4% -> 7.9%, end-to-end 11.3% -> 6.9%, prefill
// 12.8% -> 20.4%: the cheaper layer cost underprices the 128-token prefills).
constexpr const char* kServeBandwidthEfficiency = "0.90";
constexpr const char* kServePrefillEfficiency = "0.50";
constexpr const char* kServeLayerOverhead = "70us";
// Not fitted: the share of a grouped-query KV head's reads that its query heads share. The
// published TensorRT-LLM runs (v0.5-v0.6.1, 2023) decode with the masked multi-head attention
// kernel, one thread block per query head, so each KV head is read once per query head: 0.
// The XQA kernels that read it once per group came for Llama 2 70B on Hopper in v0.10.0 (its
// release notes); pass 1 for an engine that has them.
constexpr const char* kServeKvGroupReuse = "0";

// Fitted on the fit half's MoE under-load rows only (TensorRT-LLM v1.0 H200, attention DP): the
// share of prompts an attention-DP replica prefills alone while the other groups wait (see
// serve-rate's --attention-dp-serial; 1 is tech blog 10's round-robin worst case, 0 its ADP
// balance). Grid 0 to 1 by 0.1 with `ridge validate --set attention-dp-serial=S`, scored on the six
// fit rows' mean |error| alone (not part of `validate --fit`'s search): 42.3% at 0 (balanced), 18.8%
// at 0.5, 18.1% at 0.6 (the minimum), 19.6% at 0.7, 24.4% at 1 (serial). The held-out MoE rows
// were 53.1% at 0, 32.7% at 1, and are 31.4% at 0.6 (2026-12-06).
constexpr const char* kServeAttentionDpSerial = "0.6";

// ---- fixed assumptions, not fitted ----
// One small all-reduce on NVLink costs about this much before its bytes (launch, the
// synchronisation between the ranks); an assumption of the order nccl-tests and TensorRT-LLM's
// custom all-reduce show for messages of a few kilobytes, not fitted.
constexpr const char* kAllReduceLatency = "10us";

// ---- attention data parallelism and expert parallelism (issue 31, MoE serving under load),
// shared by serve and serve-rate.

std::vector<ParamSpec> parallel_params() {
  return {
      // MoE serving under load (issue 31): attention data parallelism and expert parallelism, as
      // TensorRT-LLM's enable_attention_dp and --ep, SGLang's --enable-dp-attention and --ep-size,
      // vLLM's --data-parallel-size with --enable-expert-parallel.
      count("attention-dp", Unit::kCount,
            "attention data-parallel groups per replica: each group holds the whole attention (and the other "
            "non-expert weights) over tp ÷ N GPUs and the KV of its own share of the batch (1: tensor-parallel "
            "attention; tp: TensorRT-LLM's enable_attention_dp)",
            1, 1024, "1"),
      count("ep", Unit::kCount,
            "expert-parallel ranks per replica: each holds routed experts ÷ ep whole experts, each split over tp ÷ ep "
            "GPUs; tokens reach them by an all-to-all dispatch and come back by a combine (1: experts tensor-parallel)",
            1, 1024, "1"),
      // The same convention as step's --moe-imbalance (calculators_perf.cc): the excess over the mean.
      zero_or_more("moe-imbalance", Unit::kRatio,
                   "load imbalance of the routed experts: the busiest expert-parallel rank's tokens ÷ the mean − 1 "
                   "(stated; 0 = uniform routing); raises that rank's expert GEMMs and the all-to-all it receives",
                   10, "0"),
  };
}

// N groups of tp ÷ N GPUs each run the attention of their own sequences; ep ranks hold the
// routed experts (tp ÷ ep GPUs per expert).
struct ParallelLayout {
  double adp = 1, ep = 1, attn_tp = 1, imbalance = 1;
  bool dp_ep = false;  // anything but tensor-parallel attention and experts
};

Result<ParallelLayout> parallel_layout(const Inputs& in, const ModelArch& m, double tp) {
  ParallelLayout l;
  l.adp = in.number("attention-dp");
  l.ep = in.number("ep");
  l.imbalance = 1 + in.number("moe-imbalance");
  if (std::fmod(tp, l.adp) != 0) {
    return FieldError{"attention-dp", num(l.adp), "does not divide tp (" + num(tp) + ")",
                      "a divisor of tp: 1 (tensor-parallel attention) up to tp (one attention replica per GPU)"};
  }
  l.attn_tp = tp / l.adp;
  if (m.heads % static_cast<int64_t>(l.attn_tp) != 0) {
    return FieldError{"attention-dp", num(l.adp),
                      "leaves " + num(l.attn_tp) + " GPUs per attention group, which does not divide the heads (" +
                          num(m.heads) + ")",
                      "an attention-dp that makes tp ÷ attention-dp a divisor of the head count"};
  }
  if (l.ep > 1 && !m.is_moe()) {
    return FieldError{"ep", num(l.ep), "needs a mixture-of-experts model (" + m.id + " is dense)", "1 for a dense model"};
  }
  if (std::fmod(tp, l.ep) != 0) {
    return FieldError{"ep", num(l.ep), "does not divide tp (" + num(tp) + ")",
                      "a divisor of tp: the replica's GPUs are ep ranks of tp ÷ ep GPUs each"};
  }
  if (m.is_moe() && m.routed_experts % static_cast<int64_t>(l.ep) != 0) {
    return FieldError{"ep", num(l.ep), "does not divide the routed experts (" + num(m.routed_experts) + ")",
                      "a divisor of the routed expert count"};
  }
  l.dp_ep = l.adp > 1 || l.ep > 1;
  return l;
}

// A forward pass's exchanges under attention DP / EP, as fixed seconds plus seconds per token of
// the replica's batch; each term is a derivation step. `busbw_tokens`: the batch whose all-to-all
// message sets the fabric's busbw.
struct LayoutComm {
  double fixed = 0, per_token = 0;
};
LayoutComm layout_comm(const ModelArch& m, const Accelerator& gpu, const ParallelLayout& l, double tp, double link,
                       double ar_latency, double busbw_tokens, Derivation& d) {
  LayoutComm c;
  const double h = static_cast<double>(m.hidden), blocks = static_cast<double>(residual_blocks(m));
  const double allreduce_bw = gpu.scale_up_bandwidth / 2 * link;
  const double a = l.attn_tp;
  // Attention (and dense MLP) blocks: one all-reduce per block inside the attention group of a
  // GPUs, over the group's B ÷ N tokens (2(a − 1)/a × tokens × h × 2 B ÷ link, the ring's bytes).
  const double moe_layers = m.is_moe() ? static_cast<double>(m.moe_layers) : 0;
  const double ar_blocks = blocks - moe_layers;
  if (a > 1) {
    c.fixed += ar_blocks * ar_latency;
    c.per_token += ar_blocks * 2 * (a - 1) / a * h * 2 / allreduce_bw / l.adp;
    d.step("Attention-group all-reduces per token", "blocks without experts × 2(a − 1)/a × h × 2 B ÷ link ÷ N",
           num(ar_blocks) + " × " + num(2 * (a - 1) / a) + " × " + num(h * 2) + " ÷ " +
               q(allreduce_bw, Unit::kBytesPerSecond) + " ÷ " + num(l.adp),
           ar_blocks * 2 * (a - 1) / a * h * 2 / allreduce_bw / l.adp, Unit::kSeconds);
  }
  if (m.is_moe() && tp > 1) {
    // Each MoE layer: a dispatch all-to-all (each GPU sends its B ÷ tp tokens' hidden states,
    // 16-bit, to the k experts' ranks, tp ÷ ep GPUs each) and a combine of the same size back
    // (DeepSpeed-MoE, Rajbhandari et al. 2022; GShard, Lepikhin et al. 2021). nccl-tests'
    // alltoall: time = alpha + (n − 1)/n × bytes ÷ busbw, busbw from the fabric model (the
    // catalog's scale-up domain; NICs when the replica leaves it). The busiest rank receives
    // (1 + imbalance) × the mean. busbw is read at the message of `busbw_tokens`; alpha, added
    // once per collective, carries the small-message cost.
    // A token goes to the GPUs of its k experts, tp ÷ ep GPUs each, one copy per expert (no
    // merging of a token's experts on one rank), and at most to every GPU once (ep 1: an
    // all-gather's worth).
    const double top_k = static_cast<double>(m.experts_per_token);
    const double destinations = std::min(top_k * (tp / l.ep), tp);
    const double per_token_bytes = destinations * h * 2 * l.imbalance / tp;
    const double domain = gpu.has_system() ? gpu.system.scale_up_domain : 8;
    const CollectiveEstimate a2a = estimate_collective(gpu, "alltoall", tp, ranks_per_domain(tp, 1, domain),
                                                       busbw_tokens * per_token_bytes, link, ar_latency);
    const double factor = (tp - 1) / tp;
    d.step("Dispatch + combine all-to-all per step",
           "2 × MoE layers × (alpha + (n − 1)/n × B ÷ tp × min(k × tp ÷ ep, tp) × h × 2 B × (1 + imbalance) ÷ busbw)  (" +
               a2a.explanation + ")",
           "2 × " + num(moe_layers) + " × (" + q(a2a.alpha, Unit::kSeconds) + " + " + num(factor) + " × B × " +
               num(per_token_bytes) + " B ÷ " + q(a2a.busbw, Unit::kBytesPerSecond) + ")  at B = " + num(busbw_tokens),
           2 * moe_layers * (a2a.alpha + factor * busbw_tokens * per_token_bytes / a2a.busbw), Unit::kSeconds);
    c.fixed += 2 * moe_layers * a2a.alpha;
    c.per_token += 2 * moe_layers * factor * per_token_bytes / a2a.busbw;
  }
  return c;
}

std::vector<ParamSpec> serve_params() {
  std::vector<ParamSpec> out = {
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
  for (auto& p : parallel_params()) out.push_back(std::move(p));
  return out;
}

// What serve and serve-rate both start from: the model, the chip, the dtypes, the dense peak of
// the GEMMs (fp8 weights run fp8 GEMMs, anything else bf16) and a tp that divides the heads.
struct ServingSetup {
  const ModelArch* model = nullptr;
  const Accelerator* gpu = nullptr;
  ServingDtypes dtypes;
  Dtype compute = Dtype::kBf16;
  double peak = 0, tp = 0;
};

Result<ServingSetup> serving_setup(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const Accelerator& gpu = *in.gpu();
  auto dtypes = serving_dtypes(in, gpu);
  if (!dtypes) return dtypes.errors();
  const Dtype compute = dtypes->weights == Dtype::kFp8 ? Dtype::kFp8 : Dtype::kBf16;
  auto peak = peak_for(gpu, compute, "weights-dtype");
  if (!peak) return peak.errors();
  const double tp = in.number("tp");
  if (m.heads % static_cast<int64_t>(tp) != 0) {
    return FieldError{"tp", num(tp), "does not divide the attention heads (" + num(m.heads) + ")",
                      "a divisor of the head count"};
  }
  return ServingSetup{&m, &gpu, *dtypes, compute, *peak, tp};
}

Result<Derivation> serve(const Inputs& in, const Catalog& catalog) {
  auto setup = serving_setup(in, catalog);
  if (!setup) return setup.errors();
  const ModelArch& m = *setup->model;
  const Accelerator& gpu = *setup->gpu;
  const ServingDtypes& dtypes = setup->dtypes;
  const Dtype compute = setup->compute;
  const double peak = setup->peak;
  const double tp = setup->tp, batch = in.number("batch"), isl = in.number("input-tokens");
  const double osl = in.number("output-tokens");
  auto layout = parallel_layout(in, m, tp);
  if (!layout) return layout.errors();
  const bool dp_ep = layout->dp_ep;
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
  const double rate = tp * peak * e_pf;
  const double weight_bytes = pc.total * dtype_bytes(dtypes.weights);
  // Weights a GPU reads per pass and holds: tensor-parallel, weights ÷ tp; under attention DP the
  // non-expert weights over the attention group's tp ÷ N GPUs (N copies in the replica), the routed
  // experts over all tp (ep ranks of tp ÷ ep GPUs).
  const double expert_bytes = pc.experts_total * dtype_bytes(dtypes.weights);
  const double weights_gpu = dp_ep ? (weight_bytes - expert_bytes) / layout->attn_tp + expert_bytes / tp : weight_bytes / tp;
  const double kv_copies = std::max(1.0, layout->attn_tp / static_cast<double>(m.kv_heads));
  if (dp_ep) {
    d.step("Weights per GPU (attention DP / EP)", "(params − routed experts) × bytes ÷ (tp ÷ attention-dp) + routed experts × bytes ÷ tp",
           num(weight_bytes - expert_bytes) + " ÷ " + num(layout->attn_tp) + " + " + num(expert_bytes) + " ÷ " + num(tp),
           weights_gpu, Unit::kBytes);
    d.assume("attention data parallelism " + num(layout->adp) + ": each group of " + num(layout->attn_tp) +
             " GPU(s) prefills and decodes its share of the static batch at once; routed experts on " + num(layout->ep) +
             " expert-parallel ranks; the all-to-all's busbw read at the decode batch's message, for the prefill too");
  }
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
  double pf_gemm = d.step("Prefill GEMMs", "max(FLOPs ÷ (tp × peak × e_mm), weights per GPU ÷ (HBM × e_bw))",
                          "max(" + num(pf_gemm_flops) + " ÷ (" + num(tp) + " × " + q(peak, Unit::kFlopPerSecond) +
                              " × " + num(e_pf) + "), " + q(weights_gpu, Unit::kBytes) + " ÷ " +
                              q(bw, Unit::kBytesPerSecond) + ")",
                          std::max(pf_gemm_flops / rate, weights_gpu / bw), Unit::kSeconds);
  const double pf_attn_seq = attention_flops_per_sequence(m, isl);
  double pf_attn_flops = d.step("Prefill attention FLOPs", "batch × attention per sequence  (causal; 2 × L × input² × heads·d for full attention)",
                                num(batch) + " × " + num(pf_attn_seq), batch * pf_attn_seq, Unit::kFlop);
  double pf_attn = d.step("Prefill attention", "FLOPs ÷ (tp × peak × e_mm)",
                          num(pf_attn_flops) + " ÷ (" + num(tp) + " × " + q(peak, Unit::kFlopPerSecond) + " × " +
                              num(e_pf) + ")",
                          pf_attn_flops / rate, Unit::kSeconds);
  double pf_comm = 0;
  const LayoutComm exchange = dp_ep ? layout_comm(m, gpu, *layout, tp, link, ar_latency, batch, d) : LayoutComm{};
  if (dp_ep) {
    pf_comm = d.step("Prefill exchanges", "fixed + per token × batch × input  (the steps above)",
                     q(exchange.fixed, Unit::kSeconds) + " + " + q(exchange.per_token, Unit::kSeconds) + " × " + num(pf_tokens),
                     exchange.fixed + exchange.per_token * pf_tokens, Unit::kSeconds);
  } else if (tp > 1) {
    pf_comm = d.step("Prefill TP all-reduces", "residual blocks (2 × L) × (latency + 2(t−1)/t × batch·input·h·2 B ÷ link)",
                     num(blocks) + " × (" + q(ar_latency, Unit::kSeconds) + " + " + num(2 * (tp - 1) / tp) +
                         " × " + num(pf_tokens * h * 2) + " ÷ " + q(allreduce_bw, Unit::kBytesPerSecond) + ")",
                     allreduces(pf_tokens), Unit::kSeconds);
  }
  double ttft = d.step("Time to first token", "GEMMs + attention + exchanges (TP all-reduces, or the attention-DP / EP ones) + L × per-layer overhead",
                       q(pf_gemm, Unit::kSeconds) + " + " + q(pf_attn, Unit::kSeconds) + " + " + q(pf_comm, Unit::kSeconds) +
                           " + " + num(layers) + " × " + q(overhead, Unit::kSeconds),
                       pf_gemm + pf_attn + pf_comm + layers * overhead, Unit::kSeconds);

  // Decode, at the average context: the GEMMs read every weight once per step (or are
  // compute-bound at a large batch); attention reads the KV cache; they are separate kernels.
  const double ctx = isl + osl / 2;
  double dec_gemm = d.step("Decode GEMMs per step", "max(weights per GPU ÷ (HBM × e_bw), 2 × N × batch ÷ (tp × peak × e_mm))",
                           "max(" + q(weights_gpu, Unit::kBytes) + " ÷ " + q(bw, Unit::kBytesPerSecond) + ", 2 × " +
                               num(matmul_params) + " × " + num(batch) + " ÷ " + q(rate, Unit::kFlopPerSecond) + ")",
                           std::max(weights_gpu / bw, 2 * matmul_params * batch / rate), Unit::kSeconds);
  // Cache read per sequence at the average context: every layer's KV within its bound plus any
  // recurrent state (model.h); KV per token × context for full attention.
  // The recurrent state of linear-attention and Mamba layers is split across the TP ranks by
  // head, never copied, and read once a step (no query groups re-read it): only the attention
  // KV takes the copies and the group re-reads (common.h, cache_held_per_sequence).
  const double kv_seq = kv_elements_per_sequence(m, ctx) * dtype_bytes(dtypes.kv);
  const double state_seq = state_bytes_per_sequence(m, dtype_bytes(dtypes.kv));
  d.step("KV read per step per GPU", "batch × (KV at (input + output/2) × copies + recurrent state) ÷ tp",
                           num(batch) + " × (" + num(kv_seq) + " × " + num(kv_copies) + " + " + num(state_seq) + ") ÷ " + num(tp),
                           batch * (kv_seq * kv_copies + state_seq) / tp, Unit::kBytes);
  double kv_traffic = d.step("KV traffic per step per GPU",
                             "batch × (KV × copies × (1 + (heads per KV head − 1) × (1 − reuse)) + state) ÷ tp",
                             num(batch) + " × (" + num(kv_seq) + " × " + num(kv_copies) + " × (1 + " + num(group - 1) +
                                 " × (1 − " + num(reuse) + ")) + " + num(state_seq) + ") ÷ " + num(tp),
                             batch * (kv_seq * kv_copies * kv_reads + state_seq) / tp, Unit::kBytes);
  const double dec_attn_flops = batch * attention_flops_per_decode_token(m, ctx);
  double dec_attn = d.step("Decode attention per step", "max(KV traffic ÷ (HBM × e_bw), 4 × L × batch × context × heads·d ÷ rate)",
                           "max(" + num(kv_traffic) + " ÷ " + q(bw, Unit::kBytesPerSecond) + ", " + num(dec_attn_flops) +
                               " ÷ " + q(rate, Unit::kFlopPerSecond) + ")",
                           std::max(kv_traffic / bw, dec_attn_flops / rate), Unit::kSeconds);
  double dec_comm = 0;
  if (dp_ep) {
    dec_comm = d.step("Decode exchanges", "fixed + per token × batch  (the steps above)",
                      q(exchange.fixed, Unit::kSeconds) + " + " + q(exchange.per_token, Unit::kSeconds) + " × " + num(batch),
                      exchange.fixed + exchange.per_token * batch, Unit::kSeconds);
  } else if (tp > 1) {
    dec_comm = d.step("Decode TP all-reduces", "residual blocks (2 × L) × (latency + 2(t−1)/t × batch·h·2 B ÷ link)",
                      num(blocks) + " × (" + q(ar_latency, Unit::kSeconds) + " + " + num(2 * (tp - 1) / tp) +
                          " × " + num(batch * h * 2) + " ÷ " + q(allreduce_bw, Unit::kBytesPerSecond) + ")",
                      allreduces(batch), Unit::kSeconds);
  }
  double tpot = d.step("Time per output token", "GEMMs + attention + exchanges (TP all-reduces, or the attention-DP / EP ones) + L × per-layer overhead",
                       q(dec_gemm, Unit::kSeconds) + " + " + q(dec_attn, Unit::kSeconds) + " + " +
                           q(dec_comm, Unit::kSeconds) + " + " + num(layers) + " × " + q(overhead, Unit::kSeconds),
                       dec_gemm + dec_attn + dec_comm + layers * overhead, Unit::kSeconds);
  double request = d.step("Batch latency", "TTFT + (output − 1) × TPOT  (the first token comes out of the prefill)",
                          q(ttft, Unit::kSeconds) + " + " + num(osl - 1) + " × " + q(tpot, Unit::kSeconds),
                          ttft + (osl - 1) * tpot, Unit::kSeconds);
  // Range of validity (issue 33): a static batch holds every sequence's cache at its full length
  // (input + output) beside the weights; past the GPU's memory the batch cannot run at all.
  const double kv_full = batch * (kv_elements_per_sequence(m, isl + osl) * dtype_bytes(dtypes.kv) * kv_copies + state_seq) / tp;
  const double held_gpu = (weight_bytes + (layout->adp - 1) * (weight_bytes - expert_bytes)) / tp;  // N copies of the non-expert weights
  if (held_gpu + kv_full > gpu.memory_bytes) {
    d.assume("warning: weights (" + q(held_gpu, Unit::kBytes) + " per GPU) and the batch's cache at its full length (" +
             q(kv_full, Unit::kBytes) + " per GPU) exceed the " + q(gpu.memory_bytes, Unit::kBytes) + " of one " + gpu.id +
             ": this batch cannot run, the latencies are outside the model's range");
  }
  d.result("ttft_seconds", ttft, Unit::kSeconds);
  d.result("tpot_seconds", tpot, Unit::kSeconds);
  d.result("output_tokens_per_second", batch / tpot, Unit::kTokensPerSecond);
  d.result("output_tokens_per_second_per_gpu", batch / tpot / tp, Unit::kTokensPerSecond);
  d.result("requests_per_second", batch / request, Unit::kCount);
  d.set_conclusion("First token after " + q(ttft, Unit::kSeconds) + ", then one token every " + q(tpot, Unit::kSeconds) +
                   " per sequence.");
  return d;
}

// ---- serve-rate: a deployment at a request rate

std::vector<ParamSpec> serve_rate_params() {
  std::vector<ParamSpec> out = {
      model_param(), config_param(), gpu_param(),
      count("tp", Unit::kCount, "tensor-parallel GPUs per replica (prefill and decode replicas alike)", 1, 1024, "1"),
      number("rate", Unit::kNone,
             "requests per second offered to the whole deployment (Poisson arrivals); or give --concurrency; neither: "
             "maximum load",
             0, 1e7, "",
             false, "4"),
      count("concurrency", Unit::kCount,
            "closed loop instead of a rate: clients each sending a request when their last one ends (genai-perf, NIM "
            "and vLLM --max-concurrency benchmarks)",
            1, 1e7, "", false, "25"),
      count("input-tokens", Unit::kTokens, "mean prompt tokens per request", 1, 1e8, "", true, "2048"),
      count("output-tokens", Unit::kTokens, "mean generated tokens per request", 1, 1e8, "", true, "256"),
      choice("input-lengths", {"fixed", "exponential"}, "fixed", "how prompt lengths vary around the mean"),
      choice("output-lengths", {"fixed", "exponential"}, "fixed",
             "how output lengths vary around the mean (the steady batch depends on the mean only)"),
      choice("deployment", {"aggregated", "disaggregated"}, "aggregated",
             "aggregated: prefill and decode on the same replicas; disaggregated: separate prefill and decode pools"),
      count("replicas", Unit::kCount, "aggregated replicas sharing the rate evenly", 1, 1e5, "1"),
      count("prefill-replicas", Unit::kCount, "disaggregated: replicas in the prefill pool", 1, 1e5, "1"),
      count("decode-replicas", Unit::kCount, "disaggregated: replicas in the decode pool", 1, 1e5, "1"),
      number("kv-transfer-bandwidth", Unit::kBytesPerSecond,
             "disaggregated: bytes/s from a prefill replica to a decode replica (default: the replica's GPUs' NICs "
             "from the catalog system, each rank sending its shard; 50 GB/s per GPU without one)",
             0, 1e15, "", false, "400GB/s"),
      zero_or_more("kv-transfer-latency", Unit::kSeconds,
                   "disaggregated: fixed cost of one KV transfer (assumed 20 us, as a collective's latency)", 1, "20us"),
      optional_zero("ttft-slo", Unit::kSeconds, "p99 time-to-first-token target for the highest rate (0: none)", 1e4),
      optional_zero("tpot-slo", Unit::kSeconds, "p99 time-per-output-token target for the highest rate (0: none)", 1e3),
      count("draft-tokens", Unit::kCount, "speculative decoding: tokens the draft proposes per step, k (0: none)", 0, 64,
            "0"),
      optional_zero("acceptance", Unit::kRatio, "speculative decoding: probability each drafted token is accepted", 1),
      zero_or_more("draft-cost", Unit::kRatio, "speculative decoding: one draft step ÷ one target decode step", 1, "0.05"),
      number("memory-utilization", Unit::kRatio,
             "share of HBM the server may fill with weights and cache (vLLM's gpu_memory_utilization default)", 0, 1,
             "0.9"),
      dtype_param("weights-dtype", "weight storage (fp8 weights also compute in fp8)", "bf16"),
      dtype_param("kv-dtype", "KV-cache storage (default: as the weights)", ""),
      number("bandwidth-efficiency", Unit::kRatio, "share of HBM bandwidth a decode step reaches (fitted, as serve)", 0,
             1, kServeBandwidthEfficiency),
      number("prefill-efficiency", Unit::kRatio, "share of the dense peak the GEMMs reach (fitted, as serve)", 0, 1,
             kServePrefillEfficiency),
      zero_or_more("layer-overhead", Unit::kSeconds, "fixed cost per layer of each forward pass (fitted, as serve)", 1,
                   kServeLayerOverhead),
      number("link-efficiency", Unit::kRatio, "collective bus bandwidth as a share of the link (assumed)", 0, 1,
             kLinkEfficiency),
      zero_or_more("allreduce-latency", Unit::kSeconds, "fixed latency of one small TP all-reduce (assumed 10 us)", 1,
                   kAllReduceLatency),
      // Not the static serve's 0: a deployment today decodes with kernels that read each KV head once
      // for its whole query group (TensorRT-LLM's XQA from v0.10; vLLM's FlashAttention and FlashInfer
      // decode kernels), and every serve-rate run in the ledger is of 2024 or later.
      zero_or_more("kv-group-reuse", Unit::kRatio,
                   "share of a GQA KV head's reads its query heads share (default 1: grouped decode kernels, "
                   "TensorRT-LLM XQA since v0.10, vLLM FlashAttention/FlashInfer)",
                   1, "1"),
      zero_or_more("attention-dp-serial", Unit::kRatio,
             "attention-dp: share of prompts prefilled by one group while every other group waits for it at the MoE "
             "exchange (1: TensorRT-LLM's round-robin worst case, its tech blog 10: an iteration lasts as long as its "
             "slowest rank; 0: the groups prefill together, its ADP balance; fitted on the fit half's MoE rows)",
             1, kServeAttentionDpSerial),
  };
  for (auto& p : parallel_params()) out.push_back(std::move(p));
  return out;
}

Result<Derivation> serve_rate(const Inputs& in, const Catalog& catalog) {
  auto setup = serving_setup(in, catalog);
  if (!setup) return setup.errors();
  const ModelArch& m = *setup->model;
  const Accelerator& gpu = *setup->gpu;
  const ServingDtypes& dtypes = setup->dtypes;
  const double peak = setup->peak;
  const double tp = setup->tp, isl = in.number("input-tokens"), osl = in.number("output-tokens");
  const bool disagg = in.text("deployment") == "disaggregated";
  if (in.has("rate") && in.has("concurrency")) {
    return FieldError{"rate", num(in.number("rate")), "cannot be given with --concurrency",
                      "a Poisson rate in requests/s, or a closed loop's --concurrency, or neither (maximum load)"};
  }
  // Neither: maximum load, as an infinite-rate benchmark (trtllm-bench throughput) drives it.
  const bool max_load = !in.has("rate") && !in.has("concurrency");
  const bool closed = in.has("concurrency");
  auto layout = parallel_layout(in, m, tp);
  if (!layout) return layout.errors();
  const double adp = layout->adp, ep = layout->ep, imbalance = layout->imbalance;
  const double k = in.number("draft-tokens"), accept = in.number("acceptance");
  if (k > 0 && accept <= 0) {
    return FieldError{"acceptance", num(accept), "is needed with --draft-tokens (no token would ever be accepted)",
                      "greater than 0 and at most 1"};
  }
  Derivation d("serve-rate", "Serving " + m.id + " at a request rate");
  describe_model(d, m, in.has("config") ? "config" : "model");
  describe_gpu(d, gpu);
  describe_inputs(d, in, serve_rate_params());
  d.assume("Poisson arrivals; continuous (iteration-level) batching: a sequence joins the running batch at the next "
           "step and leaves after its last token (Yu et al., Orca, OSDI 2022; vLLM)");
  d.assume(disagg ? "disaggregated prefill and decode pools (DistServe, Zhong et al. OSDI 2024; Splitwise, Patel et al. "
                    "ISCA 2024): arrivals split evenly; the prompt's KV cache crosses the fabric before its first decode "
                    "step, not overlapped with the prefill"
                  : "prefill first: a waiting prompt runs as its own forward pass before the next decode step (vLLM's "
                    "scheduler without chunked prefill), so decode stalls for the share of time prefills take");
  d.assume("prefill wait: M/G/1, Pollaczek-Khinchine mean; p99 by the exponential tail P(W > w) = rho × e^(−rho w / W) "
           "(exact for M/M/1; Kingman 1961); steady batch by Little's law; a request's TPOT p99 counts the prefills "
           "landing in its life at the Poisson 99th percentile (m + 2.326 √m)");
  d.assume("each step's kernels cost as in serve: GEMMs at max(weights ÷ bandwidth, FLOPs ÷ rate), the cache read, "
           "two TP all-reduces per layer and a fixed cost per layer; KV length averaged over the output");

  const ParamCount pc = count_params(m);
  const double layers = static_cast<double>(m.layers), h = static_cast<double>(m.hidden);
  const double wbytes = dtype_bytes(dtypes.weights), kvbytes = dtype_bytes(dtypes.kv);
  const double matmul_params = pc.active - (m.tied_embeddings ? 0 : pc.embedding);
  const double bw = gpu.memory_bandwidth * in.number("bandwidth-efficiency");
  const double rate_gpu = peak * in.number("prefill-efficiency");
  const double blocks = static_cast<double>(residual_blocks(m));
  const double ar_latency = in.number("allreduce-latency");
  const double link = in.number("link-efficiency");
  const double allreduce_bw = gpu.scale_up_bandwidth / 2 * link;
  // Attention data parallelism: the attention runs tensor-parallel over a = tp ÷ N GPUs, so a KV
  // head is copied only when a exceeds the KV heads (N = tp: one copy, whatever the model).
  const double attn_tp = layout->attn_tp;
  const bool dp_ep = layout->dp_ep;
  const double kv_copies = std::max(1.0, attn_tp / static_cast<double>(m.kv_heads));
  const double group = static_cast<double>(m.heads / m.kv_heads);
  const double kv_reads = m.is_mla() ? 1 : 1 + (group - 1) * (1 - in.number("kv-group-reuse"));
  if (dp_ep) {
    d.assume("attention data parallelism " + num(adp) + " × tensor parallelism " + num(attn_tp) +
             " for the attention and every non-expert weight (embeddings, norms, shared experts, dense MLPs: "
             "TensorRT-LLM's enable_attention_dp replicates them too), each group holding its own sequences' KV; "
             "the scheduler balances the sequences over the groups; routed experts on " + num(ep) +
             " expert-parallel ranks of " + num(tp / ep) + " GPUs each");
  }

  serving::DecodeCost dc;
  dc.bandwidth = bw;
  dc.flop_rate = rate_gpu;
  dc.imbalance = imbalance;
  const double non_expert = pc.total - pc.experts_total;
  if (m.is_moe()) {
    const double routed = static_cast<double>(m.routed_experts);
    dc.experts = routed;
    dc.top_k = static_cast<double>(m.experts_per_token);
    // With ep ranks a GPU holds E ÷ ep experts, each split over tp ÷ ep GPUs, and the batch touches
    // each of them with probability 1 − (1 − k/E)^T: (E ÷ ep) × share × (expert ÷ (tp ÷ ep)) =
    // E × share × expert ÷ tp, the same bytes per GPU as tensor-parallel experts in expectation.
    dc.expert_bytes = d.step("One routed expert's weights per GPU, all MoE layers",
                             dp_ep ? "routed experts' params ÷ E × bytes ÷ tp  (E ÷ ep experts per rank, each over tp ÷ ep GPUs)"
                                   : "routed experts' params ÷ E × bytes ÷ tp",
                             num(pc.experts_total) + " ÷ " + num(routed) + " × " + num(wbytes) + " ÷ " + num(tp),
                             pc.experts_total / routed * wbytes / tp, Unit::kBytes);
    dc.expert_flops_per_token = 2 * dc.top_k * pc.experts_total / routed / tp;
    dc.dense_weight_bytes = d.step("Weights every step reads per GPU",
                                   dp_ep ? "(params − routed experts) × bytes ÷ (tp ÷ attention-dp)"
                                         : "(params − routed experts) × bytes ÷ tp",
                                   "(" + num(pc.total) + " − " + num(pc.experts_total) + ") × " + num(wbytes) + " ÷ " +
                                       num(attn_tp),
                                   non_expert * wbytes / attn_tp, Unit::kBytes);
    d.assume("MoE decode reads only the experts its tokens touch: E × (1 − (1 − k/E)^tokens) per layer under uniform "
             "routing (a skewed router touches fewer)");
  } else {
    dc.dense_weight_bytes = d.step("Weights a step reads per GPU", dp_ep ? "params × bytes ÷ (tp ÷ attention-dp)" : "params × bytes ÷ tp",
                                   num(pc.total) + " × " + num(wbytes) + " ÷ " + num(attn_tp), pc.total * wbytes / attn_tp,
                                   Unit::kBytes);
  }
  const double ctx = isl + osl / 2;
  dc.flops_per_token = d.step("Decode FLOPs per token per GPU", "(2 × active matmul params + attention at input + output/2) ÷ tp",
                              "(2 × " + num(matmul_params) + " + " + num(attention_flops_per_decode_token(m, ctx)) + ") ÷ " + num(tp),
                              (2 * matmul_params + attention_flops_per_decode_token(m, ctx)) / tp, Unit::kFlop);
  // Recurrent state (linear attention, Mamba) is split across TP ranks, not copied, and read once.
  // Under attention DP a group of a GPUs holds B ÷ N sequences: per GPU (B ÷ N) × cache ÷ a = B × cache ÷ tp.
  const double kv_seq = kv_elements_per_sequence(m, ctx) * kvbytes, state_seq = state_bytes_per_sequence(m, kvbytes);
  dc.kv_bytes_per_sequence = d.step("Cache traffic per sequence per step per GPU",
                                    "(KV at (input + output/2) × copies × (1 + (group − 1)(1 − reuse)) + state) ÷ tp",
                                    "(" + num(kv_seq) + " × " + num(kv_copies) + " × " + num(kv_reads) + " + " + num(state_seq) +
                                        ") ÷ " + num(tp),
                                    (kv_seq * kv_copies * kv_reads + state_seq) / tp, Unit::kBytes);

  // The batch the KV cache holds: what the weights leave of the replica's usable HBM, over the
  // cache of one sequence at its full length. Attention DP keeps N copies of the non-expert weights.
  const double usable = tp * gpu.memory_bytes * in.number("memory-utilization");
  const double weights_all = (non_expert * adp + pc.experts_total) * wbytes;
  const double cache_full = kv_elements_per_sequence(m, isl + osl) * kvbytes * kv_copies + state_seq;
  if (weights_all >= usable) {
    return FieldError{"tp", num(tp), "leaves no room for a KV cache: the weights (" + q(weights_all, Unit::kBytes) +
                                         (adp > 1 ? ", the non-expert ones " + num(adp) + " times" : std::string()) +
                                         ") fill the replica's usable " + q(usable, Unit::kBytes),
                      "a larger tp, a smaller weights dtype, a smaller attention-dp or a higher --memory-utilization"};
  }
  double max_batch = d.step("Sequences the KV cache holds per replica",
                            adp > 1 ? "(tp × HBM × utilisation − (non-expert × attention-dp + experts) × bytes) ÷ cache per sequence at input + output"
                                    : "(tp × HBM × utilisation − weights) ÷ cache per sequence at input + output",
                            "(" + q(usable, Unit::kBytes) + " − " + q(weights_all, Unit::kBytes) + ") ÷ " +
                                q(cache_full, Unit::kBytes),
                            std::floor((usable - weights_all) / cache_full), Unit::kCount);
  if (max_batch < 1) {
    return FieldError{"input-tokens", num(isl), "with the output leaves a sequence whose cache (" +
                                                    q(cache_full, Unit::kBytes) + ") does not fit beside the weights",
                      "fewer tokens, a larger tp or a smaller kv-dtype"};
  }

  dc.fixed_seconds = layers * in.number("layer-overhead");
  if (!dp_ep) {
    dc.fixed_seconds += tp > 1 ? blocks * ar_latency : 0;
    dc.comm_seconds_per_token = tp > 1 ? blocks * 2 * (tp - 1) / tp * h * 2 / allreduce_bw : 0;
  } else {
    const LayoutComm c = layout_comm(m, gpu, *layout, tp, link, ar_latency, max_batch, d);
    dc.fixed_seconds += c.fixed;
    dc.comm_seconds_per_token = c.per_token;
  }

  // Prefill as a line in the prompt length, exact at the mean: the GEMMs at their roofline and the
  // attention at the mean prompt's per-token cost make the slope; the weight read, if it is the
  // slower side at the mean, and the fixed costs make the intercept. Under attention DP the N groups
  // prefill their own prompts: pooled as one server at the replica's rate (M/G/1 in place of
  // M/G/N, which underprices one prompt's latency at a low rate).
  // Attention DP, serial prefill (TensorRT-LLM tech blog 10, "ADP Balance Strategy": under in-flight
  // batching an iteration lasts as long as its slowest rank, and with the round-robin default one
  // rank's context holds every rank's generation): a prompt's attention and non-expert GEMMs run on
  // its group's a = tp ÷ N GPUs while the replica waits; its routed experts still spread over the ep
  // ranks. So the stall a prompt costs is its non-expert and attention FLOPs ÷ a, experts ÷ tp.
  // A share s of the prompts is prefilled alone (s = --attention-dp-serial), the rest with every
  // group at once (the pooled rate): per token s × serial + (1 − s) × pooled.
  const double serial = adp > 1 ? in.number("attention-dp-serial") : 0;
  const double expert_active = m.is_moe() ? dc.top_k * pc.experts_total / dc.experts : 0;
  const double pooled_gemm = 2 * matmul_params / tp / rate_gpu;
  const double serial_gemm = (2 * (matmul_params - expert_active) / attn_tp + 2 * expert_active * imbalance / tp) / rate_gpu;
  const double attn_pooled = attention_flops_per_sequence(m, isl) / isl / tp / rate_gpu;
  const double gemm_token = serial > 0 ? d.step("Prefill GEMM time per prompt token (attention DP)",
                                                "s × (2 × (active matmul − routed active) ÷ a + 2 × routed active × (1 + imbalance) ÷ tp) ÷ rate "
                                                "+ (1 − s) × 2 × active matmul ÷ tp ÷ rate",
                                                num(serial) + " × (2 × " + num(matmul_params - expert_active) + " ÷ " + num(attn_tp) +
                                                    " + 2 × " + num(expert_active) + " × " + num(imbalance) + " ÷ " + num(tp) +
                                                    ") ÷ " + q(rate_gpu, Unit::kFlopPerSecond) + " + " + num(1 - serial) + " × " +
                                                    q(pooled_gemm, Unit::kSeconds),
                                                serial * serial_gemm + (1 - serial) * pooled_gemm, Unit::kSeconds)
                                       : pooled_gemm;
  const double attn_token = attn_pooled * (1 + serial * (adp - 1));  // ÷ a instead of ÷ tp for the serial share
  if (adp > 1) {
    d.assume("attention DP prefill: a share " + num(serial) + " of the prompts runs on its group's " + num(attn_tp) +
             " GPU(s) while every group's decode waits for it (TensorRT-LLM tech blog 10: the iteration is as long as "
             "its slowest rank; the round-robin default serialises prompts that arrive one at a time), the rest with "
             "every group prefilling at once (the pooled rate)");
  }
  const double weights_read = (m.is_moe() ? dc.dense_weight_bytes + dc.expert_bytes * serving::experts_touched(
                                                                        dc.experts, dc.top_k, isl)
                                          : dc.dense_weight_bytes) / bw;
  serving::PrefillCost pf;
  pf.per_token_seconds = gemm_token + attn_token + dc.comm_seconds_per_token;
  pf.fixed_seconds = dc.fixed_seconds + std::max(0.0, weights_read - gemm_token * isl);
  double s_mean = d.step("One prompt's prefill at the mean length",
                         "max(GEMM FLOPs ÷ rate, weights ÷ bandwidth) + attention + all-reduces + L × overhead",
                         num(isl) + " tokens × " + q(pf.per_token_seconds, Unit::kSeconds) + " + " +
                             q(pf.fixed_seconds, Unit::kSeconds),
                         serving::prefill_seconds(pf, isl), Unit::kSeconds);
  serving::Load load;
  load.input_tokens = isl;
  load.output_tokens = osl;
  load.input_lengths = in.text("input-lengths") == "exponential" ? serving::Lengths::kExponential : serving::Lengths::kFixed;
  load.output_lengths = in.text("output-lengths") == "exponential" ? serving::Lengths::kExponential : serving::Lengths::kFixed;
  load.max_batch = max_batch;
  const serving::Speculation spec{k, accept, in.number("draft-cost")};
  const double E = serving::tokens_per_step(spec);
  if (k > 0) {
    d.step("Tokens per speculative step", "(1 − a^(k+1)) ÷ (1 − a)  (Leviathan et al. 2023)",
           "(1 − " + num(accept) + "^" + num(k + 1) + ") ÷ (1 − " + num(accept) + ")", E, Unit::kNone);
  }
  const serving::Slo slo{in.number("ttft-slo"), in.number("tpot-slo")};
  const double concurrency = in.number("concurrency");
  serving::LoadPoint p;
  double gpus = 0, sat = 0, best = 0;
  serving::Disaggregation dis;
  if (disagg) {
    dis.prefill_replicas = in.number("prefill-replicas");
    dis.decode_replicas = in.number("decode-replicas");
    // Each rank ships its own shard of the cache over its own NIC (rail-aligned), so a replica's
    // transfer runs at tp × the per-GPU share of the system's scale-out NICs.
    const double per_gpu = gpu.has_system() && gpu.system.scale_out_bandwidth() > 0 ? gpu.system.scale_out_bandwidth() : 50e9;
    dis.transfer_bandwidth = in.has("kv-transfer-bandwidth") ? in.number("kv-transfer-bandwidth") : tp * per_gpu;
    dis.transfer_latency = in.number("kv-transfer-latency");
    dis.kv_bytes_per_prompt_token = (kv_elements_per_sequence(m, isl) * kvbytes * kv_copies + state_seq) / isl;
    d.step("KV transfer bandwidth per replica", "tp × NIC share per GPU (or as given)",
           in.has("kv-transfer-bandwidth") ? q(dis.transfer_bandwidth, Unit::kBytesPerSecond)
                                           : num(tp) + " × " + q(per_gpu, Unit::kBytesPerSecond),
           dis.transfer_bandwidth, Unit::kBytesPerSecond);
    gpus = (dis.prefill_replicas + dis.decode_replicas) * tp;
    sat = serving::max_rate_disaggregated(dc, pf, spec, load, dis, {});
    load.rate = max_load ? sat : in.number("rate");
    p = closed ? serving::closed_loop_disaggregated(dc, pf, spec, load, dis, concurrency, sat)
               : serving::disaggregated(dc, pf, spec, load, dis);
    if (slo.ttft_p99 > 0 || slo.tpot_p99 > 0) best = serving::max_rate_disaggregated(dc, pf, spec, load, dis, slo);
  } else {
    const double replicas = in.number("replicas");
    gpus = replicas * tp;
    sat = serving::max_rate_aggregated(dc, pf, spec, load, {}, replicas);
    load.rate = (max_load ? sat : in.number("rate")) / replicas;
    p = closed ? serving::closed_loop_aggregated(dc, pf, spec, load, concurrency / replicas, sat / replicas)
               : serving::aggregated(dc, pf, spec, load);
    p.rate *= replicas;
    if (slo.ttft_p99 > 0 || slo.tpot_p99 > 0) best = serving::max_rate_aggregated(dc, pf, spec, load, slo, replicas);
  }
  const double rate = p.rate;
  if (closed) {
    d.step("Rate the clients make", "C ÷ (TTFT + (output − 1) × TPOT)  (Little's law over the clients" +
               std::string(p.saturated ? "; saturated: the rest wait in the queue)" : ")"),
           num(concurrency) + " ÷ (" + q(p.ttft_mean, Unit::kSeconds) + " + " + num(osl - 1) + " × " +
               q(p.tpot_mean, Unit::kSeconds) + ")",
           rate, Unit::kNone);
  }
  if (!p.stable) {
    return FieldError{closed ? "concurrency" : "rate", num(closed ? concurrency : in.number("rate")), "saturates the deployment: " + p.why,
                      "below " + num(std::floor(sat * 1000) / 1000) + " requests/s for this deployment"};
  }
  d.step("Prefill utilisation", "rate per prefill replica × prefill time", num(rate / (disagg ? dis.prefill_replicas : in.number("replicas"))) +
         " × " + q(s_mean, Unit::kSeconds), p.prefill_utilisation, Unit::kRatio);
  d.step("Steady decode batch per replica", "B = rate per replica × output ÷ tokens per step × step(B)" +
         std::string(disagg ? "" : " ÷ (1 − rho)"), "solved: step(B) = " + q(p.step_seconds, Unit::kSeconds), p.batch,
         Unit::kCount);
  if (disagg) {
    d.step("KV transfer of a mean prompt", "latency + input × KV per token ÷ bandwidth",
           q(dis.transfer_latency, Unit::kSeconds) + " + " + num(isl) + " × " + q(dis.kv_bytes_per_prompt_token, Unit::kBytes) +
               " ÷ " + q(dis.transfer_bandwidth, Unit::kBytesPerSecond),
           p.kv_transfer_seconds, Unit::kSeconds);
  }
  d.step("TTFT mean", disagg ? "wait + prefill + transfer" : "wait + prefill + (1 − rho) × half a decode step",
         "W = rate × E[S²] ÷ (2(1 − rho))", p.ttft_mean, Unit::kSeconds);
  d.step("TTFT p99", "W ÷ rho × ln(rho ÷ 0.01) + prefill of the p99 prompt" +
         std::string(disagg ? " + its transfer" : " + one decode step"), "", p.ttft_p99, Unit::kSeconds);
  d.step("TPOT mean", disagg ? "step ÷ tokens per step" : "step ÷ tokens per step ÷ (1 − rho)", "", p.tpot_mean, Unit::kSeconds);
  d.step("TPOT p99", disagg ? "as the mean: no prefill stalls a decode replica"
                            : "step ÷ tokens per step + (m + 2.326 √m) × prefill ÷ output, m = rate × life",
         "", p.tpot_p99, Unit::kSeconds);
  d.result("ttft_mean_seconds", p.ttft_mean, Unit::kSeconds);
  d.result("ttft_p99_seconds", p.ttft_p99, Unit::kSeconds);
  d.result("tpot_mean_seconds", p.tpot_mean, Unit::kSeconds);
  d.result("tpot_p99_seconds", p.tpot_p99, Unit::kSeconds);
  d.result("batch_per_replica", p.batch, Unit::kCount);
  d.result("max_batch_per_replica", max_batch, Unit::kCount);
  d.result("prefill_utilisation", p.prefill_utilisation, Unit::kRatio);
  d.result("kv_transfer_seconds", p.kv_transfer_seconds, Unit::kSeconds);
  d.result("gpus", gpus, Unit::kCount);
  d.result("output_tokens_per_second_per_gpu", rate * osl / gpus, Unit::kTokensPerSecond);
  d.result("saturation_rate", sat, Unit::kNone);
  d.result("rate", rate, Unit::kNone);
  d.result("saturation_output_tokens_per_second", sat * osl, Unit::kTokensPerSecond);
  if (best > 0 || slo.ttft_p99 > 0 || slo.tpot_p99 > 0) d.result("max_rate_within_slo", best, Unit::kNone);
  d.set_conclusion("At " + num(rate) + " requests/s: TTFT " + q(p.ttft_mean, Unit::kSeconds) + " mean, " +
                   q(p.ttft_p99, Unit::kSeconds) + " p99; TPOT " + q(p.tpot_mean, Unit::kSeconds) + " mean, " +
                   q(p.tpot_p99, Unit::kSeconds) + " p99; the deployment saturates at " +
                   num(std::floor(sat * 100) / 100) + " requests/s.");
  return d;
}

}  // namespace

void register_serve_calculators(Registry& r) {
  r.add({"serve", "Serving latency (TTFT, TPOT) and throughput of a static batch", serve_params(),
         {"ttft_seconds", "tpot_seconds", "output_tokens_per_second", "output_tokens_per_second_per_gpu",
          "requests_per_second"},
         "--model llama-3.1-70b --gpu h100-sxm --tp 4 --batch 64 --input-tokens 2048 --output-tokens 128", serve});
  r.add({"serve-rate",
         "Serving at a request rate: continuous batching, TTFT and TPOT mean and p99, disaggregated pools, MoE "
         "routing, speculative decoding, the highest rate within an SLO",
         serve_rate_params(),
         {"ttft_mean_seconds", "ttft_p99_seconds", "tpot_mean_seconds", "tpot_p99_seconds", "batch_per_replica",
          "max_batch_per_replica", "prefill_utilisation", "kv_transfer_seconds", "gpus",
          "output_tokens_per_second_per_gpu", "saturation_rate", "rate", "saturation_output_tokens_per_second",
          "max_rate_within_slo"},
         "--model llama-3.1-70b --gpu h100-sxm --tp 4 --rate 4 --input-tokens 2048 --output-tokens 256", serve_rate});
}

}  // namespace ridge::calc
