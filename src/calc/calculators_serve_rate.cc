// Performance model, serving at a request rate (`serve-rate`): continuous batching, p99 from a
// stated queueing model, disaggregated pools, MoE routing, speculative decoding; the model
// itself is serving_model.h, one function per prediction. `serve` (a static batch) is
// calculators_serve.cc; what both share is serve_internal.h.
#include <algorithm>
#include <cmath>

#include "calc/serve_internal.h"

namespace ridge::calc::serve_detail {

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
      zero_or_more("handoff-latency", Unit::kSeconds,
                   "disaggregated: fixed cost per request of the handoff from the prefill to the decode server beyond "
                   "the transfer (router hops, bootstrap, the CPU all-reduce of each poll; fitted on the fit half's "
                   "disaggregated TTFT rows)",
                   10, kServePdHandoffLatency),
      zero_or_more("handoff-decode-steps", Unit::kCount,
                   "disaggregated: decode steps a request waits between its KV landing and its first token (SGLang's "
                   "decode server: half a step for the handshake poll, half for the transfer poll, one for the "
                   "PrebuiltExtendBatch that joins it)",
                   100, kServePdHandoffDecodeSteps),
      optional_zero("ttft-slo", Unit::kSeconds, "p99 time-to-first-token target for the highest rate (0: none)", 1e4),
      optional_zero("tpot-slo", Unit::kSeconds, "p99 time-per-output-token target for the highest rate (0: none)", 1e3),
      count("draft-tokens", Unit::kCount, "speculative decoding: tokens the draft proposes per step, k (0: none)", 0, 64,
            "0"),
      optional_zero("acceptance", Unit::kRatio, "speculative decoding: probability each drafted token is accepted", 1),
      zero_or_more("draft-cost", Unit::kRatio, "speculative decoding: one draft step ÷ one target decode step", 1, "0.05"),
      number("memory-utilization", Unit::kRatio,
             "share of HBM the server may fill with weights and cache (vLLM's gpu_memory_utilization default)", 0, 1,
             "0.9"),
      dtype_param("weights-dtype",
                  "storage of every weight (fp8 weights also compute in fp8; default: as the checkpoint ships them, "
                  "its quantization_config, each tensor class at its own width, else bf16)",
                  ""),
      dtype_param("kv-dtype", "KV-cache storage (default: as the weights)", ""),
      number("bandwidth-efficiency", Unit::kRatio, "share of HBM bandwidth a decode step reaches (fitted, as serve)", 0,
             1, kServeBandwidthEfficiency),
      number("prefill-efficiency", Unit::kRatio, "share of the dense peak the GEMMs reach (fitted, as serve)", 0, 1,
             kServePrefillEfficiency),
      zero_or_more("layer-overhead", Unit::kSeconds, "fixed cost per layer of each forward pass (fitted, as serve)", 1,
                   kServeLayerOverhead),
      zero_or_more("moe-layer-overhead", Unit::kSeconds,
                   "fixed cost per MoE layer of each forward pass beyond layer-overhead: the routing's kernels a dense MLP "
                   "does not launch (router GEMM, top-k, the sort and gather of token indices, the grouped GEMMs' "
                   "scatter and combine; fitted on the fit half's MoE rows)",
                   1, kServeMoeLayerOverhead),
      number("link-efficiency", Unit::kRatio, "collective bus bandwidth as a share of the link (assumed)", 0, 1,
             kLinkEfficiency),
      zero_or_more("allreduce-latency", Unit::kSeconds, "fixed latency of one small TP all-reduce (assumed 10 us)", 1,
                   kAllReduceLatency),
      allreduce_param(),
      // Not the static serve's 0: a deployment today decodes with kernels that read each KV head once
      // for its whole query group (TensorRT-LLM's XQA from v0.10; vLLM's FlashAttention and FlashInfer
      // decode kernels), and every serve-rate run in the ledger is of 2024 or later.
      zero_or_more("kv-group-reuse", Unit::kRatio,
                   "share of a GQA KV head's reads its query heads share (default 1: grouped decode kernels, "
                   "TensorRT-LLM XQA since v0.10, vLLM FlashAttention/FlashInfer)",
                   1, "1"),
      number("expert-bandwidth-efficiency", Unit::kRatio,
             "share of HBM bandwidth the routed experts' grouped GEMMs reach reading their weights in a decode step "
             "(a few tokens per expert; experts in 8 or 16 bits; fitted on the fit half's MoE rows)",
             0, 1, kServeExpertBandwidthEfficiency),
      number("expert-bandwidth-efficiency-4bit", Unit::kRatio,
             "the same share for experts in 4 bits (int4, fp4: weight-only kernels that dequantize as they read; "
             "fitted on the fit half's MoE rows in 4 bits)",
             0, 1, kServeExpertBandwidthEfficiency4bit),
      zero_or_more("attention-dp-serial", Unit::kRatio,
             "attention-dp: share of prompts prefilled by one group while every other group waits for it at the MoE "
             "exchange (1: TensorRT-LLM's round-robin worst case, its tech blog 10: an iteration lasts as long as its "
             "slowest rank; 0: the groups prefill together, its ADP balance; fitted on the fit half's MoE rows)",
             1, kServeAttentionDpSerial),
  };
  for (auto& p : parallel_params()) out.push_back(std::move(p));
  for (auto& p : gemm_tile_params()) out.push_back(std::move(p));
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
  auto storage = weight_storage(m, in);
  if (!storage) return storage.errors();
  describe_inputs(d, in, serve_rate_params(), implied_weights(*storage));
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
  const double kvbytes = dtype_bytes(dtypes.kv);
  // perf7s (issue 31): bytes per weight by tensor class. One --weights-dtype sizes every weight
  // alike; a checkpoint read as shipped (quantization_config, model.h WeightFormat) keeps its own
  // layout: gpt-oss-120b's MXFP4 holds only the routed experts, at 4 bits plus one 8-bit E8M0
  // scale per 32 weights (0.5 + 1/32 = 0.53125 B), while attention, router, embedding and head stay
  // in bf16 (config.json modules_to_not_convert). So the routed experts are priced at
  // expert_wbytes and everything else at its own bytes: the storage's total less the experts'.
  const double expert_wbytes = storage->expert_bytes;
  const double non_expert_bytes = storage->bytes - pc.experts_total * expert_wbytes;
  const bool mixed = storage->format.quantized();
  if (mixed) {
    d.assume("weights as " + storage->name +
             (storage->as_shipped ? " (the checkpoint's quantization_config; --weights-dtype sizes every weight at one "
                                    "dtype instead)"
                                  : "") +
             ": each step reads each tensor class at its own width");
  }
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
  // Which kernel reads the experts depends on how they are stored (serve_internal.h).
  const std::string ebw_name = expert_wbytes < 1 ? "expert-bandwidth-efficiency-4bit" : "expert-bandwidth-efficiency";
  dc.expert_bandwidth = gpu.memory_bandwidth * in.number(ebw_name);
  dc.flop_rate = rate_gpu;
  dc.imbalance = imbalance;
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
                             num(pc.experts_total) + " ÷ " + num(routed) + " × " + num(expert_wbytes) + " ÷ " + num(tp),
                             pc.experts_total / routed * expert_wbytes / tp, Unit::kBytes);
    dc.expert_flops_per_token = 2 * dc.top_k * pc.experts_total / routed / tp;
    const std::string per_gpu = dp_ep ? " ÷ (tp ÷ attention-dp)" : " ÷ tp";
    dc.dense_weight_bytes =
        mixed ? d.step("Weights every step reads per GPU", "(weights' bytes − routed experts' bytes)" + per_gpu,
                       "(" + q(storage->bytes, Unit::kBytes) + " − " + num(pc.experts_total) + " × " + num(expert_wbytes) +
                           ") ÷ " + num(attn_tp),
                       non_expert_bytes / attn_tp, Unit::kBytes)
              : d.step("Weights every step reads per GPU", "(params − routed experts) × bytes" + per_gpu,
                       "(" + num(pc.total) + " − " + num(pc.experts_total) + ") × " + num(expert_wbytes) + " ÷ " +
                           num(attn_tp),
                       non_expert_bytes / attn_tp, Unit::kBytes);
    d.assume("MoE decode reads only the experts its tokens touch: E × (1 − (1 − k/E)^tokens) per layer under uniform "
             "routing (a skewed router touches fewer), at the grouped GEMMs' share of HBM bandwidth (" +
             num(in.number(ebw_name)) + ", " + ebw_name + ": a few tokens per expert)");
  } else {
    dc.dense_weight_bytes =
        d.step("Weights a step reads per GPU", "(" + storage->formula + (dp_ep ? ") ÷ (tp ÷ attention-dp)" : ") ÷ tp"),
               "(" + storage->substituted + ") ÷ " + num(attn_tp), storage->bytes / attn_tp, Unit::kBytes);
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
  const double weights_all = non_expert_bytes * adp + pc.experts_total * expert_wbytes;
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

  // perf9s: an MoE layer launches the routing's kernels besides a dense layer's (serve_internal.h).
  dc.fixed_seconds = layers * in.number("layer-overhead") +
                     static_cast<double>(m.moe_layers) * in.number("moe-layer-overhead");
  if (m.moe_layers > 0 && in.number("moe-layer-overhead") > 0) {
    d.assume("each of the " + num(static_cast<double>(m.moe_layers)) + " MoE layers adds " +
             q(in.number("moe-layer-overhead"), Unit::kSeconds) +
             " per forward pass to the per-layer cost: the routing's kernels a dense MLP does not launch "
             "(moe-layer-overhead, fitted)");
  }
  if (!dp_ep && tp > 1) {
    // The TP all-reduces, linear in the step's tokens: the custom kernel's latency plus the ring's
    // bytes at the link (as serve), or NCCL from the fabric model (--allreduce nccl: its smallest
    // message's time once, the bytes at the measured busbw of a mean prompt's message).
    const CollectiveEstimate e = tp_allreduce(in, gpu, tp, isl * h * 2, link, ar_latency);
    const bool nccl = in.text("allreduce") == "nccl";
    if (nccl) d.assume("TP all-reduce by NCCL: " + e.explanation + "; per step its alpha plus the bytes at the busbw of a mean prompt's message");
    dc.fixed_seconds += blocks * (nccl ? e.alpha : ar_latency);
    dc.comm_seconds_per_token = blocks * 2 * (tp - 1) / tp * h * 2 / (nccl ? e.busbw : allreduce_bw);
  } else if (dp_ep) {
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
  // perf8s: a dense model's prompt GEMMs by tiles and waves on the chip's SMs (gemm_waves.h), as a
  // cost per prompt token exact at the mean prompt (M = the prompt's tokens, one prompt a pass).
  const WavePricing wave = dp_ep ? WavePricing{}
                                 : price_pass_gemms(in, m, gpu, tp, isl, rate_gpu, storage->bytes / pc.total, bw);
  if (wave.on) d.step("Prefill GEMMs of a mean prompt (tiles and waves)", wave.formula, wave.substituted, wave.seconds, Unit::kSeconds);
  const double gemm_token = wave.on ? wave.seconds / isl : serial > 0 ? d.step("Prefill GEMM time per prompt token (attention DP)",
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
  const double weights_read =
      dc.dense_weight_bytes / bw +
      (m.is_moe() ? dc.expert_bytes * serving::experts_touched(dc.experts, dc.top_k, isl) / dc.expert_bandwidth : 0);
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
    dis.handoff_seconds = in.number("handoff-latency");
    dis.handoff_decode_steps = in.number("handoff-decode-steps");
    d.assume("the handoff from the prefill to the decode server (SGLang's PD mode, disaggregation/decode.py): " +
             num(dis.handoff_decode_steps) + " decode steps (each queue polled once per scheduler iteration: the "
             "handshake, the transfer, then the PrebuiltExtendBatch that joins the running batch) plus " +
             q(dis.handoff_seconds, Unit::kSeconds) + " fixed (handoff-latency, fitted)");
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
    d.step("Handoff to the decode server", "handoff-latency + handoff-decode-steps × decode step",
           q(dis.handoff_seconds, Unit::kSeconds) + " + " + num(dis.handoff_decode_steps) + " × " +
               q(p.step_seconds, Unit::kSeconds),
           p.handoff_seconds, Unit::kSeconds);
  }
  d.step("TTFT mean", disagg ? "wait + prefill + transfer + handoff" : "wait + prefill + (1 − rho) × half a decode step",
         "W = rate × E[S²] ÷ (2(1 − rho))", p.ttft_mean, Unit::kSeconds);
  d.step("TTFT p99", "W ÷ rho × ln(rho ÷ 0.01) + prefill of the p99 prompt" +
         std::string(disagg ? " + its transfer + the handoff" : " + one decode step"), "", p.ttft_p99, Unit::kSeconds);
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
  d.result("handoff_seconds", p.handoff_seconds, Unit::kSeconds);
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

}  // namespace ridge::calc::serve_detail
