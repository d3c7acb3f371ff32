// The performance model's calculators, `step` and `serve`. Each expectation is derived by hand
// in the comment above it. The fitted constants are pinned in every call (efficiency 0.5, link
// 1, no per-layer overhead) so that a refit changes `ridge validate`, not these tests.
#include <gtest/gtest.h>

#include "calc/test_catalog.h"
#include "calc/training.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

Given korthikanti_22b() {
  // Korthikanti et al. 2022, Table 3: 22B on 8 A100s, TP 8, batch 4 = one micro-batch of 4.
  return {{"model", "megatron-gpt-22b"}, {"gpu", "a100-80gb-sxm"}, {"gpus", "8"}, {"tp", "8"},
          {"seq", "2048"}, {"micro-batch", "4"}, {"global-batch", "4"}, {"recompute", "selective"},
          {"gemm-efficiency-max", "0.5"}, {"gemm-half-intensity", "0"}, {"link-efficiency", "1"},
          {"collective-latency", "0"}};
}

TEST(Step, Korthikanti22BOnEightA100s) {
  // N = V·h + L·(12h² + 9h + 2h norms) + h = 51,200·6,144 + 48 × 453,052,416 + 6,144
  //   = 22,061,094,912 (tied embeddings, the logit layer counted once).
  // Matmul FLOPs  6 × N × b·s = 6 × 22,061,094,912 × 8,192 = 1,084,346,937,114,624
  // Attention     12 × L × s² × h × b = 12 × 48 × 2,048² × 6,144 × 4 = 59,373,627,899,904
  // Selective     4 × 48 × 2,048² × 6,144 × 4 = 19,791,209,299,968
  // Per GPU       (sum) ÷ 8 = 145,438,971,789,312 FLOP; at 312 TFLOP/s × 0.5: 0.93230 s
  // TP            4 × 48 layers × 2·7/8 × (4·2,048·6,144·2 B = 100,663,296 B) ÷ 300 GB/s = 0.11274 s
  // Optimizer     22,061,094,912 ÷ 8 × 32 B ÷ 2,039 GB/s = 0.04328 s
  // Step          0.93230 + 0.11274 + 0.04328 = 1.08832 s (the paper measured 1.10 s)
  Derivation d = run("step", korthikanti_22b());
  EXPECT_NEAR(result(d, "step_seconds"), 1.08832, 1e-4);
  EXPECT_NEAR(result(d, "compute_seconds"), 0.93230, 1e-4);
  EXPECT_NEAR(result(d, "exposed_comm_seconds"), 0.11274, 1e-4);
  EXPECT_DOUBLE_EQ(result(d, "bubble_fraction"), 0);
  // MFU = (matmul + attention) ÷ step ÷ 8 ÷ 312 TFLOP/s = 1.14372e15 ÷ 1.08832 ÷ 2.496e15 = 0.4210;
  // HFU adds the recomputation: 1.16351e15 ÷ 1.08832 ÷ 2.496e15 = 0.4283 (the paper: 41.5%, 43.7%).
  EXPECT_NEAR(result(d, "mfu"), 0.4210, 1e-3);
  EXPECT_NEAR(result(d, "hfu"), 0.4283, 1e-3);
  // 4 × 2,048 tokens ÷ 1.08832 s ÷ 8 GPUs = 940.9 tokens/s per GPU.
  EXPECT_NEAR(result(d, "tokens_per_second_per_gpu"), 940.9, 0.1);
}

TEST(Step, FullRecomputationAddsAThirdOfTheLayers) {
  // Full recomputation: one more forward of the layers, (6 × (N − V·h) × b·s + attention) ÷ 3
  // = (6 × 21,746,522,112 × 8,192 + 59,373,627,899,904) ÷ 3 = 376,086,227,582,976 FLOP instead of
  // selective's 19,791,209,299,968; per GPU the difference is 44,536,877,285,376 FLOP = 0.28549 s
  // at 156 TFLOP/s, and the TP collectives go from 4 to 6 per layer: + 0.05637 s.
  Given g = korthikanti_22b();
  g["recompute"] = "full";
  Derivation full = run("step", g);
  EXPECT_NEAR(result(full, "step_seconds"), 1.08832 + 0.28549 + 0.05637, 2e-4);
}

TEST(Step, BubbleIsItsShareOfTheStep) {
  // 175B (96 layers) on 64 GPUs: TP 8, PP 8, DP 1; 64 micro-batches of 1; vp 3. The bubble is
  // (8 − 1) ÷ 3 micro-batch slots, and the pipeline runs 64 + 7/3 of them, so its share of the
  // pipeline time is (7/3) ÷ (64 + 7/3) = 0.035176, the pipeline-bubble calculator's figure; the
  // optimizer step (outside the pipeline) makes its share of the whole step a little smaller.
  Given g{{"model", "gpt-3-175b"}, {"gpu", "a100-80gb-sxm"}, {"gpus", "64"}, {"tp", "8"}, {"pp", "8"},
          {"vp", "3"}, {"seq", "2048"}, {"global-batch", "64"}};
  Derivation d = run("step", g);
  const double pipeline_share = (7.0 / 3) / (64 + 7.0 / 3);
  EXPECT_LT(result(d, "bubble_fraction"), pipeline_share);
  EXPECT_GT(result(d, "bubble_fraction"), 0.99 * pipeline_share);
  Derivation pb = run("pipeline-bubble", {{"stages", "8"}, {"microbatches", "64"}, {"schedule", "interleaved"},
                                          {"virtual-stages", "3"}});
  EXPECT_NEAR(result(pb, "bubble_fraction"), pipeline_share, 1e-9);
  // Two micro-batches on eight stages: idle 7 of 2 + 7 slots. A share, never above 1 (the old
  // (pp − 1) ÷ m read 350%).
  g["vp"] = "1";
  g["global-batch"] = "2";
  Derivation few = run("step", g);
  EXPECT_LT(result(few, "bubble_fraction"), 7.0 / 9);
  EXPECT_GT(result(few, "bubble_fraction"), 0.95 * 7.0 / 9);  // the optimizer step is a larger share here
}

TEST(Step, GradientReduceDtypeFollowsMegatronDefaults) {
  // 22B on 16 GPUs, TP 8, DP 2: the all-reduce moves 2(d−1)/d = 1 × params per GPU × bytes. bf16
  // training reduces in fp32 by default (4 B); --grad-reduce-dtype bf16 halves it; fp16 training
  // reduces in fp16. Params per GPU 22,061,094,912 ÷ 8 = 2,757,636,864; at 25 GB/s × 1:
  // fp32 0.441222 s, 16-bit 0.220611 s.
  Given g = korthikanti_22b();
  g["gpus"] = "16";
  g["global-batch"] = "8";
  const double fp32 = result(run("step", g), "exposed_comm_seconds");
  g["grad-reduce-dtype"] = "bf16";
  const double bf16 = result(run("step", g), "exposed_comm_seconds");
  EXPECT_NEAR(fp32 - bf16, 0.220611, 1e-5);
  g["grad-reduce-dtype"] = "auto";
  g["dtype"] = "fp16";
  EXPECT_NEAR(result(run("step", g), "exposed_comm_seconds"), bf16, 1e-9);
  // Half of it hidden behind backward: half the fp32 time left.
  g["dtype"] = "bf16";
  g["dp-overlap"] = "0.5";
  EXPECT_NEAR(fp32 - result(run("step", g), "exposed_comm_seconds"), 0.220611, 1e-5);
}

TEST(Step, LayoutErrorsAreNamed) {
  // 12 GPUs are not a multiple of tp 8; 6 sequences are not whole micro-batches of 4; 5 does not
  // divide 64 heads; pp 5 does not divide 48 layers.
  Given g = korthikanti_22b();
  g["gpus"] = "12";
  EXPECT_NE(to_string(errors_of("step", g)).find("--gpus"), std::string::npos);
  g = korthikanti_22b();
  g["global-batch"] = "6";
  EXPECT_NE(to_string(errors_of("step", g)).find("--global-batch"), std::string::npos);
  g = korthikanti_22b();
  g["tp"] = "5";
  g["gpus"] = "5";
  EXPECT_NE(to_string(errors_of("step", g)).find("--tp"), std::string::npos);
  g = korthikanti_22b();
  g["pp"] = "5";
  g["gpus"] = "40";
  EXPECT_NE(to_string(errors_of("step", g)).find("--pp"), std::string::npos);
  g = korthikanti_22b();
  g["ep"] = "2";
  EXPECT_NE(to_string(errors_of("step", g)).find("--ep"), std::string::npos);
}

// Issue 31: any layout the frameworks accept. Megatron-LM's rules (transformer_config.py).
TEST(PipelineSplit, AccountingForEmbeddingAndLossMakesLlama405BOnPp8Vp8Valid) {
  // 126 layers on pp 8 × vp 8 = 64 slots: refused evenly, and the refusal names the option:
  // (126 + 2) ÷ 64 = 2 slots per virtual stage.
  detail::PipelineRequest r;
  r.layers = 126;
  r.pp = 8;
  r.vp = 8;
  auto even = detail::pipeline_split(r);
  ASSERT_FALSE(even.ok());
  EXPECT_EQ(even.errors()[0].field, "pp");
  EXPECT_NE(even.errors()[0].accepted.find("--account-for-embedding on --account-for-loss on"), std::string::npos);
  EXPECT_NE(even.errors()[0].accepted.find("(126 + 2) ÷ (8 × 8) = 2"), std::string::npos) << even.errors()[0].accepted;
  r.account_embedding = r.account_loss = true;
  auto split = detail::pipeline_split(r);
  ASSERT_TRUE(split.ok());
  // 128 slots ÷ 8 ranks = 16 per rank; the first gives one to the embedding, the last to the loss.
  EXPECT_EQ(split->first, 15);
  EXPECT_EQ(split->middle, 16);
  EXPECT_EQ(split->last, 15);
}

TEST(PipelineSplit, ExplicitFirstAndLastStagesAsTheLlama3Paper) {
  // Llama 3 405B on PP 16 with one layer fewer on the first and the last stage: 7 + 14 × 8 + 7.
  detail::PipelineRequest r;
  r.layers = 126;
  r.pp = 16;
  auto even = detail::pipeline_split(r);
  ASSERT_FALSE(even.ok());
  EXPECT_NE(even.errors()[0].accepted.find("--first-stage-layers 7 --last-stage-layers 7"), std::string::npos)
      << even.errors()[0].accepted;
  r.first_layers = r.last_layers = 7;
  auto split = detail::pipeline_split(r);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->middle, 8);
  // With vp 2 the first stage's 7 layers are not a whole number of virtual stages.
  r.vp = 2;
  auto odd = detail::pipeline_split(r);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.errors()[0].field, "first-stage-layers");
  // Counts and accounting together are refused rather than one silently dropped.
  r.vp = 1;
  r.account_loss = true;
  EXPECT_EQ(detail::pipeline_split(r).errors()[0].field, "first-stage-layers");
}

TEST(Step, TheHeaviestStageSetsThePace) {
  // 22B (48 layers, V·h = 51,200 × 6,144 = 314,572,800) on pp 2, no recomputation. Per layer per
  // token the FLOPs are 6 × (453,052,416 + 2·s·h = 25,165,824) (attention 12·s²·h·b over 6·s·b
  // tokens), so the output layer weighs 314,572,800 ÷ 478,218,240 = 0.65780 of a layer. Evenly
  // split, the last stage runs 24 + 0.6578 layers' worth; with 25 layers on the first stage and
  // 23 on the last, the first runs 25. Compute is proportional: 25 ÷ 24.6578 = 1.013878.
  Given g = korthikanti_22b();
  g["gpus"] = "16";
  g["pp"] = "2";
  g["recompute"] = "none";
  g["collective-latency"] = "0";
  double even = result(run("step", g), "compute_seconds");
  g["first-stage-layers"] = "25";
  g["last-stage-layers"] = "23";
  double uneven = result(run("step", g), "compute_seconds");
  EXPECT_NEAR(uneven / even, 25 / (24 + 314572800.0 / 478218240.0), 1e-5);
}

TEST(Step, Fp8RunsAttentionInBf16AndPaysForTheCasts) {
  // Llama 3.1 8B on one H100, seq 8192, micro-batch 1. In fp8 the GEMMs run at the fp8 peak
  // (2 × bf16) but attention stays at the bf16 peak, and the casts add memory traffic:
  // per token per layer 4h + P_layer ÷ h elements, P_layer = (N_active − 2·V·h) ÷ L.
  Given g{{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"gpus", "1"}, {"seq", "8192"}, {"global-batch", "1"},
          {"recompute", "none"}, {"gemm-efficiency-max", "0.5"}, {"gemm-half-intensity", "0"},
          {"collective-latency", "0"}};
  Derivation bf16 = run("step", g);
  g["dtype"] = "fp8";
  g["fp8-recipe"] = "delayed";
  Derivation delayed = run("step", g);
  g["fp8-recipe"] = "current";
  Derivation current = run("step", g);
  const double t16 = result(bf16, "compute_seconds"), t8 = result(delayed, "compute_seconds");
  // Attention (12·L·s²·h·b = 12 × 32 × 8,192² × 4,096 = 105,553,116,266,496 FLOP) takes the same
  // time in both; the GEMMs halve. So t8 − attention = (t16 − attention) ÷ 2 + casts.
  const double attn = 12.0 * 32 * 8192.0 * 8192 * 4096 / (989.4e12 * 0.5);
  const double casts = t8 - attn - (t16 - attn) / 2;
  // Casts at 4 B per element: 8,192 tokens × 32 layers × (4 × 4,096 + P_layer ÷ 4,096) × 4 B ÷
  // (3.35 TB/s × 0.87), P_layer = 218,103,808 (Llama 3.1 8B: 4,096 × (2 × 32 + 2 × 8) × 128
  // attention + 3 × 4,096 × 14,336 MLP): 8,192 × 32 × 69,632 × 4 ÷ 2.9145e12 = 25.05 ms.
  EXPECT_NEAR(casts, 8192.0 * 32 * (4 * 4096 + 218103808.0 / 4096) * 4 / (3.35e12 * 0.87), 1e-4);
  // Current scaling reads each tensor once more for its amax: 6 B instead of 4.
  EXPECT_NEAR(result(current, "compute_seconds") - t8, casts / 2, 1e-4);
}

Given llama7b_h100(const char* batch, const char* input, const char* output) {
  return {{"model", "llama-2-7b"}, {"gpu", "h100-sxm"}, {"batch", batch}, {"input-tokens", input},
          {"output-tokens", output}, {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"},
          {"bandwidth-efficiency", "1"}, {"prefill-efficiency", "1"}, {"layer-overhead", "0"},
          {"kv-group-reuse", "1"}, {"allreduce-latency", "0"}};
}

// The value of the derivation step whose label begins with `label` (-1 when there is none).
double step_value(const Derivation& d, std::string_view label) {
  for (const auto& st : d.steps()) {
    if (st.label.rfind(label, 0) == 0) return st.value;
  }
  ADD_FAILURE() << "no step " << label;
  return -1;
}

const Step* find_step(const Derivation& d, std::string_view label) {
  for (const auto& st : d.steps()) {
    if (st.label.rfind(label, 0) == 0) return &st;
  }
  return nullptr;
}

TEST(Step, UnfusedAttentionPassesTheScoresThroughHbm) {
  // Korthikanti's 22B (64 heads, TP 8, micro-batch 4, seq 2,048, selective recomputation)
  // without FlashAttention: per GPU 48 layers × 4 × 64 ÷ 8 heads × 2,048² = 6,442,450,944
  // score elements, 5.5 + 9.5 + 5.5 = 20.5 passes of 2 B: 264,140,488,704 B at 2,039 GB/s ×
  // 0.87 = 1.77393 TB/s: 0.148903 s more compute than with FlashAttention.
  Given g = korthikanti_22b();
  const double flash = result(run("step", g), "compute_seconds");
  g["attention-kernel"] = "unfused";
  const double unfused = result(run("step", g), "compute_seconds");
  EXPECT_NEAR(unfused - flash, 264140488704.0 / (2.039e12 * 0.87), 1e-4);
  // Without recomputation the forward's 5.5 passes are not repeated: 15 passes.
  g["recompute"] = "none";
  const double none_unfused = result(run("step", g), "compute_seconds");
  g["attention-kernel"] = "flash";
  EXPECT_NEAR(none_unfused - result(run("step", g), "compute_seconds"), 264140488704.0 * 15 / 20.5 / (2.039e12 * 0.87),
              1e-4);
}

Given qwen3_30b_on_b200() {
  // Megatron-Bridge 25.11's Qwen3 30B-A3B row on DGX-B200 (8 GPUs, EP 8, micro-batch 1, seq 4,096).
  return {{"model", "qwen3-30b-a3b"}, {"gpu", "b200"}, {"gpus", "8"}, {"ep", "8"}, {"seq", "4096"},
          {"micro-batch", "1"}, {"global-batch", "512"}, {"sequence-parallel", "off"}, {"dp-overlap", "1"},
          {"gemm-efficiency-max", "0.5"}, {"gemm-half-intensity", "0"}, {"collective-latency", "0"},
          {"moe-host-per-expert", "0"}, {"moe-host-per-launch", "0"}};
}

TEST(Step, MoeTokenShufflingIsMemoryBound) {
  // Qwen3 30B-A3B: h 2,048, 128 experts, top-8, expert width 768, 48 MoE layers; EP 8 leaves 16
  // experts per GPU, so the received chunks are sorted too: 24·k·h + 8·k·f elements of 2 B plus
  // 40·E B per token per layer = 2 × (24 × 8 × 2,048 + 8 × 8 × 768) + 40 × 128 = 889,856 B;
  // × 48 layers × 4,096 tokens = 174,950,350,848 B at 8 TB/s × 0.87: 25.137 ms.
  Derivation d = run("step", qwen3_30b_on_b200());
  EXPECT_NEAR(step_value(d, "MoE token shuffling"), 174950350848.0 / (8e12 * 0.87), 1e-5);
  // With one expert per GPU (EP 128 would need 128 GPUs; ep = E keeps the sort away) the sort
  // and unsort go: 16·k·h: 2 × (16 × 8 × 2,048 + 8 × 8 × 768) + 5,120 = 627,712 B per token.
  Given g = qwen3_30b_on_b200();
  g["gpus"] = "128";
  g["ep"] = "128";
  g["global-batch"] = "128";
  EXPECT_NEAR(step_value(run("step", g), "MoE token shuffling"), 627712.0 * 48 * 4096 / (8e12 * 0.87), 1e-5);
}

TEST(Step, HybridEpSendsOneCopyPerRank) {
  // perf6t. HybridEP sends a token once to each rank holding one of its experts: 16 experts per
  // rank, a rank is missed when all 8 experts fall among the other 112: C(112, 8) ÷ C(128, 8) =
  // (112 × 111 × ... × 105) ÷ (128 × 127 × ... × 121) = 19,171,799,658,950,400 ÷
  // 57,645,610,944,768,000 = 0.332580, so r = 8 × (1 − 0.332580) = 5.33936 ranks instead of 8
  // copies (latency 0 here): the all-to-all's time × 0.667420.
  Given g = qwen3_30b_on_b200();
  const double alltoall_ep = step_value(run("step", g), "EP all-to-all");
  g["moe-dispatcher"] = "hybridep";
  const Derivation d = run("step", g);
  EXPECT_NEAR(step_value(d, "EP ranks per token"), 5.33936, 1e-5);
  EXPECT_NEAR(step_value(d, "EP all-to-all") / alltoall_ep, 0.667420, 1e-6);
  // Its shuffling: 4 + 6r + 6k = 4 + 32.0362 + 48 = 84.0362 passes of h instead of 24·k = 192.
  // Per token 2 × (84.0362 × 2,048 + 8 × 8 × 768) + 40 × 128 = 447,636 B; × 48 layers × 4,096
  // tokens = 88,008,800,000 B (to 5 figures) at 8 TB/s × 0.87: 12.645 ms.
  EXPECT_NEAR(step_value(d, "MoE token shuffling"), 0.012645, 2e-6);
  // DeepEP (perf8t) sends and permutes as HybridEP does: the same 5.33936 ranks, the all-to-all
  // × 0.667420 and the same 12.645 ms of shuffling.
  g["moe-dispatcher"] = "deepep";
  const Derivation deep = run("step", g);
  EXPECT_NEAR(step_value(deep, "EP ranks per token"), 5.33936, 1e-5);
  EXPECT_NEAR(step_value(deep, "EP all-to-all") / alltoall_ep, 0.667420, 1e-6);
  EXPECT_NEAR(step_value(deep, "MoE token shuffling"), 0.012645, 2e-6);
}

TEST(Step, ExpertTpFoldsEpIntoTheTpRanks) {
  // perf8t, Megatron-Core's MoE parallel folding: 32 GPUs at TP 2 leave DP 16, so EP 32 needs the
  // experts without TP (--expert-tp 1: ep × expert-tp = 32 divides tp × dp × cp = 32).
  Given g = qwen3_30b_on_b200();
  g["gpus"] = "32";
  g["tp"] = "2";
  g["sequence-parallel"] = "on";
  g["ep"] = "32";
  g["global-batch"] = "16";
  const Errors refused = errors_of("step", g);
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(refused[0].field, "ep");
  EXPECT_NE(refused[0].accepted.find("--expert-tp 1"), std::string::npos) << refused[0].accepted;
  g["expert-tp"] = "1";
  EXPECT_GT(result(run("step", g), "step_seconds"), 0);
  // At EP 8 both are valid. Qwen3 30B-A3B (h 2,048, expert width 768, 128 experts, top-8), one
  // sequence of 4,096: with expert-tp 2 (= tp) an expert sees 4,096 × 8 × 8 ÷ 128 = 2,048 tokens
  // and 768 ÷ 2 = 384 of its width, I = 1 ÷ (1/2,048 + 1/2,048 + 1/384) = 279.27, efficiency
  // 0.5 × 279.27 ÷ 1,279.27 = 0.109153 (I_half 1,000); with expert-tp 1 each rank keeps its own
  // 2,048-token shard: M = 1,024, N = 768, I = 361.41, efficiency 0.132734.
  g["ep"] = "8";
  g["gemm-half-intensity"] = "1000";
  g["expert-tp"] = "2";
  const Derivation same = run("step", g);
  g.erase("expert-tp");
  EXPECT_NEAR(step_value(run("step", g), "Expert GEMM efficiency"), step_value(same, "Expert GEMM efficiency"), 1e-12);
  EXPECT_NEAR(step_value(same, "Expert GEMM efficiency"), 0.109153, 1e-6);
  g["expert-tp"] = "1";
  const Derivation folded = run("step", g);
  EXPECT_NEAR(step_value(folded, "Expert GEMM efficiency"), 0.132734, 1e-6);
  // The shuffling covers the rank's own shard, half the tokens (the passes per token do not change).
  EXPECT_NEAR(step_value(folded, "MoE token shuffling") / step_value(same, "MoE token shuffling"), 0.5, 1e-12);
  // Each GPU holds whole experts: 16 of them × 48 layers × 3 × 2,048 × 768 = 3,623,878,656
  // parameters instead of half that, 1,811,939,328 more × 32 B at 8 TB/s: 7.2478 ms more optimizer.
  EXPECT_NEAR(step_value(folded, "Optimizer step") - step_value(same, "Optimizer step"), 0.0072478, 1e-6);
  // An expert-tp that does not divide tp is refused.
  g["expert-tp"] = "4";
  const Errors bad = errors_of("step", g);
  ASSERT_FALSE(bad.empty());
  EXPECT_EQ(bad.back().field, "expert-tp");
}

TEST(Step, RecomputedModulesRunTheirForwardAgain) {
  // perf10t, Megatron-Core's recompute_modules (the gpt-oss recipes set layernorm and moe_act).
  // Qwen3 30B-A3B, 48 MoE layers, 4,096 tokens, h 2,048, top-8, expert width 768, at 8 TB/s × 0.87:
  // layernorm reads and writes the pre-MLP norm's h: 48 × 4,096 × 2 B × 2 × 2,048 =
  // 1,610,612,736 B = 0.231410 ms; moe_act reads 2·k·f and writes k·f: 48 × 4,096 × 2 B × 3 × 8 ×
  // 768 = 7,247,757,312 B = 1.041345 ms; both 1.272755 ms, added to the compute.
  Given g = qwen3_30b_on_b200();
  const double compute = step_value(run("step", g), "Compute per micro-batch on the stage");
  EXPECT_EQ(find_step(run("step", g), "Recomputed modules"), nullptr);
  g["recompute-modules"] = "layernorm";
  EXPECT_NEAR(step_value(run("step", g), "Recomputed modules"), 1610612736.0 / 6.96e12, 1e-9);
  g["recompute-modules"] = "moe_act";
  EXPECT_NEAR(step_value(run("step", g), "Recomputed modules"), 7247757312.0 / 6.96e12, 1e-9);
  g["recompute-modules"] = "layernorm,moe_act";
  const Derivation d = run("step", g);
  EXPECT_NEAR(step_value(d, "Recomputed modules"), 8858370048.0 / 6.96e12, 1e-9);
  EXPECT_NEAR(step_value(d, "Compute per micro-batch on the stage") - compute, 8858370048.0 / 6.96e12, 1e-9);
  // A dense model has neither module to recompute: nothing added.
  Given dense = korthikanti_22b();
  dense["recompute-modules"] = "layernorm,moe_act";
  EXPECT_EQ(find_step(run("step", dense), "Recomputed modules"), nullptr);
  // A module step does not take is refused, naming the flag; so is a list with full
  // recomputation, which already runs every module's forward again.
  g["recompute-modules"] = "mlp";
  EXPECT_NE(to_string(errors_of("step", g)).find("--recompute-modules"), std::string::npos);
  g["recompute-modules"] = "moe_act";
  g["recompute"] = "full";
  EXPECT_NE(to_string(errors_of("step", g)).find("--recompute-modules"), std::string::npos);
}

TEST(Step, MoeHostTimeHidesOnlyTheExpertGemms) {
  // 10 ms of host time per local expert per MoE layer: 48 layers × 16 experts × 10 ms = 7.68 s,
  // far above the expert GEMMs it launches, so it replaces them; the rest of the GPU's work waits
  // at the dispatcher's sync (perf5): per micro-batch = 7.68 s + compute − expert GEMMs + EP
  // all-to-all (pp 1, tp 1, cp 1: no other exchange). At 0 the GPU's work alone is under 1 s.
  Given g = qwen3_30b_on_b200();
  g["moe-host-per-expert"] = "10ms";
  const Derivation d = run("step", g);
  const double rest = step_value(d, "Compute per micro-batch on the stage") - step_value(d, "Expert GEMMs on the stage") +
                      step_value(d, "EP all-to-all");
  EXPECT_GT(rest, 0.01);
  EXPECT_NEAR(step_value(d, "Per micro-batch on the stage"), 7.68 + rest, 1e-9);
  g["moe-host-per-expert"] = "0";
  EXPECT_LT(step_value(run("step", g), "Per micro-batch on the stage"), 1.0);
}

TEST(Step, MoeHostPerLaunchCountsTheRecipesLaunches) {
  // perf7t. 10 us per launch, Qwen3 30B-A3B at EP 8 (16 local experts, 48 MoE layers, one stage).
  // bf16: 6 GEMM launches per expert (fc1 and fc2: forward, data and weight gradients):
  // 48 × 16 × 6 × 10 us = 46.08 ms. FP8 current scaling adds 4 casts × 4 kernels per expert (zero
  // the amax, amax, scale, cast): 22 launches, 48 × 16 × 22 × 10 us = 168.96 ms. MXFP8: 4 casts of
  // one kernel, 10 launches: 76.8 ms. Above 0 it replaces the per-expert constant (set to 10 ms
  // here, which would give 7.68 s).
  Given g = qwen3_30b_on_b200();
  g["moe-host-per-launch"] = "10us";
  g["moe-host-per-expert"] = "10ms";
  EXPECT_NEAR(step_value(run("step", g), "MoE host time per micro-batch"), 0.04608, 1e-9);
  g["dtype"] = "fp8";
  g["fp8-recipe"] = "current";
  EXPECT_NEAR(step_value(run("step", g), "MoE host time per micro-batch"), 0.16896, 1e-9);
  g["fp8-recipe"] = "mxfp8";
  EXPECT_NEAR(step_value(run("step", g), "MoE host time per micro-batch"), 0.0768, 1e-9);
  // At 0 the per-expert constant applies: 48 × 16 × 10 ms.
  g["moe-host-per-launch"] = "0";
  EXPECT_NEAR(step_value(run("step", g), "MoE host time per micro-batch"), 7.68, 1e-9);  // The default since perf8t is the fitted 50 us per launch, whatever the per-expert value:
  // MXFP8, 48 × 16 × 10 × 50 us = 0.384 s.
  g.erase("moe-host-per-launch");
  EXPECT_NEAR(step_value(run("step", g), "MoE host time per micro-batch"), 0.384, 1e-9);
}

TEST(Step, MoeHostPerLaunchCountsTheExpertBiasOps) {
  // gpt-oss 120B has expert biases (mlp_bias): 6 GEMMs + 8 bias launches = 14 per local expert.
  // 128 experts at EP 8: 16 local; 36 MoE layers, one stage; at 10 us: 36 × 16 × 14 × 10 us =
  // 80.64 ms.
  Given g = qwen3_30b_on_b200();
  g["model"] = "gpt-oss-120b";
  g["moe-host-per-launch"] = "10us";
  EXPECT_NEAR(step_value(run("step", g), "MoE host time per micro-batch"), 0.08064, 1e-9);
}

TEST(Step, ExpertGradientsReduceOverTheExpertDataParallelGroup) {
  // 16 GPUs (two DGX B200), EP 8: the experts' DP group is 2 ranks, one per node, so its ring
  // has one 400 Gb/s NIC per GPU: 50 GB/s × 0.7 = 35 GB/s. Its bytes: one expert is 3 × 2,048 ×
  // 768 = 4,718,592 params; 128 × 48 ÷ 8 of them per GPU = 3,623,878,656, fp32 gradients
  // 14,495,514,624 B; 2(d−1)/d = 1: 0.414158 s, on top of the dense parameters' all-reduce.
  Given g = qwen3_30b_on_b200();
  g["gpus"] = "16";
  g["dp-overlap"] = "0";
  const Step* st = find_step(run("step", g), "DP gradient all-reduces, dense and expert");
  ASSERT_NE(st, nullptr);
  EXPECT_NE(st->substituted.find("and 35 GB/s"), std::string::npos) << st->substituted;
  EXPECT_GT(st->value, 14495514624.0 / 35e9);
  EXPECT_LT(st->value, 14495514624.0 / 35e9 + 0.1);  // the dense ~1.9B params ride all 8 NICs
}

TEST(Step, DpOverlapHidesAtMostOneMicroBatch) {
  // Same 16 GPUs with overlap 1: the exposed DP time is the collective less one micro-batch.
  Given g = qwen3_30b_on_b200();
  g["gpus"] = "16";
  g["dp-overlap"] = "1";
  Derivation d = run("step", g);
  const double raw = step_value(d, "DP gradient all-reduces, dense and expert");
  const double mb = step_value(d, "Per micro-batch on the stage");
  EXPECT_NEAR(step_value(d, "DP gradient all-reduce (exposed)"), std::max(0.0, raw - mb), 1e-9);
  EXPECT_GT(raw, mb);  // so the bound binds here and the test can fail
}

TEST(Serve, Llama7BBatchOneIsWeightBound) {
  // Llama 2 7B: N = 2 × 32,000 × 4,096 + 32 × (4·4,096² + 3·4,096·11,008 + 2·4,096) + 4,096
  //   = 6,738,415,616; matmul params (no input embedding) 6,607,343,616.
  // Prefill GEMMs of 128 tokens: 2 × 6,607,343,616 × 128 = 1.69148e12 FLOP = 0.8548 ms at
  //   1,978.9 TFLOP/s (fp8), below reading 6,738,415,616 B at 3.35 TB/s = 2.011467 ms as one
  //   roofline. perf8s prices each GEMM by 128 × 128 tiles in waves over 132 SMs (gemm_waves.h),
  //   14.992 TFLOP/s per SM, a tile's K-loop 32,768 × K FLOP, each GEMM max(waves × tile, its read):
  //   QKV (N 12,288, K 4,096) 96 tiles, 1 wave 8.953 us < read 15.024 us, × 32 = 480.780 us;
  //   O (4,096, 4,096) 32 tiles, 1 wave 8.953 us > read 5.008 us, × 32 = 286.490 us;
  //   gate/up (22,016, 4,096) 172 tiles, 2 waves 17.906 us < read 26.919 us, × 32 = 861.397 us;
  //   down (4,096, 11,008) 32 tiles, 1 wave 24.061 us > read 13.459 us, × 32 = 769.943 us;
  //   LM head (32,000, 4,096) 250 tiles, 2 waves 17.906 us < read 39.126 us.
  //   GEMMs 2.437736 ms; attention 2 × 32 × 128² × 4,096 = 4.295e9 FLOP = 0.002170 ms on top:
  //   TTFT 2.439906 ms (2.013638 ms with the FLOP count alone, gemm-tile-m 0).
  Derivation d = run("serve", llama7b_h100("1", "128", "1"));
  EXPECT_NEAR(result(d, "ttft_seconds"), 2.439906e-3, 1e-8);
  // Decode at context 128 + 1/2: KV 2 × 32 × 32 × 128 × 1 B = 262,144 B/token × 128.5 = 33,685,504 B
  //   = 0.010055 ms after the 2.011467 ms weight read: 2.021523 ms per token.
  EXPECT_NEAR(result(d, "tpot_seconds"), 2.021523e-3, 1e-8);
  EXPECT_NEAR(result(d, "output_tokens_per_second"), 1 / 2.021523e-3, 0.1);
  // One output token comes out of the prefill: the request is TTFT + 0 × TPOT, 409.85 requests/s.
  EXPECT_NEAR(result(d, "requests_per_second"), 1 / 2.439906e-3, 0.1);
  // Without tiles the old roofline: 2.011467 + 0.002170 = 2.013637 ms.
  Given flat = llama7b_h100("1", "128", "1");
  flat["gemm-tile-m"] = "0";
  EXPECT_NEAR(result(run("serve", flat), "ttft_seconds"), 2.013638e-3, 1e-8);
}

TEST(Serve, LargeBatchDecodeAddsAttentionToComputeBoundGemms) {
  // Batch 768, 128 in, 128 out: the GEMMs do 2 × 6,607,343,616 × 768 FLOP = 5.128546 ms at
  // 1,978.9 TFLOP/s (above the 2.011467 ms weight read), and attention then reads
  // 768 × (128 + 64) × 262,144 B = 38.65 GB of KV in 11.538718 ms (its 4·L·b·ctx·h FLOPs take
  // 0.039 ms): a separate kernel, so the two add: 16.667264 ms.
  Derivation d = run("serve", llama7b_h100("768", "128", "128"));
  EXPECT_NEAR(result(d, "tpot_seconds"), 16.667264e-3, 1e-8);
}

TEST(Serve, TensorParallelSplitsTheWeightsAndAddsAllReduces) {
  // tp 2 halves the weight read: 3,369,207,808 B ÷ 3.35 TB/s = 1.00573 ms of the decode step; the
  // KV (16 KV heads per GPU, 16,842,752 B) adds 0.00503 ms; two all-reduces per layer of 4,096 × 2 B
  // move 2 × 32 × 2·1/2 × 8,192 B = 524,288 B at 450 GB/s × 0.7: 0.00166 ms. Sum 1.01242 ms.
  Given g = llama7b_h100("1", "128", "1");
  g["tp"] = "2";
  Derivation d = run("serve", g);
  EXPECT_NEAR(result(d, "tpot_seconds"), 1.01242e-3, 2e-8);
  EXPECT_NEAR(result(d, "output_tokens_per_second_per_gpu"), 1 / 1.01242e-3 / 2, 0.1);
  // Each of the 2 × 32 all-reduces also pays a fixed latency: 10 us each adds 0.64 ms.
  g["allreduce-latency"] = "10us";
  EXPECT_NEAR(result(run("serve", g), "tpot_seconds"), 1.01242e-3 + 0.64e-3, 2e-8);
}

}  // namespace
}  // namespace ridge::calc
