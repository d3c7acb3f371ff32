// Each expectation is derived by hand in the comment above it, from the catalog figures
// (H100 SXM: 80 GB, 3.35 TB/s, 989.4 TFLOP/s bf16 dense) and the model's config.json.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

TEST(Fit, Llama70BOnEightH100At32kWith64Users) {
  // weights 70,553,706,496 × 2 B = 141.1 GB; KV/token 2 × 80 × 8 × 128 × 2 B = 327,680 B;
  // per sequence × 32,768 = 10,737,418,240 B; 64 sequences = 687.2 GB;
  // budget 8 × 80 GB × 0.9 = 576 GB; free 576 − 141.1 = 434.9 GB; floor(434.9 / 10.74) = 40.
  Derivation d = run("fit", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"},
                             {"context", "32768"}, {"sequences", "64"}});
  EXPECT_DOUBLE_EQ(result(d, "params"), 70553706496.0);
  EXPECT_DOUBLE_EQ(result(d, "weights_bytes"), 141107412992.0);
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_token"), 327680.0);
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_sequence"), 10737418240.0);
  EXPECT_NEAR(result(d, "kv_bytes_total"), 687.19e9, 0.01e9);
  EXPECT_DOUBLE_EQ(result(d, "budget_bytes"), 576e9);
  EXPECT_NEAR(result(d, "free_bytes"), 434.89e9, 0.01e9);
  EXPECT_EQ(result(d, "max_sequences"), 40);
  EXPECT_EQ(result(d, "fits"), 0);
}

TEST(Fit, Fp8CacheDoublesTheSequences) {
  // KV/token halves to 163,840 B; per sequence 5.37 GB; floor(434.9 / 5.369) = 81.
  Derivation d = run("fit", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"},
                             {"context", "32768"}, {"kv-dtype", "fp8"}});
  EXPECT_EQ(result(d, "max_sequences"), 81);
  EXPECT_EQ(result(d, "fits"), 1);
}

TEST(Fit, WeightsThatDoNotFitLeaveNoSequences) {
  // 141.1 GB of weights against one 80 GB card at 10% reserve: free is negative.
  Derivation d = run("fit", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"context", "4096"}});
  EXPECT_LT(result(d, "free_bytes"), 0);
  EXPECT_EQ(result(d, "max_sequences"), 0);
  EXPECT_EQ(result(d, "fits"), 0);
}

TEST(Fit, Fp8OnAChipWithoutFp8SaysSo) {
  Errors e = errors_of("fit", {{"model", "llama-3.1-8b"}, {"gpu", "a100-80gb-sxm"}, {"context", "8192"},
                               {"weights-dtype", "fp8"}});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].field, "weights-dtype");
  EXPECT_NE(e[0].message.find("a100-80gb-sxm"), std::string::npos);
  EXPECT_NE(e[0].accepted.find("bf16"), std::string::npos);
}

TEST(Fit, UnknownIdsListTheKnownOnes) {
  Errors e = errors_of("fit", {{"model", "gpt-5"}, {"gpu", "h1000"}, {"context", "8192"}});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].field, "model");
  EXPECT_NE(e[0].accepted.find("llama-3.1-70b"), std::string::npos);
  EXPECT_EQ(e[1].field, "gpu");
  EXPECT_NE(e[1].accepted.find("h100-sxm"), std::string::npos);
}

TEST(Fit, BadNumbersAreRejectedByName) {
  for (const char* bad : {"0", "-5", "nan", "1e400", "32.5"}) {
    Errors e = errors_of("fit", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"context", bad}});
    ASSERT_EQ(e.size(), 1u) << bad;
    EXPECT_EQ(e[0].field, "context") << bad;
    EXPECT_EQ(e[0].value, bad);
  }
  Errors reserve = errors_of("fit", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"context", "8"}, {"reserve", "1.5"}});
  ASSERT_EQ(reserve.size(), 1u);
  EXPECT_EQ(reserve[0].field, "reserve");
}

TEST(Fit, ModelIsRequiredAndExclusiveWithConfig) {
  EXPECT_EQ(errors_of("fit", {{"gpu", "h100-sxm"}, {"context", "8"}})[0].field, "model");
  EXPECT_EQ(errors_of("fit", {{"gpu", "h100-sxm"}, {"context", "8"}, {"bogus", "1"}})[0].field, "bogus");
}

TEST(Roofline, H100RidgePoint) {
  // 989.4e12 FLOP/s ÷ 3.35e12 B/s = 295.3 FLOP/B.
  Derivation d = run("roofline", {{"gpu", "h100-sxm"}});
  EXPECT_NEAR(result(d, "ridge_flops_per_byte"), 295.3, 0.1);
  EXPECT_EQ(d.find("intensity"), nullptr);
}

TEST(Roofline, AKernelBelowTheRidgeIsMemoryBound) {
  // 2e12 FLOP over 4e10 B = 50 FLOP/B < 295: attainable 50 × 3.35e12 = 167.5 TFLOP/s.
  Derivation d = run("roofline", {{"gpu", "h100-sxm"}, {"flops", "2e12"}, {"bytes", "4e10"}});
  EXPECT_DOUBLE_EQ(result(d, "intensity"), 50);
  EXPECT_DOUBLE_EQ(result(d, "attainable_flops"), 167.5e12);
  EXPECT_EQ(result(d, "compute_bound"), 0);
  EXPECT_EQ(errors_of("roofline", {{"gpu", "h100-sxm"}, {"flops", "2e12"}})[0].field, "bytes");
  EXPECT_EQ(errors_of("roofline", {{"gpu", "a100-80gb-sxm"}, {"dtype", "fp8"}})[0].field, "dtype");
}

TEST(Train, Llama405BOn16kH100) {
  // 6 × 405e9 × 15.6e12 = 3.7908e25 FLOP; rate 16,384 × 989.4e12 × 0.4 = 6.4842e18 FLOP/s;
  // time 5.84624e6 s = 67.66 days = 1,623.96 h; GPU-hours × 16,384 = 2.66070e7; at $2/h, $53.21M.
  Derivation d = run("train", {{"params", "405B"}, {"tokens", "15.6T"}, {"gpu", "h100-sxm"}, {"gpus", "16384"},
                               {"mfu", "0.4"}, {"usd-per-gpu-hour", "2"}});
  EXPECT_DOUBLE_EQ(result(d, "train_flops"), 3.7908e25);
  EXPECT_NEAR(result(d, "days"), 67.66, 0.01);
  EXPECT_NEAR(result(d, "gpu_hours"), 2.66070e7, 1e3);
  EXPECT_NEAR(result(d, "cost_usd"), 5.32141e7, 1e4);
}

TEST(Train, MoeUsesActiveParameters) {
  Derivation d = run("train", {{"model", "deepseek-v3"}, {"tokens", "14.8T"}, {"gpu", "h800"}, {"gpus", "2048"}});
  // 6 × ~37.5e9 active × 14.8e12 ≈ 3.3e24, not 6 × 671e9 × 14.8e12 ≈ 6e25.
  EXPECT_NEAR(result(d, "train_flops") / 3.33e24, 1.0, 0.03);
}

TEST(Fleet, GpusForAThirtyDayRun) {
  // 6 × 70e9 × 15e12 = 6.3e24; per GPU 989.4e12 × 0.4 × 30 × 86,400 = 1.02581e21;
  // ceil(6,141.5) = 6,142; next power of two 8,192.
  Derivation d = run("fleet", {{"params", "70B"}, {"tokens", "15T"}, {"days", "30"}, {"gpu", "h100-sxm"}});
  EXPECT_EQ(result(d, "gpus"), 6142);
  EXPECT_EQ(result(d, "gpus_power_of_two"), 8192);
}

TEST(Mfu, Llama3FromPublishedGpuHours) {
  // 3.7908e25 FLOP ÷ (30.84e6 h × 3,600 s) = 3.4144e14 FLOP/s per GPU; ÷ 989.4e12 = 34.5%.
  Derivation d = run("mfu", {{"params", "405B"}, {"tokens", "15.6T"}, {"gpu", "h100-sxm"}, {"gpu-hours", "30.84e6"}});
  EXPECT_NEAR(result(d, "mfu"), 0.3451, 0.0005);
  EXPECT_EQ(errors_of("mfu", {{"params", "1B"}, {"tokens", "1B"}, {"gpu", "h100-sxm"}, {"gpus", "8"}})[0].field, "seconds");
}

TEST(Decode, Llama70BBatchOneOnTp8) {
  // 141.1 GB ÷ 8 = 17.64 GB per GPU; ÷ 3.35 TB/s = 5.265 ms; 1 ÷ 5.265 ms = 189.9 tokens/s;
  // 2 all-reduces × 80 layers = 160.
  Derivation d = run("decode", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "8"}});
  EXPECT_NEAR(result(d, "weight_bytes_per_gpu"), 17.638e9, 0.001e9);
  EXPECT_NEAR(result(d, "step_seconds_floor"), 5.2652e-3, 1e-6);
  EXPECT_NEAR(result(d, "tokens_per_second"), 189.9, 0.1);
  EXPECT_EQ(result(d, "allreduces_per_step"), 160);
  EXPECT_EQ(result(d, "kv_read_seconds"), 0);
}

TEST(Decode, KvReadsGrowWithBatchAndContext) {
  // 32 × 4,096 × 327,680 B = 42.95 GB ÷ 8 ÷ 3.35 TB/s = 1.6026 ms.
  Derivation d = run("decode", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "8"}, {"batch", "32"},
                                {"context", "4096"}});
  EXPECT_NEAR(result(d, "kv_read_seconds"), 1.6026e-3, 1e-6);
  Errors e = errors_of("decode", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "3"}});
  ASSERT_EQ(e[0].field, "tp");
  EXPECT_NE(e[0].accepted.find("1, 2, 4, 8, 16, 32, 64"), std::string::npos);
}

TEST(Prefill, Llama70BEightKPromptOnANode) {
  // matmul 2 × 70,553,706,496 × 8,192 = 1.15595e15; attention 80 × 64 × 8192² × 256 =
  // 8.796e13; total 1.2439e15 ÷ (8 × 989.4e12 × 0.5) = 0.3144 s.
  Derivation d = run("prefill", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"prompt", "8192"}});
  EXPECT_NEAR(result(d, "prefill_flops"), 1.2439e15, 0.0005e15);
  EXPECT_NEAR(result(d, "seconds"), 0.3144, 0.0005);
  // 8,192 tokens ÷ 0.3144 s = 26,055 tokens/s.
  EXPECT_NEAR(result(d, "tokens_per_second"), 8192 / result(d, "seconds"), 1e-6);
}

TEST(Attention, ScoresForAnEightKSequence) {
  // 8,192² × 2 B = 134,217,728 B per head; × 32 heads = 4.29 GB.
  Derivation d = run("attention", {{"seq", "8192"}, {"heads", "32"}});
  EXPECT_DOUBLE_EQ(result(d, "score_bytes_per_head"), 134217728.0);
  EXPECT_DOUBLE_EQ(result(d, "score_bytes_total"), 4294967296.0);
}

TEST(Allreduce, RingOfEight) {
  // 2 × 7/8 × 16e9 = 28e9 B per rank; ÷ 400e9 B/s = 0.07 s.
  Derivation d = run("allreduce", {{"bytes", "16GB"}, {"ranks", "8"}, {"bus-bandwidth", "400GB/s"}});
  EXPECT_DOUBLE_EQ(result(d, "bytes_per_rank"), 28e9);
  EXPECT_DOUBLE_EQ(result(d, "seconds"), 0.07);
  EXPECT_EQ(errors_of("allreduce", {{"bytes", "1"}, {"ranks", "1"}, {"bus-bandwidth", "1"}})[0].field, "ranks");
}

TEST(Checkpoint, YoungDaly) {
  // sqrt(2 × 60 s × 10,800 s) = 1,138.4 s; overhead 60/1138.4 + 1138.4/21,600 = 0.1054.
  Derivation d = run("checkpoint", {{"mtbf-hours", "3"}, {"write-seconds", "60"}});
  EXPECT_NEAR(result(d, "interval_seconds"), 1138.42, 0.01);
  EXPECT_NEAR(result(d, "overhead_fraction"), 0.10541, 0.00001);
}

TEST(Interruptions, Llama3FleetScaledUp) {
  // 419 ÷ (16,384 × 54) = 4.7359e-4 per GPU-day; on 100,000 GPUs for 1 day: 47.36 events,
  // one every 24 / 47.36 = 0.507 h.
  Derivation d = run("interruptions", {{"events", "419"}, {"days", "54"}, {"gpus", "16384"}, {"target-gpus", "100000"}});
  EXPECT_NEAR(result(d, "rate_per_gpu_day"), 4.7359e-4, 1e-8);
  EXPECT_NEAR(result(d, "expected_events"), 47.359, 0.001);
  EXPECT_NEAR(result(d, "hours_between"), 0.50677, 0.0001);
}

TEST(Cost, DollarsPerMillionTokens) {
  // $2.50/h ÷ 3,600 = $0.000694/s; ÷ 1,000 tokens/s × 1e6 = $0.694.
  Derivation d = run("cost", {{"usd-per-hour", "2.50"}, {"tokens-per-second", "1000"}});
  EXPECT_NEAR(result(d, "usd_per_million_tokens"), 0.69444, 0.00001);
}

TEST(TrainingMemory, ZeroStages) {
  // 16 B/param × 70e9 = 1.12e12 B. ZeRO-3 on 64: 17.5e9 B. ZeRO-1: (2 + 2 + 12/64) × 70e9 = 2.93125e11.
  Derivation z3 = run("training-memory", {{"params", "70B"}, {"gpus", "64"}, {"zero-stage", "3"}});
  EXPECT_DOUBLE_EQ(result(z3, "bytes_per_param"), 16);
  EXPECT_DOUBLE_EQ(result(z3, "state_bytes"), 1.12e12);
  EXPECT_DOUBLE_EQ(result(z3, "state_bytes_per_gpu"), 17.5e9);
  Derivation z1 = run("training-memory", {{"params", "70B"}, {"gpus", "64"}, {"zero-stage", "1"}});
  EXPECT_DOUBLE_EQ(result(z1, "state_bytes_per_gpu"), 2.93125e11);
  EXPECT_EQ(errors_of("training-memory", {{"params", "70B"}, {"gpus", "64"}, {"zero-stage", "4"}})[0].field, "zero-stage");
}

TEST(PipelineBubble, OneF1B) {
  // (8 − 1) / (32 + 7) = 0.1795; interleaved with v = 2: 3.5 / 35.5 = 0.0986.
  EXPECT_NEAR(result(run("pipeline-bubble", {{"stages", "8"}, {"microbatches", "32"}}), "bubble_fraction"), 7.0 / 39, 1e-12);
  EXPECT_NEAR(result(run("pipeline-bubble", {{"stages", "8"}, {"microbatches", "32"}, {"schedule", "interleaved"},
                                             {"virtual-stages", "2"}}),
                     "bubble_fraction"),
              3.5 / 35.5, 1e-12);
}

TEST(ClusterPower, ThousandH100FromTheSystemFigure) {
  // DGX H100: 10.2 kW for 8 GPUs = 1,275 W per GPU; overhead 1,275 / 700 = 1.821429.
  // 1,024 × 700 W = 716.8 kW; IT 1,024 × 1,275 W = 1.3056 MW; × 1.3 = 1.69728 MW at the meter.
  Derivation d = run("cluster-power", {{"gpu", "h100-sxm"}, {"gpus", "1024"}});
  EXPECT_DOUBLE_EQ(result(d, "gpu_watts"), 716800);
  EXPECT_NEAR(result(d, "node_overhead"), 1275.0 / 700, 1e-12);
  EXPECT_NEAR(result(d, "it_watts"), 1305600, 1e-6);
  EXPECT_NEAR(result(d, "facility_watts"), 1697280, 1e-6);
  EXPECT_EQ(errors_of("cluster-power", {{"gpu", "tpu-v6e"}, {"gpus", "8"}})[0].field, "gpu");
}

TEST(ClusterPower, ExplicitOverheadAndChipsWithoutASystem) {
  // --node-overhead 1.5: 716.8 kW × 1.5 = 1.0752 MW IT; × 1.3 = 1.39776 MW.
  Derivation d = run("cluster-power", {{"gpu", "h100-sxm"}, {"gpus", "1024"}, {"node-overhead", "1.5"}});
  EXPECT_DOUBLE_EQ(result(d, "it_watts"), 1075200);
  EXPECT_NEAR(result(d, "facility_watts"), 1397760, 1e-6);
  // h100-pcie has no system entry: the 1.5 planning factor. 8 × 350 W × 1.5 = 4.2 kW.
  EXPECT_DOUBLE_EQ(result(run("cluster-power", {{"gpu", "h100-pcie"}, {"gpus", "8"}}), "it_watts"), 4200);
  // GB200 NVL72: 150 kW / 72 = 2,083.33 W per GPU against 1,200 W: overhead 1.736111.
  EXPECT_NEAR(result(run("cluster-power", {{"gpu", "gb200"}, {"gpus", "72"}}), "node_overhead"), 150000.0 / 72 / 1200,
              1e-12);
}

TEST(ClusterPower, APowerBudgetGivesTheGpusThatFit) {
  // 1 MW at PUE 1.3 leaves 769,230.8 W of IT power; floor(769,230.8 / 10,200) = 75 DGX H100
  // = 600 GPUs, drawing 600 × 1,275 W × 1.3 = 994,500 W.
  Derivation d = run("cluster-power", {{"gpu", "h100-sxm"}, {"power-budget", "1MW"}});
  EXPECT_EQ(result(d, "systems"), 75);
  EXPECT_EQ(result(d, "gpus"), 600);
  EXPECT_NEAR(result(d, "facility_watts"), 994500, 1e-6);
  // Without a system: floor(769,230.8 / (350 × 1.5 = 525 W)) = floor(1,465.2) = 1,465 GPUs.
  EXPECT_EQ(result(run("cluster-power", {{"gpu", "h100-pcie"}, {"power-budget", "1000kW"}}), "gpus"), 1465);
  EXPECT_EQ(errors_of("cluster-power", {{"gpu", "h100-sxm"}})[0].field, "gpus");
  EXPECT_EQ(errors_of("cluster-power", {{"gpu", "h100-sxm"}, {"gpus", "8"}, {"power-budget", "1MW"}})[0].field,
            "power-budget");
  EXPECT_EQ(errors_of("cluster-power", {{"gpu", "h100-sxm"}, {"power-budget", "1 GJ"}})[0].field, "power-budget");
}

TEST(Fit, SlidingWindowLayersHoldOnlyTheWindow) {
  // gpt-oss-120b: 36 layers, 8 KV heads of 64; layer_types makes 18 of them slide over 128
  // tokens. KV per token 2 × 36 × 8 × 64 × 2 B = 73,728 B, 2,048 B per layer. At 32,768
  // tokens: 2,048 × (18 × 32,768 + 18 × 128) = 2,048 × 592,128 = 1,212,678,144 B, not
  // 73,728 × 32,768 = 2,415,919,104 B. Under the window (100 tokens) every layer holds all:
  // 73,728 × 100 = 7,372,800 B.
  Derivation d = run("fit", {{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}, {"context", "32768"}});
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_token"), 73728);
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_sequence"), 1212678144.0);
  EXPECT_DOUBLE_EQ(result(run("fit", {{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}, {"context", "100"}}),
                          "kv_bytes_per_sequence"),
                   7372800);
}

TEST(Fit, SlidingLayersWithOtherHeadShapesAreSummedPerRun) {
  // gemma-4-26b-a4b: 25 sliding layers (window 1,024) with 8 KV heads of 256, 2 × 8 × 256 × 2 B
  // = 8,192 B per token each; 5 global layers with 2 KV heads of 512, 2 × 2 × 512 × 2 B = 4,096 B
  // each. At 131,072 tokens: 5 × 4,096 × 131,072 + 25 × 8,192 × 1,024 = 2,684,354,560 +
  // 209,715,200 = 2,894,069,760 B. The average per layer (225,280 / 30 = 7,509.33 B) times
  // (5 × 131,072 + 25 × 1,024) would give 5,113,565,184 B, 77% too much.
  Derivation d = run("fit", {{"model", "gemma-4-26b-a4b"}, {"gpu", "h100-sxm"}, {"context", "131072"}});
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_token"), 225280);
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_sequence"), 2894069760.0);
  // decode reads the same cache: batch 1 at 131,072 tokens reads 2,894,069,760 B of KV.
  Derivation dec = run("decode", {{"model", "gemma-4-26b-a4b"}, {"gpu", "h100-sxm"}, {"batch", "1"},
                                  {"context", "131072"}});
  EXPECT_NEAR(result(dec, "kv_read_seconds"), 2894069760.0 / 3.35e12, 1e-9);
}

TEST(Fit, ContextBeyondTheTrainedLengthIsStated) {
  // Llama 3.1 8B: max_position_embeddings 131,072; 200,000 tokens is past it.
  Derivation d = run("fit", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"context", "200000"}});
  bool said = false;
  for (const auto& a : d.assumptions()) said = said || a.find("max_position_embeddings (131,072)") != std::string::npos;
  EXPECT_TRUE(said);
  Derivation ok = run("fit", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"context", "8192"}});
  for (const auto& a : ok.assumptions()) EXPECT_EQ(a.find("max_position_embeddings"), std::string::npos) << a;
}

TEST(Decode, SlidingWindowBoundsTheKvRead) {
  // gpt-oss-120b, batch 1 at 32,768 tokens of context: 1,212,678,144 B ÷ 3.35e12 B/s =
  // 361.99 us of KV reads on one H100.
  Derivation d = run("decode", {{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}, {"context", "32768"}});
  EXPECT_NEAR(result(d, "kv_read_seconds"), 1212678144.0 / 3.35e12, 1e-15);
}

TEST(Replicas, PeakRate) {
  // 100 QPS × 500 tokens = 50,000 tokens/s; usable 2,000 × 0.7 = 1,400; ceil(35.7) = 36.
  Derivation d = run("replicas", {{"qps", "100"}, {"output-tokens", "500"}, {"tokens-per-second", "2000"}});
  EXPECT_EQ(result(d, "replicas"), 36);
}

TEST(Fit, LatentAttentionIsReplicatedUnderTensorParallelism) {
  // DeepSeek-V3 on 8 GPUs with plain TP: each GPU holds every token's latent, 8 copies.
  // KV per sequence at 32,768 tokens: 70,272 B × 32,768 = 2.3027 GB; held 8 times = 18.42 GB.
  Derivation tp = run("fit", {{"model", "deepseek-v3"}, {"gpu", "h200"}, {"gpus", "8"}, {"context", "32768"},
                              {"weights-dtype", "fp8"}, {"kv-dtype", "bf16"}});
  EXPECT_EQ(result(tp, "kv_replication"), 8);
  Derivation dp = run("fit", {{"model", "deepseek-v3"}, {"gpu", "h200"}, {"gpus", "8"}, {"context", "32768"},
                              {"weights-dtype", "fp8"}, {"kv-dtype", "bf16"}, {"attention", "dp"}});
  EXPECT_EQ(result(dp, "kv_replication"), 1);
  // Same free memory, one copy instead of eight: eight times the sequences (floor aside).
  EXPECT_NEAR(result(dp, "max_sequences") / 8, result(tp, "max_sequences"), 1.0);
  EXPECT_DOUBLE_EQ(result(tp, "gpu_memory_bytes"), 141e9);
}

TEST(Fit, MoreGpusThanKvHeadsReplicates) {
  // Llama 3.1 8B has 8 KV heads; on 16 GPUs each head is held twice.
  Derivation d = run("fit", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"gpus", "16"}, {"context", "8192"}});
  EXPECT_EQ(result(d, "kv_replication"), 2);
}

TEST(Decode, EfficiencyAndOverhead) {
  // Floor 5.2652 ms ÷ 0.8 + 0.5 ms = 7.0815 ms; the floor stays 5.2652 ms.
  Derivation d = run("decode", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "8"},
                                {"bandwidth-efficiency", "0.8"}, {"step-overhead", "500us"}});
  EXPECT_NEAR(result(d, "step_seconds"), 7.0815e-3, 1e-6);
  EXPECT_NEAR(result(d, "step_seconds_floor"), 5.2652e-3, 1e-6);
  EXPECT_NEAR(result(d, "tokens_per_second"), 1 / 7.0815e-3, 0.1);
}

TEST(Roofline, TimeAtTheRoof) {
  // 2e12 FLOP at an attainable 167.5 TFLOP/s = 11.94 ms.
  Derivation d = run("roofline", {{"gpu", "h100-sxm"}, {"flops", "2e12"}, {"bytes", "4e10"}});
  EXPECT_NEAR(result(d, "seconds"), 2e12 / 167.5e12, 1e-12);
}

TEST(Chip, CatalogFiguresAsResults) {
  Derivation d = run("chip", {{"gpu", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(result(d, "memory_bytes"), 80e9);
  EXPECT_DOUBLE_EQ(result(d, "memory_bandwidth"), 3.35e12);
  EXPECT_NEAR(result(d, "peak_bf16_flops"), 989.4e12, 1e12);
  EXPECT_EQ(d.find("peak_fp4_flops"), nullptr);  // Hopper has no fp4
}

TEST(Chip, LinksByName) {
  // DGX H100: NVLink 900 GB/s both directions together, so 450 GB/s each way; 8 ConnectX-7
  // at 400 Gb/s = 50 GB/s each, 400 GB/s for the node, 50 GB/s per GPU; one 8-GPU domain.
  Derivation d = run("chip", {{"gpu", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(result(d, "scale_up_per_direction"), 450e9);
  EXPECT_DOUBLE_EQ(result(d, "nic_bandwidth"), 50e9);
  EXPECT_DOUBLE_EQ(result(d, "node_nic_bandwidth"), 400e9);
  EXPECT_DOUBLE_EQ(result(d, "scale_out_per_gpu"), 50e9);
  EXPECT_DOUBLE_EQ(result(d, "scale_up_domain"), 8);
  EXPECT_DOUBLE_EQ(result(d, "host_link_per_direction"), 64e9);  // PCIe Gen5 128 GB/s both ways ÷ 2
  // GB200 NVL72: 72 GPUs in one NVLink domain.
  EXPECT_DOUBLE_EQ(result(run("chip", {{"gpu", "gb200"}}), "scale_up_domain"), 72);
}

TEST(Transfer, CheckpointWrite) {
  // 1.1 TB at 100 GB/s × 0.5 = 22 s.
  Derivation d = run("transfer", {{"bytes", "1.1TB"}, {"bandwidth", "100GB/s"}, {"efficiency", "0.5"}});
  EXPECT_DOUBLE_EQ(result(d, "seconds"), 22);
}

TEST(Allreduce, LatencyTermForSmallMessages) {
  // 16 KB on 8 ranks: 2 × 7/8 × 16,384 = 28,672 B ÷ 400 GB/s = 71.68 ns, plus 14 × 5 us = 70 us.
  Derivation d = run("allreduce", {{"bytes", "16KiB"}, {"ranks", "8"}, {"bus-bandwidth", "400GB/s"}, {"latency", "5us"}});
  EXPECT_NEAR(result(d, "seconds"), 70e-6 + 28672 / 400e9, 1e-12);
}

// Issue 33 item 6: a write time near the MTBF gave a number with no word that the formula had
// left its range. Hand-derived: MTBF 0.1 h = 360 s, write 300 s: sqrt(2 × 300 × 360) = 464.8 s,
// past the MTBF; overhead 300/464.8 + 464.8/720 = 0.6455 + 0.6455 = 1.291 (over 100%). Daly:
// 464.8 × (1 + sqrt(300/720)/3 + 300/6480) − 300 = 464.8 × 1.26146 − 300 = 286.27 s = 4.771 min (the derivation writes four digits).
TEST(Checkpoint, Finding33_WarnsOutsideTheFormulasRange) {
  auto warnings = [](const Derivation& d) {
    std::vector<std::string> out;
    for (const auto& a : d.assumptions()) {
      if (a.rfind("warning:", 0) == 0) out.push_back(a);
    }
    return out;
  };
  Derivation fine = run("checkpoint", {{"mtbf-hours", "3"}, {"write-seconds", "60"}});
  EXPECT_TRUE(warnings(fine).empty()) << "60 s against 10,800 s is well inside the range";
  Derivation broken = run("checkpoint", {{"mtbf-hours", "0.1"}, {"write-seconds", "300"}});
  EXPECT_NEAR(result(broken, "interval_seconds"), 464.76, 0.01);
  EXPECT_NEAR(result(broken, "overhead_fraction"), 1.2910, 0.0001);
  auto w = warnings(broken);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NE(w[0].find("Daly"), std::string::npos);
  EXPECT_NE(w[0].find("4.771 min"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("reaches the MTBF"), std::string::npos);
  EXPECT_NE(w[2].find("over 100%"), std::string::npos);
}

TEST(Checkpoint, RestartAndAChosenInterval) {
  // At 3,600 s with a 600 s restart: 60/3600 + (1800 + 600)/10800 = 0.016667 + 0.222222 = 0.238889.
  Derivation d = run("checkpoint", {{"mtbf-hours", "3"}, {"write-seconds", "60"}, {"interval-seconds", "3600"},
                                    {"restart-seconds", "600"}});
  EXPECT_DOUBLE_EQ(result(d, "interval_seconds"), 3600);
  EXPECT_NEAR(result(d, "overhead_fraction"), 0.238889, 1e-6);
  EXPECT_NEAR(result(d, "optimal_interval_seconds"), 1138.42, 0.01);
}

TEST(Lab, MeasuredFiguresByPath) {
  // data/lab-figures.json, recorded from the hash-ring measure program: 150 virtual nodes
  // per replica keep the busiest of 8 replicas within 10% of the mean.
  Derivation d = run("lab", {{"build", "hash-ring"}, {"figure", "points_150.max_over_mean_8"}});
  EXPECT_GT(result(d, "value"), 1.0);
  EXPECT_LT(result(d, "value"), 1.1);
  Errors e = errors_of("lab", {{"build", "hash-ring"}, {"figure", "points_150.nope"}});
  ASSERT_EQ(e[0].field, "figure");
  EXPECT_NE(e[0].accepted.find("points_150.max_over_mean_8"), std::string::npos);
  EXPECT_EQ(errors_of("lab", {{"build", "hash-ring"}, {"figure", "points_150"}})[0].message, "is not a number");
  EXPECT_EQ(errors_of("lab", {{"build", "nope"}, {"figure", "x"}})[0].field, "build");
}

TEST(Registry, EveryCalculatorRunsOnItsExample) {
  for (const auto& c : testing::registry().all()) {
    // The example string is "--a b --c d"; split it into a Given.
    Given given;
    std::istringstream words(c.example);
    std::string flag, value;
    while (words >> flag >> value) given[flag.substr(2)] = value;
    auto d = testing::registry().evaluate(c.name, given, testing::real_catalog());
    ASSERT_TRUE(d.ok()) << c.name << ": " << to_string(d.errors());
    for (const auto& r : d->results()) {
      EXPECT_NE(std::find(c.result_keys.begin(), c.result_keys.end(), r.key), c.result_keys.end())
          << c.name << " returned " << r.key << " outside its contract";
      EXPECT_TRUE(std::isfinite(r.value)) << c.name << "." << r.key;
    }
  }
}

TEST(Registry, UnknownCalculator) {
  Errors e = errors_of("nope", {});
  EXPECT_EQ(e[0].field, "calculator");
  EXPECT_NE(e[0].accepted.find("fit"), std::string::npos);
}

// ---- Issue 33: every formula with a range of validity says when the inputs leave it ----

std::vector<std::string> warnings_of(const Derivation& d) {
  std::vector<std::string> out;
  for (const auto& a : d.assumptions()) {
    if (a.rfind("warning:", 0) == 0) out.push_back(a);
  }
  return out;
}

// 1B parameters × 1M tokens × 6 = 6e15 FLOP on one H100 (bf16 dense peak 989.4 TFLOP/s):
// MFU = 6e15 ÷ (seconds × 989.4e12) = 6.0643 ÷ seconds, so 100% falls at 6.064 s: at 7 s it is
// 86.6%, at 6 s 101.07%.
TEST(Mfu, Finding33_AboveThePeakIsAWarning) {
  Given g = {{"params", "1B"}, {"tokens", "1M"}, {"gpu", "h100-sxm"}, {"gpus", "1"}};
  g["seconds"] = "7";
  EXPECT_TRUE(warnings_of(run("mfu", g)).empty());
  g["seconds"] = "6";
  Derivation d = run("mfu", g);
  EXPECT_NEAR(result(d, "mfu"), 1.0107, 0.0001);
  auto w = warnings_of(d);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("101.1% of the bf16 peak"), std::string::npos) << w[0];
}

// The most reuse a kernel gets from an H100's 80 GB in bf16 (b = 2 B): a square matrix multiply
// whose three operands fill it, n = sqrt(80e9 ÷ 6) = 115,470, reaches 2n ÷ 3b = 38,490 FLOP/B.
// 4e13 FLOP over 1e9 B is 40,000 FLOP/B (past it); over 2e9 B, 20,000 (inside).
TEST(Roofline, Finding33_AnIntensityNoKernelReachesIsAWarning) {
  Given g = {{"gpu", "h100-sxm"}, {"flops", "4e13"}, {"bytes", "2e9"}};
  EXPECT_TRUE(warnings_of(run("roofline", g)).empty());
  g["bytes"] = "1e9";
  auto w = warnings_of(run("roofline", g));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("38,490 FLOP/B"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("40,000 FLOP/B"), std::string::npos) << w[0];
}

// llama-3.1-8b (8,030,261,248 parameters) in bf16 on one H100: one read of the weights is
// 16.06 GB ÷ 3.35 TB/s = 4.794 ms; the matmuls at 50% of 989.4 TFLOP/s take
// 2 × 8.03e9 × prompt ÷ 494.7e12 = 32.47 µs per token, so they pass the read at about 148 tokens:
// a 100-token prompt (3.25 ms of matmuls) is memory-bound, a 200-token one (6.49 ms) is not.
TEST(Prefill, Finding33_APromptTooShortToBeComputeBoundIsAWarning) {
  Given g = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"prompt", "200"}};
  EXPECT_TRUE(warnings_of(run("prefill", g)).empty());
  g["prompt"] = "100";
  auto w = warnings_of(run("prefill", g));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("takes 4.794 ms"), std::string::npos) << w[0];
}

// llama-3.1-70b at tp 2 in bf16: 70,553,706,496 × 2 B ÷ 2 = 70.55 GB of weights per GPU leaves
// 9.45 GB of an 80 GB H100. KV per token 2 × 80 × 8 × 128 × 2 B = 327,680 B; a sequence of 8,192
// tokens holds 2.684 GB, 1.342 GB per GPU. Seven fit (9.39 GB), eight do not (10.74 GB): batch 4
// is inside, batch 8 outside.
TEST(Decode, Finding33_ABatchWhoseCacheDoesNotFitIsAWarning) {
  Given g = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "2"}, {"context", "8192"}};
  g["batch"] = "4";
  EXPECT_TRUE(warnings_of(run("decode", g)).empty());
  g["batch"] = "8";
  auto w = warnings_of(run("decode", g));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("does not fit beside the weights"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("(10.74 GB per GPU)"), std::string::npos) << w[0];
  // At tp 1 the weights alone (141 GB) pass the 80 GB.
  g["tp"] = "1";
  w = warnings_of(run("decode", g));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("weights alone"), std::string::npos) << w[0];
}

// The same per-GPU figures for a static batch of 8,000 input + 192 output tokens (8,192 at the
// end): 4 sequences fit beside the 70.55 GB of weights, 8 do not.
TEST(Serve, Finding33_AStaticBatchThatDoesNotFitIsAWarning) {
  Given g = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "2"}, {"input-tokens", "8000"},
             {"output-tokens", "192"}, {"weights-dtype", "bf16"}, {"kv-dtype", "bf16"}};
  g["batch"] = "4";
  EXPECT_TRUE(warnings_of(run("serve", g)).empty());
  g["batch"] = "8";
  auto w = warnings_of(run("serve", g));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("cannot run"), std::string::npos) << w[0];
}

// Queueing at a utilisation of 1 or more has no steady state: serve-rate refuses it (a stated
// error, not a figure). Below, the prefill utilisation it reports is rate × one prefill's time,
// which must stay under 1.
TEST(ServeRate, Finding33_AUtilisationOfOneIsRefusedNotComputed) {
  Given g = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"input-tokens", "4000"}, {"output-tokens", "10"}};
  Derivation max = run("serve-rate", g);  // maximum load: the saturation rate
  const double sat = result(max, "saturation_rate");
  ASSERT_GT(sat, 0);
  g["rate"] = format_significant(sat * 0.9, 6);
  Derivation below = run("serve-rate", g);
  double prefill = 0, utilisation = 0;
  for (const auto& s : below.steps()) {
    if (s.label == "One prompt's prefill at the mean length") prefill = s.value;
    if (s.label == "Prefill utilisation") utilisation = s.value;
  }
  EXPECT_NEAR(utilisation, sat * 0.9 * prefill, 1e-6);
  EXPECT_LT(utilisation, 1);
  g["rate"] = format_significant(sat * 1.05, 6);
  Errors e = errors_of("serve-rate", g);
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e.front().field, "rate");
  EXPECT_NE(e.front().message.find("saturates"), std::string::npos) << e.front().message;
}

}  // namespace
}  // namespace ridge::calc
