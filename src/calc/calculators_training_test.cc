// activation-memory, alltoall and layout. Each expectation is derived by hand in the
// comment above it, from Korthikanti et al. 2022 (Table 2), the catalog's figures and the
// models' config.json.
#include <gtest/gtest.h>

#include "calc/common.h"
#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

// GPT-3 175B as in the paper: h = 12,288, a = 96, L = 96, s = 2,048, b = 1.
// s·b·h = 2,048 × 1 × 12,288 = 25,165,824; a·s/h = 96 × 2,048 / 12,288 = 16, so 5·a·s/h = 80.
Given gpt3(Given extra) {
  Given g = {{"hidden", "12288"}, {"layers", "96"}, {"heads", "96"}, {"seq", "2048"}};
  for (auto& [k, v] : extra) g[k] = v;
  return g;
}

TEST(ActivationMemory, NoParallelismIsThePapersEquationOne) {
  // s·b·h × (34 + 80) = 25,165,824 × 114 = 2,868,903,936 B per layer; 96 layers on one
  // stage, one microbatch in flight: × 96 = 275,414,777,856 B.
  Derivation d = run("activation-memory", gpt3({}));
  EXPECT_DOUBLE_EQ(result(d, "activation_bytes_per_layer"), 2868903936.0);
  EXPECT_DOUBLE_EQ(result(d, "layers_per_stage"), 96);
  EXPECT_DOUBLE_EQ(result(d, "microbatches_in_flight"), 1);
  EXPECT_DOUBLE_EQ(result(d, "activation_bytes_per_gpu"), 275414777856.0);
  // The paper is cited in the assumptions.
  bool cited = false;
  for (const auto& a : d.assumptions()) cited = cited || a.find("Korthikanti et al. 2022") != std::string::npos;
  EXPECT_TRUE(cited);
}

TEST(ActivationMemory, TensorParallelWithAndWithoutSequenceParallel) {
  // t = 8 without SP: s·b·h × (10 + 24/8 + 80/8) = 25,165,824 × 23 = 578,813,952 B.
  EXPECT_DOUBLE_EQ(result(run("activation-memory", gpt3({{"tp", "8"}})), "activation_bytes_per_layer"), 578813952.0);
  // With SP: s·b·h/8 × 114 = 3,145,728 × 114 = 358,612,992 B.
  EXPECT_DOUBLE_EQ(result(run("activation-memory", gpt3({{"tp", "8"}, {"sequence-parallel", "on"}})),
                          "activation_bytes_per_layer"),
                   358612992.0);
}

TEST(ActivationMemory, SelectiveAndFullRecomputation) {
  // Selective without SP: s·b·h × (10 + 24/8) = 25,165,824 × 13 = 327,155,712 B.
  EXPECT_DOUBLE_EQ(result(run("activation-memory", gpt3({{"tp", "8"}, {"recompute", "selective"}})),
                          "activation_bytes_per_layer"),
                   327155712.0);
  // Selective with SP: s·b·h × 34 / 8 = 106,954,752 B.
  EXPECT_DOUBLE_EQ(result(run("activation-memory",
                              gpt3({{"tp", "8"}, {"recompute", "selective"}, {"sequence-parallel", "on"}})),
                          "activation_bytes_per_layer"),
                   106954752.0);
  // Full: 2·s·b·h = 50,331,648 B; with SP the stored input is split too: ÷ 8 = 6,291,456 B.
  EXPECT_DOUBLE_EQ(result(run("activation-memory", gpt3({{"tp", "8"}, {"recompute", "full"}})),
                          "activation_bytes_per_layer"),
                   50331648.0);
  EXPECT_DOUBLE_EQ(result(run("activation-memory", gpt3({{"tp", "8"}, {"recompute", "full"}, {"sequence-parallel", "on"}})),
                          "activation_bytes_per_layer"),
                   6291456.0);
}

TEST(ActivationMemory, PipelineFirstStageHoldsPpMicrobatches) {
  // Selective + SP at t = 8, p = 8: 96 / 8 = 12 layers per stage, 8 microbatches in flight:
  // 106,954,752 × 12 × 8 = 10,267,656,192 B. With only 2 microbatches: × 12 × 2 = 2,566,914,048 B.
  Given g = gpt3({{"tp", "8"}, {"pp", "8"}, {"recompute", "selective"}, {"sequence-parallel", "on"}});
  Derivation d = run("activation-memory", g);
  EXPECT_DOUBLE_EQ(result(d, "layers_per_stage"), 12);
  EXPECT_DOUBLE_EQ(result(d, "microbatches_in_flight"), 8);
  EXPECT_DOUBLE_EQ(result(d, "activation_bytes_per_gpu"), 10267656192.0);
  g["microbatches"] = "2";
  EXPECT_DOUBLE_EQ(result(run("activation-memory", g), "activation_bytes_per_gpu"), 2566914048.0);
}

TEST(ActivationMemory, FourByteActivationsScaleTheTerms) {
  // e = 4: 34 → 16 × 4 + 2 = 66, 5 → 2 × 4 + 1 = 9; with SP at t = 8:
  // 3,145,728 × (66 + 9 × 16) = 3,145,728 × 210 = 660,602,880 B.
  EXPECT_DOUBLE_EQ(result(run("activation-memory", gpt3({{"tp", "8"}, {"sequence-parallel", "on"}, {"dtype", "fp32"}})),
                          "activation_bytes_per_layer"),
                   660602880.0);
}

TEST(ActivationMemory, ShapeFromTheModel) {
  // Llama 3.1 70B: h = 8,192, a = 64. Selective + SP at t = 8, s = 8,192:
  // 8,192 × 1 × 8,192 × 34 / 8 = 285,212,672 B.
  Derivation d = run("activation-memory", {{"model", "llama-3.1-70b"}, {"seq", "8192"}, {"tp", "8"},
                                           {"sequence-parallel", "on"}, {"recompute", "selective"}});
  EXPECT_DOUBLE_EQ(result(d, "activation_bytes_per_layer"), 285212672.0);
}

TEST(ActivationMemory, ErrorsNameTheField) {
  // 96 heads are not divisible by 5, 96 layers not by 7: both reported.
  Errors e = errors_of("activation-memory", gpt3({{"tp", "5"}, {"pp", "7"}}));
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].field, "tp");
  EXPECT_NE(e[0].accepted.find("1, 2, 3, 4, 6, 8"), std::string::npos);
  EXPECT_EQ(e[1].field, "pp");
  EXPECT_EQ(errors_of("activation-memory", {{"model", "llama-3.1-8b"}, {"hidden", "4096"}, {"seq", "8"}})[0].field,
            "hidden");
  EXPECT_EQ(errors_of("activation-memory", {{"seq", "8"}}).size(), 3u);  // hidden, layers, heads
  EXPECT_EQ(errors_of("activation-memory", gpt3({{"recompute", "some"}}))[0].field, "recompute");
  // SP splits the sequence: 2,050 is not divisible by 8.
  EXPECT_EQ(errors_of("activation-memory", gpt3({{"seq", "2050"}, {"tp", "8"}, {"sequence-parallel", "on"}}))[0].field,
            "seq");
}

TEST(Alltoall, DeepSeekV3AcrossEightNodes) {
  // DeepSeek-V3: h = 7,168, top-8, 58 MoE layers (61 − 3 dense). 4,096 tokens in bf16:
  // dispatch 4,096 × 8 × 7,168 × 2 = 469,762,048 B. EP 64 over nodes of 8 (DGX H100):
  // off the node (64 − 8)/64 = 0.875 → 411,041,792 B; to the node's other GPUs 7/64 →
  // 51,380,224 B. Inter at 8 × 50 GB/s ÷ 8 = 50 GB/s: 8.22083584 ms; intra at 900/2 =
  // 450 GB/s: 114.18 us. Per layer 2 × 8.22083584 ms = 16.44167168 ms; × 58 = 0.95361696 s.
  Derivation d = run("alltoall", {{"model", "deepseek-v3"}, {"tokens", "4096"}, {"ep", "64"}, {"gpu", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(result(d, "dispatch_bytes_per_gpu"), 469762048.0);
  EXPECT_DOUBLE_EQ(result(d, "combine_bytes_per_gpu"), 469762048.0);
  EXPECT_DOUBLE_EQ(result(d, "off_node_fraction"), 0.875);
  EXPECT_DOUBLE_EQ(result(d, "off_gpu_fraction"), 63.0 / 64);
  EXPECT_DOUBLE_EQ(result(d, "inter_node_bytes"), 411041792.0);
  EXPECT_DOUBLE_EQ(result(d, "intra_node_bytes"), 51380224.0);
  EXPECT_NEAR(result(d, "inter_node_seconds"), 8.22083584e-3, 1e-12);
  EXPECT_NEAR(result(d, "intra_node_seconds"), 51380224.0 / 450e9, 1e-12);
  EXPECT_NEAR(result(d, "seconds_per_layer"), 16.44167168e-3, 1e-12);
  EXPECT_NEAR(result(d, "seconds_per_forward"), 0.95361695744, 1e-9);
}

TEST(Alltoall, InsideOneNodeNothingLeaves) {
  // EP 8 on 8 GPUs per node: 7/8 of 469,762,048 B = 411,041,792 B over NVLink at 450 GB/s =
  // 913.426 us; per layer × 2 = 1.826852 ms; no inter-node bytes.
  Derivation d = run("alltoall", {{"hidden", "7168"}, {"top-k", "8"}, {"tokens", "4096"}, {"ep", "8"}, {"gpu", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(result(d, "off_node_fraction"), 0);
  EXPECT_DOUBLE_EQ(result(d, "inter_node_bytes"), 0);
  EXPECT_DOUBLE_EQ(result(d, "intra_node_bytes"), 411041792.0);
  EXPECT_NEAR(result(d, "seconds_per_layer"), 2 * 411041792.0 / 450e9, 1e-12);
  EXPECT_EQ(d.find("seconds_per_forward"), nullptr);  // no model, no layer count
}

TEST(Alltoall, ErrorsNameTheField) {
  // 12 GPUs is one and a half nodes of 8.
  EXPECT_EQ(errors_of("alltoall", {{"model", "deepseek-v3"}, {"tokens", "1k"}, {"ep", "12"}, {"gpu", "h100-sxm"}})[0].field,
            "ep");
  // 3 does not divide the 256 routed experts.
  Errors e = errors_of("alltoall", {{"model", "deepseek-v3"}, {"tokens", "1k"}, {"ep", "3"}, {"gpu", "h100-sxm"}});
  EXPECT_EQ(e[0].field, "ep");
  EXPECT_NE(e[0].accepted.find("128, 256"), std::string::npos);
  EXPECT_EQ(errors_of("alltoall", {{"model", "llama-3.1-8b"}, {"tokens", "1k"}, {"ep", "8"}})[0].field, "model");
  // Across nodes with no chip to take the NIC figure from.
  EXPECT_EQ(errors_of("alltoall", {{"hidden", "7168"}, {"top-k", "8"}, {"tokens", "1k"}, {"ep", "16"},
                                   {"intra-bandwidth", "450GB/s"}})[0].field,
            "inter-bandwidth");
}

TEST(Layout, Llama70BOn1024H100) {
  // dp = 1,024 / (8 × 4 × 1) = 32; microbatches 512 / (32 × 1) = 16; bubble 3 / (16 + 3).
  // The first stage holds the most (issue 31: the heaviest stage sets the memory): its 20
  // layers and the input embedding V·h = 128,256 × 8,192 = 1,050,673,152. Per layer
  // (70,553,706,496 − 2 × 1,050,673,152) ÷ 80 = 855,654,502.4, so the stage holds
  // 20 × 855,654,502.4 + 1,050,673,152 = 18,163,763,200, ÷ tp 8 = 2,270,470,400 per rank.
  // ZeRO-1 over dp = 32: (2 + 2 + 12/32) × 2,270,470,400 = 9,933,308,000 B.
  // Activations (selective + SP, t = 8, s = 8,192): 285,212,672 B per layer × 20 layers ×
  // min(4, 16) = 4 in flight = 22,817,013,760 B. Total 32,750,321,760 B < 80 GB: fits.
  // (The last stage holds as much state, its output layer in place of the embedding, but one
  // microbatch of activations.)
  Derivation d = run("layout", {{"model", "llama-3.1-70b"}, {"gpus", "1024"}, {"tp", "8"}, {"pp", "4"},
                                {"global-batch", "512"}, {"seq", "8192"}, {"sequence-parallel", "on"},
                                {"recompute", "selective"}, {"gpu", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(result(d, "dp"), 32);
  EXPECT_DOUBLE_EQ(result(d, "microbatches"), 16);
  EXPECT_DOUBLE_EQ(result(d, "bubble_fraction"), 3.0 / 19);
  EXPECT_NEAR(result(d, "state_bytes_per_gpu"), 9933308000.0, 1.0);
  EXPECT_DOUBLE_EQ(result(d, "activation_bytes_per_gpu"), 22817013760.0);
  EXPECT_NEAR(result(d, "memory_bytes_per_gpu"), 32750321760.0, 1.0);
  EXPECT_EQ(result(d, "fits"), 1);
}

TEST(Layout, ContextParallelHalvesTheSequencePerRank) {
  // cp = 2 on the same job: dp = 1,024 / (8 × 4 × 2) = 16, microbatches 512 / 16 = 32;
  // each rank holds 4,096 tokens: 4,096 × 8,192 × 34 / 8 = 142,606,336 B per layer × 20 × 4
  // = 11,408,506,880 B. ZeRO-1 shards over dp × cp = 32, so the state is unchanged.
  Derivation d = run("layout", {{"model", "llama-3.1-70b"}, {"gpus", "1024"}, {"tp", "8"}, {"pp", "4"}, {"cp", "2"},
                                {"global-batch", "512"}, {"seq", "8192"}, {"sequence-parallel", "on"},
                                {"recompute", "selective"}});
  EXPECT_DOUBLE_EQ(result(d, "dp"), 16);
  EXPECT_DOUBLE_EQ(result(d, "microbatches"), 32);
  EXPECT_DOUBLE_EQ(result(d, "activation_bytes_per_gpu"), 11408506880.0);
  EXPECT_NEAR(result(d, "state_bytes_per_gpu"), 9933308000.0, 1.0);
  EXPECT_EQ(d.find("fits"), nullptr);  // no --gpu, no verdict
}

TEST(Layout, ExpertParallelismSplitsTheExperts) {
  // Qwen3-30B-A3B, 128 experts on 64 GPUs with dp = 64, no ZeRO: the expert state per GPU
  // is X / ep and the rest does not depend on ep, so X/4 − X/8 = X/8 is twice X/8 − X/16.
  Given g = {{"model", "qwen3-30b-a3b"}, {"gpus", "64"}, {"global-batch", "64"}, {"seq", "4096"}, {"zero-stage", "0"}};
  g["ep"] = "4";
  double ep4 = result(run("layout", g), "state_bytes_per_gpu");
  g["ep"] = "8";
  Derivation d8 = run("layout", g);
  double ep8 = result(d8, "state_bytes_per_gpu");
  g["ep"] = "16";
  double ep16 = result(run("layout", g), "state_bytes_per_gpu");
  EXPECT_NEAR(ep4 - ep8, 2 * (ep8 - ep16), 1.0);
  EXPECT_DOUBLE_EQ(result(d8, "memory_bytes_per_gpu"),
                   result(d8, "state_bytes_per_gpu") + result(d8, "activation_bytes_per_gpu"));
}

TEST(Layout, EveryDivisibilityFailureIsNamed) {
  // 1,000 GPUs / (3 × 3 × 2) is not whole; 64 heads / 3 and 80 layers / 3 are not whole;
  // 8,191 is odd, so not divisible by 2 × cp = 4; Llama is dense, so ep = 2 is refused;
  // with dp = floor(1,000 / 18) = 55, 500 sequences are not a multiple of 55 × 1.
  Errors e = errors_of("layout", {{"model", "llama-3.1-70b"}, {"gpus", "1000"}, {"tp", "3"}, {"pp", "3"}, {"cp", "2"},
                                  {"ep", "2"}, {"global-batch", "500"}, {"seq", "8191"}});
  ASSERT_EQ(e.size(), 6u) << to_string(e);
  EXPECT_EQ(e[0].field, "gpus");
  EXPECT_EQ(e[1].field, "tp");
  EXPECT_EQ(e[2].field, "pp");
  EXPECT_EQ(e[3].field, "seq");
  EXPECT_EQ(e[4].field, "ep");
  EXPECT_EQ(e[5].field, "global-batch");
  EXPECT_NE(e[5].accepted.find("55"), std::string::npos);
  // An explicit dp that does not multiply out: 8 × 4 × 16 × 1 = 512, not 1,024.
  EXPECT_EQ(errors_of("layout", {{"model", "llama-3.1-70b"}, {"gpus", "1024"}, {"tp", "8"}, {"pp", "4"}, {"dp", "16"},
                                 {"global-batch", "512"}, {"seq", "8192"}})[0]
                .accepted,
            "512 GPUs, or a dp that makes the product 1,024");
  // 128 experts are not divisible by 3, and 3 does not divide dp × cp = 64.
  Errors moe = errors_of("layout", {{"model", "qwen3-30b-a3b"}, {"gpus", "64"}, {"ep", "3"}, {"global-batch", "64"},
                                    {"seq", "4096"}});
  ASSERT_EQ(moe.size(), 2u);
  EXPECT_EQ(moe[0].field, "ep");
  EXPECT_EQ(moe[1].field, "ep");
}


TEST(Layout, Llama405BOnPp8Vp8NamesTheOptionThenAcceptsIt) {
  // 126 layers on pp 8 × vp 8: refused, naming Megatron-LM's accounting; accepted with it.
  Given g{{"model", "llama-3.1-405b"}, {"gpus", "1024"}, {"tp", "8"}, {"pp", "8"}, {"vp", "8"}, {"cp", "2"},
          {"global-batch", "512"}, {"seq", "8192"}, {"sequence-parallel", "on"}, {"recompute", "selective"}};
  Errors e = errors_of("layout", g);
  ASSERT_EQ(e.size(), 1u) << to_string(e);
  EXPECT_EQ(e[0].field, "pp");
  EXPECT_NE(e[0].accepted.find("--account-for-embedding-in-pipeline-split"), std::string::npos) << e[0].accepted;
  g["account-for-embedding"] = "on";
  g["account-for-loss"] = "on";
  Derivation d = run("layout", g);
  // dp = 1,024 ÷ (8 × 8 × 2) = 8; microbatches 512 ÷ 8 = 64; bubble (7/8) ÷ (64 + 7/8).
  EXPECT_DOUBLE_EQ(result(d, "bubble_fraction"), (7.0 / 8) / (64 + 7.0 / 8));
  // The first stage (15 layers + the embedding, 8 × (1 + 7/64) microbatches in flight) holds the
  // most: its activations are 15 × 8.875 = 133.125 layers' worth, against the second stage's
  // 16 × 7 = 112.
  const double per_layer = result(run("activation-memory", {{"model", "llama-3.1-405b"}, {"seq", "4096"},
                                                             {"tp", "8"}, {"sequence-parallel", "on"},
                                                             {"recompute", "selective"}}),
                                  "activation_bytes_per_layer");
  EXPECT_NEAR(result(d, "activation_bytes_per_gpu"), per_layer * 15 * 8 * (1 + 7.0 / 64), 1.0);
}

// Issue 28, critical: the divisors that a refusal lists were found by counting up to dp × cp
// (29 s of a worker for dp = 9,999,991 and cp = 1,024). They are found in pairs below √n; a
// number with many divisors lists the small ones, the largest and the count.
TEST(Layout, Finding28_RefusalListsDivisorsOfAHugeProductWithoutCountingToIt) {
  EXPECT_EQ(detail::divisors(12), "1, 2, 3, 4, 6, 12");
  EXPECT_EQ(detail::divisors(49), "1, 7, 49");
  EXPECT_EQ(detail::divisors(1), "1");
  // 9,999,991 is prime, so 9,999,991 × 1,024 has 11 × 2 = 22 divisors.
  std::string big = detail::divisors(int64_t{9999991} * 1024);
  EXPECT_EQ(big.substr(0, 28), "1, 2, 4, 8, 16, 32, 64, 128,");
  EXPECT_NE(big.find("9999991, 19999982"), std::string::npos) << big;
  EXPECT_EQ(big.substr(big.size() - 11), "10239990784") << big;
  // 720,720 = 2^4 × 3^2 × 5 × 7 × 11 × 13 has 5 × 3 × 2 × 2 × 2 × 2 = 240 divisors.
  std::string many = detail::divisors(720720);
  EXPECT_NE(many.find("... 720720 (240 divisors in all)"), std::string::npos) << many;

  auto errors = errors_of("layout", {{"model", "mixtral-8x7b"}, {"gpus", "8"}, {"dp", "9999991"}, {"cp", "1024"},
                                     {"ep", "3"}, {"seq", "4096"}, {"global-batch", "1024"}});
  std::string text = to_string(errors);
  EXPECT_NE(text.find("does not divide dp × cp"), std::string::npos) << text;
  EXPECT_NE(text.find("10239990784"), std::string::npos) << text;
}

}  // namespace
}  // namespace ridge::calc
