// serve-rate, the serving calculator at a request rate. Expected figures are derived by hand in
// the comment above each check; the queueing model itself is tested in serving_model_test.cc.
#include <gtest/gtest.h>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

Given llama70b_h100_tp2() {
  return {{"model", "llama-3.3-70b"}, {"gpu", "h100-sxm"},          {"tp", "2"},
          {"input-tokens", "1000"},   {"output-tokens", "1000"},    {"weights-dtype", "fp8"},
          {"kv-dtype", "fp8"}};
}

TEST(ServeRate, KvCacheHoldsWhatTheWeightsLeave) {
  // Llama 3.3 70B: 2 × 128,256 × 8,192 embedding and head + 80 × (150,994,944 attention +
  // 704,643,072 MLP + 16,384 norms) + 8,192 = 70,553,706,496 params, 1 B each in fp8.
  // Usable: 2 × 80 GB × 0.9 = 144 GB. KV per token: 2 × 80 layers × 8 heads × 128 × 1 B =
  // 163,840 B, one copy at TP 2 (8 KV heads); at 2,000 tokens 327,680,000 B.
  // (144e9 − 70,553,706,496) ÷ 327,680,000 = 224.14 -> 224 sequences.
  Given g = llama70b_h100_tp2();
  g["rate"] = "0.5";
  EXPECT_EQ(result(run("serve-rate", g), "max_batch_per_replica"), 224);
}

TEST(ServeRate, DisaggregatedKvCrossesTheSystemsNics) {
  // DGX H100: 8 NICs × 50 GB/s over 8 GPUs = 50 GB/s per GPU; TP 2 sends over two: 100 GB/s.
  // A 1,000-token prompt's cache: 1,000 × 163,840 B = 163.84 MB -> 1.6384 ms + 20 us latency.
  Given g = llama70b_h100_tp2();
  g["rate"] = "0.5";
  g["deployment"] = "disaggregated";
  EXPECT_NEAR(result(run("serve-rate", g), "kv_transfer_seconds"), 1.6584e-3, 1e-9);
  // Two pools of one TP-2 replica each: 4 GPUs.
  EXPECT_EQ(result(run("serve-rate", g), "gpus"), 4);
}

TEST(ServeRate, DisaggregatedTtftPaysTheHandoffInDecodeSteps) {
  // perf6s: the handoff is handoff-latency + handoff-decode-steps × the decode step, and a
  // disaggregated decode step is the TPOT (no speculation, no prefill stalls). At a fixed rate the
  // pools' load does not depend on the TTFT, so the step is the same with and without the handoff:
  // 30 ms + 2 × TPOT, and TTFT with it = TTFT without it + exactly that.
  Given g = llama70b_h100_tp2();
  for (const auto& [k, v] : Given{{"rate", "0.5"}, {"deployment", "disaggregated"}, {"handoff-latency", "30ms"},
                                  {"handoff-decode-steps", "2"}}) {
    g[k] = v;
  }
  const Derivation with = run("serve-rate", g);
  const double tpot = result(with, "tpot_mean_seconds");
  EXPECT_NEAR(result(with, "handoff_seconds"), 0.030 + 2 * tpot, 1e-12);
  g["handoff-latency"] = "0";
  g["handoff-decode-steps"] = "0";
  const Derivation without = run("serve-rate", g);
  EXPECT_EQ(result(without, "handoff_seconds"), 0);
  EXPECT_NEAR(result(with, "ttft_mean_seconds") - result(without, "ttft_mean_seconds"), 0.030 + 2 * tpot, 1e-9);
  EXPECT_NEAR(result(with, "ttft_p99_seconds") - result(without, "ttft_p99_seconds"), 0.030 + 2 * tpot, 1e-9);
  // An aggregated deployment has no handoff, whatever the inputs say.
  g["deployment"] = "aggregated";
  g["handoff-latency"] = "30ms";
  EXPECT_EQ(result(run("serve-rate", g), "handoff_seconds"), 0);
}

TEST(ServeRate, ClosedLoopObeysLittlesLaw) {
  // Each of C clients has one request in flight: rate × (TTFT + (output − 1) × TPOT) = C.
  Given g = llama70b_h100_tp2();
  g["concurrency"] = "8";
  const Derivation d = run("serve-rate", g);
  const double held = result(d, "rate") * (result(d, "ttft_mean_seconds") + 999 * result(d, "tpot_mean_seconds"));
  EXPECT_NEAR(held, 8, 1e-6);
}

TEST(ServeRate, SpeculationCutsTheTimePerToken) {
  // At a light load the step is bandwidth-bound, so verifying 5 tokens costs about one step and
  // 3.36 tokens come out of it (k = 4, a = 0.8): TPOT falls by well over half.
  Given g = llama70b_h100_tp2();
  g["rate"] = "0.2";
  const double plain = result(run("serve-rate", g), "tpot_mean_seconds");
  g["draft-tokens"] = "4";
  g["acceptance"] = "0.8";
  const double spec = result(run("serve-rate", g), "tpot_mean_seconds");
  EXPECT_LT(spec, plain / 2);
  EXPECT_GT(spec, plain / 3.3616);  // the draft and the verify's extra compute are not free
}

TEST(ServeRate, RefusalsNameTheFieldAndTheLimit) {
  Given g = llama70b_h100_tp2();
  g["rate"] = "1";
  g["concurrency"] = "4";
  EXPECT_EQ(errors_of("serve-rate", g).front().field, "rate");
  g.erase("concurrency");
  g["rate"] = "1000";
  const Errors e = errors_of("serve-rate", g);
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e.front().field, "rate");
  EXPECT_NE(e.front().accepted.find("below"), std::string::npos);
  g["rate"] = "1";
  g["draft-tokens"] = "4";
  EXPECT_EQ(errors_of("serve-rate", g).front().field, "acceptance");
  // 73.4 GB of free cache at 163,840 B per token holds 448,000 tokens: one 500,000-token
  // sequence does not fit, which is refused rather than taken as an unbounded cache.
  g.erase("draft-tokens");
  g["input-tokens"] = "499000";
  EXPECT_EQ(errors_of("serve-rate", g).front().field, "input-tokens");
}

// ---- attention data parallelism and expert parallelism (issue 31, MoE serving under load)

TEST(ServeRate, AttentionDataParallelismCopiesTheWeightsNotTheKvHeads) {
  // Llama 3.3 70B is all non-expert weights (70,553,706,496 B in fp8), so attention DP N holds them
  // N times; its 8 KV heads are copied tp ÷ N ÷ 8 times when the attention group exceeds 8 GPUs.
  // A sequence at 2,000 tokens: 327,680,000 B per copy.
  //  - TP 2, attention DP 2: (2 × 80 GB × 0.9 − 2 × 70,553,706,496) ÷ 327,680,000 = 8.83 -> 8
  //    (224 with tensor-parallel attention).
  //  - TP 16: two copies of each head: (1,152e9 − 70,553,706,496) ÷ 655,360,000 = 1,650.16 -> 1,650.
  //  - TP 16, attention DP 2 (two groups of 8 GPUs, no copies, the weights twice):
  //    (1,152e9 − 141,107,412,992) ÷ 327,680,000 = 3,084.9994 -> 3,084.
  const struct {
    const char* tp;
    const char* attention_dp;
    double batch;
  } cases[] = {{"2", "2", 8}, {"16", "1", 1650}, {"16", "2", 3084}};
  for (const auto& c : cases) {
    Given g = llama70b_h100_tp2();
    g["rate"] = "0.01";
    g["tp"] = c.tp;
    g["attention-dp"] = c.attention_dp;
    EXPECT_EQ(result(run("serve-rate", g), "max_batch_per_replica"), c.batch) << "tp " << c.tp << ", attention-dp " << c.attention_dp;
  }
}

TEST(ServeRate, SerialAttentionDpPrefillHoldsEveryGroup) {
  // With two groups of one GPU, a serial prefill runs a prompt's GEMMs and attention on one GPU
  // while the other waits: twice the per-token time of the pooled (balanced) prefill, so at the
  // same rate the prefill utilisation is higher (the fixed per-layer cost is the same in both).
  Given g = llama70b_h100_tp2();
  g["rate"] = "0.05";
  g["attention-dp"] = "2";
  g["attention-dp-serial"] = "0";
  const double pooled = result(run("serve-rate", g), "prefill_utilisation");
  g["attention-dp-serial"] = "1";
  const double serial = result(run("serve-rate", g), "prefill_utilisation");
  EXPECT_GT(serial, 1.5 * pooled);
  EXPECT_LT(serial, 2 * pooled);
}

TEST(ServeRate, ExpertBandwidthActsOnTheRoutedExpertsOnly) {
  // perf5: the routed experts' grouped GEMMs stream at their own share of HBM bandwidth. A dense
  // model has no routed experts, so its figures do not move with it; an MoE model at maximum load
  // (Llama 4 Scout, 500/2000 on 4 H100 at 3.35 TB/s, its decode steps reading all 16 experts:
  // 96.6e9 ÷ 4 = 24.2 GB per GPU) serves fewer tokens per second when the experts stream at 0.3 of
  // the bandwidth instead of 0.9: their read goes from 24.2 GB ÷ 3.015 TB/s = 8.0 ms to
  // 24.2 GB ÷ 1.005 TB/s = 24.0 ms, 16 ms more on a step of about 24 ms (the other terms), so the
  // same batch of 597 makes under 0.8 of the tokens, and more than 0.3 of them (only one term slows).
  Given g = llama70b_h100_tp2();
  g["expert-bandwidth-efficiency"] = "0.9";
  const double dense_fast = result(run("serve-rate", g), "saturation_output_tokens_per_second");
  g["expert-bandwidth-efficiency"] = "0.3";
  EXPECT_EQ(result(run("serve-rate", g), "saturation_output_tokens_per_second"), dense_fast);
  g = {{"model", "llama-4-scout-17b-16e"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"attention-dp", "4"}, {"ep", "4"},
       {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"}, {"input-tokens", "500"}, {"output-tokens", "2000"},
       {"expert-bandwidth-efficiency", "0.9"}};
  const double moe_fast = result(run("serve-rate", g), "saturation_output_tokens_per_second");
  g["expert-bandwidth-efficiency"] = "0.3";
  const double moe_slow = result(run("serve-rate", g), "saturation_output_tokens_per_second");
  EXPECT_LT(moe_slow, 0.8 * moe_fast);
  EXPECT_GT(moe_slow, 0.3 * moe_fast);  // the dense weights, the cache and the fixed costs do not slow down
}

TEST(ServeRate, ExpertsInFourBitsReadAtTheirOwnShareOfBandwidth) {
  // The share of bandwidth the experts' kernel reaches depends on how they are stored: experts in
  // 8 bits read at expert-bandwidth-efficiency, experts in 4 bits (int4, fp4) at
  // expert-bandwidth-efficiency-4bit. Each share moves only the runs whose experts it reads. At
  // four clients a decode step is bound by reading the weights (at maximum load a 4-bit model's
  // GEMMs are bound by their 16-bit arithmetic instead), so TPOT shows the read.
  Given g = {{"model", "llama-4-scout-17b-16e"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"concurrency", "4"},
             {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"}, {"input-tokens", "500"}, {"output-tokens", "500"},
             {"expert-bandwidth-efficiency", "0.3"}, {"expert-bandwidth-efficiency-4bit", "0.9"}};
  const char* kTpot = "tpot_mean_seconds";
  const double fp8 = result(run("serve-rate", g), kTpot);
  g["expert-bandwidth-efficiency-4bit"] = "0.3";
  EXPECT_EQ(result(run("serve-rate", g), kTpot), fp8);  // not read for 8-bit experts
  g["weights-dtype"] = "int4";
  const double int4_slow = result(run("serve-rate", g), kTpot);
  g["expert-bandwidth-efficiency"] = "0.9";
  EXPECT_EQ(result(run("serve-rate", g), kTpot), int4_slow);  // not read for 4-bit experts
  g["expert-bandwidth-efficiency-4bit"] = "0.9";
  EXPECT_LT(result(run("serve-rate", g), kTpot), int4_slow);
}

TEST(ServeRate, EachMoeLayerAddsItsFixedCostToAStep) {
  // perf9s: --moe-layer-overhead is paid once per MoE layer per forward pass, on top of the per-layer
  // cost. At a rate of one request in 1,000 s the decode batch is all but empty and nothing queues,
  // so TPOT is one step: gpt-oss-120b's 36 layers are all MoE, so 100 us more per MoE layer is 3.6 ms
  // more per token. A dense model has no MoE layer and does not move.
  Given g = {{"model", "gpt-oss-120b"}, {"gpu", "h200"}, {"tp", "2"}, {"rate", "0.001"},
             {"input-tokens", "128"}, {"output-tokens", "128"}, {"moe-layer-overhead", "0"}};
  const char* kTpot = "tpot_mean_seconds";
  const double without = result(run("serve-rate", g), kTpot);
  g["moe-layer-overhead"] = "100us";
  EXPECT_NEAR(result(run("serve-rate", g), kTpot) - without, 36 * 100e-6, 1e-6);
  g = llama70b_h100_tp2();
  g["rate"] = "0.001";
  g["moe-layer-overhead"] = "0";
  const double dense = result(run("serve-rate", g), kTpot);
  g["moe-layer-overhead"] = "100us";
  EXPECT_EQ(result(run("serve-rate", g), kTpot), dense);
}

TEST(ServeRate, AttentionDpAndEpRefusalsNameTheField) {
  Given g = llama70b_h100_tp2();
  g["rate"] = "0.1";
  g["attention-dp"] = "3";  // does not divide tp 2
  EXPECT_EQ(errors_of("serve-rate", g).front().field, "attention-dp");
  g["attention-dp"] = "1";
  g["ep"] = "2";  // a dense model has no experts to spread
  EXPECT_EQ(errors_of("serve-rate", g).front().field, "ep");
  g = {{"model", "llama-4-scout-17b-16e"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"rate", "0.1"},
       {"weights-dtype", "fp8"}, {"ep", "3"}, {"input-tokens", "500"}, {"output-tokens", "500"}};
  EXPECT_EQ(errors_of("serve-rate", g).front().field, "ep");  // 3 divides neither tp 4 nor 16 experts
  g["ep"] = "4";
  g["moe-imbalance"] = "-0.5";  // below 0: the busiest rank cannot carry less than the mean
  EXPECT_EQ(errors_of("serve-rate", g).front().field, "moe-imbalance");
}

// The value of a derivation step by its label (0 when absent).
double step_value(const Derivation& d, const std::string& label) {
  for (const auto& s : d.steps()) {
    if (s.label == label) return s.value;
  }
  return 0;
}

TEST(ServeRate, ExpertParallelAllToAllCrossesNvlinkTwicePerMoeLayer) {
  // Qwen3-235B-A22B on 8 H100 at attention DP 8, EP 8: each GPU dispatches its B ÷ 8 tokens, each to
  // k = 8 experts of one GPU each (tp ÷ ep = 1), 4,096 × 2 B hidden states: 8 × 4,096 × 2 ÷ 8 =
  // 8,192 B per replica token. Inside one 8-GPU NVLink domain with no measured all-to-all in the
  // catalog: busbw = 900 GB/s ÷ 2 × 0.7 = 315 GB/s, alpha = the 10 us all-reduce latency.
  // Dispatch and combine in each of the 94 MoE layers: 2 × 94 × (10 us + 7/8 × B × 8,192 ÷ 315e9).
  const Given g = {{"model", "qwen3-235b-a22b"}, {"gpu", "h100-sxm"}, {"tp", "8"}, {"attention-dp", "8"},
                   {"ep", "8"}, {"rate", "1"}, {"input-tokens", "1000"}, {"output-tokens", "1000"},
                   {"weights-dtype", "fp8"}};
  Derivation d = run("serve-rate", g);
  double b = result(d, "max_batch_per_replica");
  EXPECT_NEAR(step_value(d, "Dispatch + combine all-to-all per step"), 2 * 94 * (10e-6 + 0.875 * b * 8192 / 315e9), 1e-12);
  // A busiest rank at 1.5 × the mean receives 1.5 × the bytes: 12,288 B per token.
  Given skewed = g;
  skewed["moe-imbalance"] = "0.5";
  d = run("serve-rate", skewed);
  b = result(d, "max_batch_per_replica");
  EXPECT_NEAR(step_value(d, "Dispatch + combine all-to-all per step"), 2 * 94 * (10e-6 + 0.875 * b * 12288 / 315e9), 1e-12);
}

TEST(Serve, AttentionDataParallelismReadsTheWholeDenseModelPerGpu) {
  // serve, one sequence of Llama 3.3 70B on two H100: with attention DP 2 each GPU reads all
  // 70,553,706,496 B of fp8 weights per decode step instead of half, and no all-reduce is left.
  // The GEMMs grow by 35,276,853,248 B ÷ (3.35 TB/s × 0.9) = 11.7004 ms; the TP all-reduces go:
  // 160 residual blocks × (10 us + 2(2 − 1)/2 × 8,192 × 2 B ÷ (900 GB/s ÷ 2 × 0.7)) = 1.6083 ms.
  // The cache read and the per-layer cost do not change: TPOT grows by 10.0921 ms.
  Given g = {{"model", "llama-3.3-70b"}, {"gpu", "h100-sxm"}, {"tp", "2"}, {"batch", "1"},
             {"input-tokens", "1000"}, {"output-tokens", "100"}, {"weights-dtype", "fp8"}};
  const double tp_only = result(run("serve", g), "tpot_seconds");
  g["attention-dp"] = "2";
  EXPECT_NEAR(result(run("serve", g), "tpot_seconds") - tp_only, 0.0100921268, 1e-9);
}

TEST(ServeRate, GptOssAsShippedReadsMxfp4ExpertsAndBf16TheRest) {
  // perf7s: serve-rate reads a checkpoint as its quantization_config ships it. gpt-oss-120b
  // (hidden 2,880, 36 layers, 64 query and 8 KV heads of 64, vocabulary 201,088, untied, biases on
  // the attention's projections and one sink logit per head):
  //   attention per layer: q 2,880 × 4,096 + o 4,096 × 2,880 = 23,592,960; k and v 2 × 2,880 × 512
  //   = 2,949,120; biases 4,096 + 512 + 512 + 2,880 = 8,000; sinks 64: 26,550,144
  //   router 2,880 × 128 + 128 = 368,768; norms 2 × 2,880 = 5,760: 26,924,672 per layer, × 36 =
  //   969,288,192; embedding and head 2 × 201,088 × 2,880 = 1,158,266,880; final norm 2,880.
  //   Non-expert params: 2,127,557,952, in bf16 (modules_to_not_convert) at 2 B, over tp 2:
  //   2,127,557,952 B per GPU per step (at 4 bits, as before: 531,889,488 B).
  // Routed experts: 36 × 128 × 24,891,840 = 114,701,598,720 (weight_storage_test.cc); one expert
  // over all layers 896,106,240 at 0.5 B + 1 B ÷ 32 = 0.53125 B = 476,056,440 B, over tp 2:
  // 238,028,220 B (at 4 bits: 224,026,560 B).
  Given g = {{"model", "gpt-oss-120b"}, {"gpu", "h200"}, {"tp", "2"}, {"rate", "0.1"},
             {"input-tokens", "1000"}, {"output-tokens", "1000"}};
  Derivation shipped = run("serve-rate", g);
  EXPECT_DOUBLE_EQ(step_value(shipped, "Weights every step reads per GPU"), 2127557952.0);
  EXPECT_DOUBLE_EQ(step_value(shipped, "One routed expert's weights per GPU, all MoE layers"), 238028220.0);
  g["weights-dtype"] = "int4";  // one dtype for every weight, as --weights-dtype asks
  Derivation int4 = run("serve-rate", g);
  EXPECT_DOUBLE_EQ(step_value(int4, "Weights every step reads per GPU"), 531889488.0);
  EXPECT_DOUBLE_EQ(step_value(int4, "One routed expert's weights per GPU, all MoE layers"), 224026560.0);
  // MXFP4's experts (0.53125 B) are read at the 4-bit experts' share: the 8-bit share does not move them.
  g.erase("weights-dtype");
  g["expert-bandwidth-efficiency"] = "0.9";
  EXPECT_EQ(result(run("serve-rate", g), "tpot_mean_seconds"), result(shipped, "tpot_mean_seconds"));
}

TEST(Serve, NcclAllReduceIsPricedFromTheMeasuredBusbw) {
  // perf7s: --allreduce nccl reads the catalog's measured nccl-tests all_reduce busbw (HGX H100,
  // NVLS, 8 GPUs). Llama 2 70B, one 128-token prompt on TP 4: each of the 160 residual blocks
  // all-reduces 128 × 8,192 × 2 B = 2,097,152 B, a measured size (busbw 81.93 GB/s), so one takes
  // max(alpha, 2(4 − 1)/4 × 2,097,152 ÷ 81.93e9) = max(25.6 us, 38.395 us) = 38.395 us (alpha,
  // the 1 KB message's time: 1,024 × 1.75 ÷ 0.07e9 = 25.6 us): 160 × 38.395 us = 6.1433 ms.
  // The custom kernel: 160 × (10 us + 1.5 × 2,097,152 ÷ (900 GB/s ÷ 2 × 0.7)) = 3.1978 ms.
  Given g = {{"model", "llama-2-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"batch", "1"}, {"input-tokens", "128"},
             {"output-tokens", "1"}, {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"}};
  EXPECT_NEAR(step_value(run("serve", g), "Prefill TP all-reduces"), 160 * (10e-6 + 1.5 * 2097152 / 315e9), 1e-9);
  g["allreduce"] = "nccl";
  Derivation nccl = run("serve", g);
  EXPECT_NEAR(step_value(nccl, "Prefill TP all-reduces"), 160 * 1.5 * 2097152 / 81.93e9, 1e-9);
  // One decode token: 16,384 B at the measured 0.95 GB/s: 1.5 × 16,384 ÷ 0.95e9 = 25.869 us each.
  EXPECT_NEAR(step_value(nccl, "Decode TP all-reduces"), 160 * 1.5 * 16384 / 0.95e9, 1e-9);
}

TEST(ServeRate, NcclAllReduceSlowsOnlyTensorParallelSteps) {
  // serve-rate takes the same input: NCCL's smallest-message time (25.6 us on HGX H100) in place of
  // the custom kernel's 10 us per all-reduce makes a TP-2 step slower; on one GPU there is nothing
  // to reduce and the figures do not move.
  Given g = llama70b_h100_tp2();
  g["rate"] = "0.05";
  const double custom = result(run("serve-rate", g), "tpot_mean_seconds");
  g["allreduce"] = "nccl";
  EXPECT_GT(result(run("serve-rate", g), "tpot_mean_seconds"), custom + 160 * 15e-6);
  Given one = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"tp", "1"}, {"rate", "0.1"},
               {"input-tokens", "1000"}, {"output-tokens", "100"}};
  const double alone = result(run("serve-rate", one), "tpot_mean_seconds");
  one["allreduce"] = "nccl";
  EXPECT_EQ(result(run("serve-rate", one), "tpot_mean_seconds"), alone);
}

}  // namespace
}  // namespace ridge::calc
