// Performance model, serving: the latency and throughput of a static batch (`serve`, the
// roofline of one prefill and one decode step, validated by `ridge validate` against
// data/published-runs.toml) and of a deployment at a request rate (`serve-rate`: continuous
// batching, p99 from a stated queueing model, disaggregated pools, MoE routing, speculative
// decoding; the model itself is serving_model.h, one function per prediction).
// The constants and what serve and serve-rate share are in serve_internal.h.
#include <algorithm>
#include <cmath>

#include "calc/serve_internal.h"

namespace ridge::calc {
namespace {

using namespace detail;
using namespace serve_detail;

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
      allreduce_param(),
      zero_or_more("kv-group-reuse", Unit::kRatio,
                   "share of a GQA KV head's reads its query heads share in decode (assumed 0: a decode kernel per "
                   "query head, as TensorRT-LLM before XQA; 1 = read once per group)", 1,
                   kServeKvGroupReuse),
  };
  for (auto& p : parallel_params()) out.push_back(std::move(p));
  for (auto& p : gemm_tile_params()) out.push_back(std::move(p));
  return out;
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
  // One TP all-reduce of `tokens` hidden states per residual block: the custom kernel's latency
  // plus the ring's 2(t−1)/t bytes, or NCCL from the fabric model (--allreduce; serve_internal.h).
  const bool nccl = in.text("allreduce") == "nccl";
  auto allreduces = [&](double tokens) {
    return tp > 1 ? blocks * tp_allreduce(in, gpu, tp, tokens * h * 2, link, ar_latency).seconds : 0.0;
  };
  // The derivation's line for one phase's all-reduces.
  auto allreduce_step = [&](const std::string& label, const std::string& what, double tokens) {
    if (!nccl) {
      return d.step(label, "residual blocks (2 × L) × (latency + 2(t−1)/t × " + what + "·h·2 B ÷ link)",
                    num(blocks) + " × (" + q(ar_latency, Unit::kSeconds) + " + " + num(2 * (tp - 1) / tp) + " × " +
                        num(tokens * h * 2) + " ÷ " + q(allreduce_bw, Unit::kBytesPerSecond) + ")",
                    allreduces(tokens), Unit::kSeconds);
    }
    const CollectiveEstimate e = tp_allreduce(in, gpu, tp, tokens * h * 2, link, ar_latency);
    return d.step(label, "residual blocks (2 × L) × max(alpha, 2(t−1)/t × " + what + "·h·2 B ÷ NCCL busbw)  (" +
                             e.explanation + ")",
                  num(blocks) + " × max(" + q(e.alpha, Unit::kSeconds) + ", " + num(2 * (tp - 1) / tp) + " × " +
                      num(tokens * h * 2) + " ÷ " + q(e.busbw, Unit::kBytesPerSecond) + ")",
                  allreduces(tokens), Unit::kSeconds);
  };

  // Prefill: the GEMMs at the roofline, attention on top (a separate kernel), the TP all-reduces
  // and a fixed cost per layer.
  const double pf_tokens = batch * isl;
  const double pf_gemm_flops = d.step("Prefill GEMM FLOPs", "2 × N × batch × input",
                                "2 × " + num(matmul_params) + " × " + num(batch) + " × " + num(isl),
                                2 * matmul_params * pf_tokens, Unit::kFlop);
  // perf8s: a dense model's GEMMs by tiles and waves on the chip's SMs (gemm_waves.h): a short
  // prefill's few rows leave SMs idle, which the FLOP count at a share of peak does not see.
  const WavePricing wave = dp_ep ? WavePricing{}
                                 : price_pass_gemms(in, m, gpu, tp, pf_tokens, peak * e_pf, dtype_bytes(dtypes.weights), bw);
  double pf_gemm = wave.on ? d.step("Prefill GEMMs (tiles and waves)", wave.formula, wave.substituted, wave.seconds,
                                    Unit::kSeconds)
                           : d.step("Prefill GEMMs", "max(FLOPs ÷ (tp × peak × e_mm), weights per GPU ÷ (HBM × e_bw))",
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
    pf_comm = allreduce_step("Prefill TP all-reduces", "batch·input", pf_tokens);
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
    dec_comm = allreduce_step("Decode TP all-reduces", "batch", batch);
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
          "max_batch_per_replica", "prefill_utilisation", "kv_transfer_seconds", "handoff_seconds", "gpus",
          "output_tokens_per_second_per_gpu", "saturation_rate", "rate", "saturation_output_tokens_per_second",
          "max_rate_within_slo"},
         "--model llama-3.1-70b --gpu h100-sxm --tp 4 --rate 4 --input-tokens 2048 --output-tokens 256", serve_rate});
}

}  // namespace ridge::calc
