// What `serve` and `serve-rate` share (declared in serve_internal.h): attention data parallelism
// and expert parallelism (the layout, its parameters and its exchanges per forward pass) and the
// setup both start from.
#include <algorithm>
#include <cmath>

#include "calc/gemm_waves.h"
#include "calc/serve_internal.h"

namespace ridge::calc::serve_detail {

// ---- attention data parallelism and expert parallelism (issue 31, MoE serving under load),
// shared by serve and serve-rate.

ParamSpec allreduce_param() {
  return choice("allreduce", {"custom", "nccl"}, "custom",
                "the engine's TP all-reduce: custom (a one-shot/two-shot kernel over NVLink: TensorRT-LLM since its "
                "custom all-reduce became the default, SGLang, vLLM; --allreduce-latency + bytes at the link), nccl "
                "(NCCL, from the system's measured nccl-tests busbw at the message size: TensorRT-LLM v0.5-v0.6 "
                "engines built without --use_custom_all_reduce)");
}

CollectiveEstimate tp_allreduce(const Inputs& in, const Accelerator& gpu, double tp, double bytes, double link,
                                double latency) {
  if (in.text("allreduce") == "nccl") return estimate_collective(gpu, "all_reduce", tp, tp, bytes, link, latency);
  // The custom kernel: one latency and the ring's 2(t − 1)/t of the bytes at the link's share.
  CollectiveEstimate e;
  e.alpha = latency;
  e.busbw = gpu.scale_up_bandwidth / 2 * link;
  e.seconds = tp > 1 ? latency + 2 * (tp - 1) / tp * bytes / e.busbw : 0;
  e.explanation = "custom all-reduce over NVLink";
  return e;
}

// ---- the prefill's GEMMs by tiles and waves (perf8s, issue 31; gemm_waves.h)

std::vector<ParamSpec> gemm_tile_params() {
  return {
      zero_or_more("gemm-tile-m", Unit::kCount,
                   "rows of one thread block's output tile in the prefill's GEMMs: the GEMMs run in waves of tiles "
                   "over the chip's SMs (0: priced by their FLOPs, no tiles)",
                   1024, kServeGemmTileM),
      zero_or_more("gemm-tile-n", Unit::kCount, "columns of that tile (0: priced by their FLOPs, no tiles)", 1024,
                   kServeGemmTileN),
  };
}

WavePricing price_pass_gemms(const Inputs& in, const ModelArch& m, const Accelerator& gpu, double tp, double rows,
                             double gemm_rate, double weight_bytes, double bandwidth) {
  WavePricing w;
  const waves::Tile tile{in.number("gemm-tile-m"), in.number("gemm-tile-n")};
  const std::vector<waves::Gemm> gemms = waves::dense_transformer_gemms(m, tp);
  if (gemms.empty() || gpu.sm_count <= 0 || tile.m <= 0 || tile.n <= 0 || rows <= 0) return w;
  w.on = true;
  const double sms = gpu.sm_count, sm_rate = gemm_rate / sms;
  w.formula = "Σ over the GEMMs of count × max(waves × 2 × tm × tn × K ÷ (rate ÷ SMs), N × K × bytes ÷ bandwidth), "
              "waves = ⌈⌈M ÷ tm⌉ × ⌈N ÷ tn⌉ ÷ SMs⌉, M = " + num(rows) + " rows, tile " + num(tile.m) + " × " +
              num(tile.n) + ", " + num(sms) + " SMs";
  for (const waves::Gemm& g : gemms) {
    const waves::Priced p = waves::price(rows, g, tile, sms, sm_rate, weight_bytes, bandwidth);
    w.seconds += p.seconds;
    if (!w.substituted.empty()) w.substituted += " + ";
    w.substituted += g.name + " (N " + num(g.n) + ", K " + num(g.k) + ": " + num(p.tiles) + " tiles, " + num(p.waves) +
                     (p.waves == 1 ? " wave" : " waves") + (g.count > 1 ? ", × " + num(g.count) : "") + ") " +
                     q(p.seconds, Unit::kSeconds);
  }
  return w;
}

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

Result<ServingSetup> serving_setup(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const Accelerator& gpu = *in.gpu();
  auto dtypes = serving_dtypes(in, gpu);
  if (!dtypes) return dtypes.errors();
  // A checkpoint shipped in fp8 (quantization_config) runs fp8 GEMMs when no --weights-dtype
  // overrides it (serve-rate's default is as shipped); MXFP4 experts on Hopper dequantize to bf16.
  const bool shipped_fp8 = !in.has("weights-dtype") && m.shipped.method == "fp8";
  const Dtype compute = dtypes->weights == Dtype::kFp8 || shipped_fp8 ? Dtype::kFp8 : Dtype::kBf16;
  auto peak = peak_for(gpu, compute, "weights-dtype");
  if (!peak) return peak.errors();
  const double tp = in.number("tp");
  if (m.heads % static_cast<int64_t>(tp) != 0) {
    return FieldError{"tp", num(tp), "does not divide the attention heads (" + num(m.heads) + ")",
                      "a divisor of the head count"};
  }
  return ServingSetup{&m, &gpu, *dtypes, compute, *peak, tp};
}

}  // namespace ridge::calc::serve_detail
