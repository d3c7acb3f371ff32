// One test per named mistake: the chain as written (seed 0, so the figures can be derived by
// hand), the wrong answer that mistake gives, and the check that the grade names it.
#include "practice/misconceptions.h"

#include <gtest/gtest.h>

#include "calc/test_catalog.h"

namespace ridge::practice {
namespace {

using calc::testing::real_catalog;
using calc::testing::registry;

Exercise as_written(const std::string& body, std::vector<std::string> asked) {
  bank::Question q;
  q.slug = "t";
  q.title = "t";
  q.body_markdown = body;
  q.work.asked = std::move(asked);
  WorkPlan plan = plan_question(q, registry(), real_catalog());
  EXPECT_TRUE(plan.workable) << plan.reason;
  std::string error;
  auto ex = make_exercise(plan, "t", 0, registry(), real_catalog(), &error);
  EXPECT_TRUE(ex.has_value()) << error;
  return ex ? *ex : Exercise{};
}

// The id of the misconception the grade names, "" when none, "right" when right.
std::string named(const Exercise& ex, size_t step, const std::string& answer) {
  if (ex.steps.size() <= step) return "no such step";
  StepGrade g = grade_step(ex, step, answer, registry(), real_catalog());
  if (g.correct) return "right";
  return g.misconception ? g.misconception->id : "";
}

// Llama 3.1 70B: 80 layers, 8 KV heads of 128, 64 query heads; bf16 = 2 B.
// KV per token = 2 (K and V) × 80 × 8 × 128 × 2 B = 327,680 B.
// KV per 32,768-token sequence = 327,680 × 32,768 = 10,737,418,240 B (10 GiB exactly).
// Weights: 70.55e9 params × 2 B = 141.1e9 B. 8 × H100 SXM = 640e9 B; 10% reserve -> 576e9 budget.
const char* kFit = "```calc id=fit\nfit model=llama-3.1-70b gpu=h100-sxm gpus=8 context=32768\n```\n";

TEST(Misconception, LibraryHasAtLeastFifteenWithConcepts) {
  EXPECT_GE(misconceptions().size(), 15u);
  for (const auto& m : misconceptions()) {
    EXPECT_FALSE(m.title.empty()) << m.id;
    EXPECT_FALSE(m.concept_id.empty()) << m.id;
    EXPECT_EQ(find_misconception(m.id), &m);
  }
}

TEST(Misconception, KvHeadsAsAttentionHeads) {
  Exercise ex = as_written(kFit, {"fit.kv_bytes_per_token"});
  // 64 query heads instead of 8 KV heads: 327,680 × 8 = 2,621,440 B.
  EXPECT_EQ(named(ex, 0, "2621440"), "kv-heads-as-attention-heads");
  EXPECT_EQ(named(ex, 0, "327680"), "right");
}

TEST(Misconception, ReserveForgotten) {
  Exercise ex = as_written(kFit, {"fit.max_sequences"});
  // Right: (576e9 − 141.1e9) / 10.737e9 = 40.5 -> 40. No reserve: (640e9 − 141.1e9) / 10.737e9 = 46.5 -> 46.
  EXPECT_EQ(named(ex, 0, "40"), "right");
  EXPECT_EQ(named(ex, 0, "46"), "reserve-forgotten");
}

TEST(Misconception, WeightsForgotten) {
  Exercise ex = as_written(kFit, {"fit.max_sequences"});
  // The whole 576e9 budget for KV: 576e9 / 10.737e9 = 53.6 -> 53.
  EXPECT_EQ(named(ex, 0, "53"), "weights-forgotten");
}

TEST(Misconception, PerTokenForPerSequence) {
  Exercise ex = as_written(kFit, {"fit.kv_bytes_per_sequence"});
  EXPECT_EQ(named(ex, 0, "327680"), "per-token-for-per-sequence");
}

TEST(Misconception, GibAsGb) {
  Exercise ex = as_written(kFit, {"fit.kv_bytes_per_sequence"});
  // 10,737,418,240 B is 10 GiB; written "10 GB" it reads 10e9 B, 6.9% low.
  EXPECT_EQ(named(ex, 0, "10GB"), "gib-as-gb");
  EXPECT_EQ(named(ex, 0, "10GiB"), "right");
}

TEST(Misconception, PerSequenceForTotal) {
  Exercise ex = as_written("```calc id=fit\nfit model=llama-3.1-70b gpu=h100-sxm gpus=8 context=32768 sequences=16\n```\n",
                           {"fit.kv_bytes_total"});
  // Total = 16 × 10.737e9 = 171.8e9 B; one sequence's 10.7 GB is 1/16 of it.
  EXPECT_EQ(named(ex, 0, "10.7GB"), "per-sequence-for-total");
}

TEST(Misconception, Fp32Weights) {
  Exercise ex = as_written(kFit, {"fit.weights_bytes"});
  // 70.55e9 × 4 B = 282.2e9 B instead of × 2 B = 141.1e9 B.
  EXPECT_EQ(named(ex, 0, "282GB"), "fp32-weights");
  EXPECT_EQ(named(ex, 0, "141GB"), "right");
}

TEST(Misconception, TpSplitForgotten) {
  Exercise ex = as_written("```calc id=d\ndecode model=llama-3.1-70b gpu=h100-sxm tp=8 batch=1 context=4096\n```\n",
                           {"d.weight_bytes_per_gpu"});
  // Per GPU with tp 8: 141.1e9 / 8 = 17.6e9 B; without the split all 141.1e9 B on one GPU.
  EXPECT_EQ(named(ex, 0, "17.6GB"), "right");
  EXPECT_EQ(named(ex, 0, "141GB"), "tp-split-forgotten");
}

TEST(Misconception, AggregateForPerSequence) {
  Exercise ex = as_written("```calc id=d\ndecode model=llama-3.1-70b gpu=h100-sxm tp=8 batch=4 context=4096\n```\n",
                           {"d.tokens_per_second"});
  ASSERT_EQ(ex.steps.size(), 1u);
  // Batch 4 produces 4 tokens per step; one sequence's rate is the aggregate / 4. (Batch 8
  // would equal forgetting tp 8, also 1/8 of the bandwidth-bound rate: not told apart.)
  EXPECT_EQ(named(ex, 0, std::to_string(ex.steps[0].value / 4)), "aggregate-for-per-sequence");
}

// transfer: 1.1e12 B at 100e9 B/s = 11 s.
const char* kTransfer = "```calc id=t\ntransfer bytes=1.1TB bandwidth=100GB/s\n```\n";

TEST(Misconception, BitsAsBytes) {
  Exercise ex = as_written(kTransfer, {"t.seconds"});
  EXPECT_EQ(named(ex, 0, "11s"), "right");
  // 100 Gb/s read as 100 GB/s: 8× the rate, 11 / 8 = 1.375 s.
  EXPECT_EQ(named(ex, 0, "1.375"), "bits-as-bytes");
}

TEST(Misconception, BidirectionalBandwidth) {
  Exercise ex = as_written(kTransfer, {"t.seconds"});
  // Both directions summed: twice the rate, 11 / 2 = 5.5 s.
  EXPECT_EQ(named(ex, 0, "5.5"), "bidirectional-bandwidth");
}

TEST(Misconception, OneNicForNode) {
  Exercise ex = as_written(kTransfer, {"t.seconds"});
  // One of the node's 8 NICs: 1/8 of the rate, 11 × 8 = 88 s.
  EXPECT_EQ(named(ex, 0, "88"), "one-nic-for-node");
}

TEST(Misconception, TrainingStateTwoBytes) {
  Exercise ex = as_written("```calc id=m\ntraining-memory params=70B gpus=64 zero-stage=0 optimizer=adam\n```\n",
                           {"m.state_bytes"});
  // Adam in mixed precision: 16 B × 70e9 = 1,120e9 B; 2 B × 70e9 = 140e9 B.
  EXPECT_EQ(named(ex, 0, "1120GB"), "right");
  EXPECT_EQ(named(ex, 0, "140GB"), "training-state-2-bytes");
}

TEST(Misconception, ZeroShardForgotten) {
  Exercise ex = as_written("```calc id=m\ntraining-memory params=70B gpus=64 zero-stage=3 optimizer=adam\n```\n",
                           {"m.state_bytes_per_gpu"});
  // ZeRO-3 over 64 GPUs: 1,120e9 / 64 = 17.5e9 B per GPU; unsharded, all 1,120e9 B.
  EXPECT_EQ(named(ex, 0, "17.5GB"), "right");
  EXPECT_EQ(named(ex, 0, "1120GB"), "zero-shard-forgotten");
}

TEST(Misconception, TwoNdForSixNd) {
  Exercise ex = as_written("```calc id=tr\ntrain params=70B tokens=15T gpu=h100-sxm gpus=1024 mfu=0.4\n```\n",
                           {"tr.train_flops"});
  // 6 × 70e9 × 15e12 = 6.3e24 FLOP; 2ND gives 2.1e24.
  EXPECT_EQ(named(ex, 0, "6.3e24"), "right");
  EXPECT_EQ(named(ex, 0, "2.1e24"), "2nd-for-6nd");
}

TEST(Misconception, SparsePeakForDense) {
  Exercise ex = as_written("```calc id=r\nroofline gpu=h100-sxm\n```\n", {"r.ridge_flops_per_byte"});
  // H100 SXM bf16 dense 989e12 FLOP/s over 3.35e12 B/s = 295; the 2:4 sparse peak doubles it: 590.
  EXPECT_EQ(named(ex, 0, "295"), "right");
  EXPECT_EQ(named(ex, 0, "590"), "sparse-peak-for-dense");
}

TEST(Misconception, YoungDalyFactorForgotten) {
  Exercise ex = as_written("```calc id=c\ncheckpoint mtbf-hours=3 write-seconds=60\n```\n", {"c.optimal_interval_seconds"});
  // sqrt(2 × 60 s × 10,800 s) = sqrt(1,296,000) = 1,138 s; without the 2: sqrt(648,000) = 805 s.
  EXPECT_EQ(named(ex, 0, "1138"), "right");
  EXPECT_EQ(named(ex, 0, "805"), "young-daly-factor-forgotten");
}

TEST(Misconception, PueForgotten) {
  Exercise ex = as_written("```calc id=p\ncluster-power gpu=h100-sxm gpus=1024 pue=1.3\n```\n", {"p.facility_watts"});
  ASSERT_EQ(ex.steps.size(), 1u);
  // Facility = IT × PUE; with PUE forgotten the answer is the IT power, facility / 1.3.
  EXPECT_EQ(named(ex, 0, std::to_string(ex.steps[0].value / 1.3)), "pue-forgotten");
}

TEST(Misconception, PpSplitForgotten) {
  Exercise ex = as_written(
      "```calc id=l\nlayout model=llama-3.1-70b gpu=h100-sxm gpus=64 tp=8 pp=4 global-batch=512 seq=8192 zero-stage=0\n```\n",
      {"l.state_bytes_per_gpu"});
  ASSERT_EQ(ex.steps.size(), 1u);
  // Adam, no ZeRO: 16 B per parameter on the GPU that holds it. With pp 4 the first stage
  // holds 20 of 80 layers (20 × 0.856e9 params) plus the 128,256 × 8,192 embedding (1.05e9),
  // split over tp 8: 18.2e9 / 8 × 16 B = 36.3e9 B. Without the PP split all 70.55e9 / 8 × 16 B
  // = 141.1e9 B.
  EXPECT_EQ(named(ex, 0, "36.3GB"), "right");
  EXPECT_EQ(named(ex, 0, "141GB"), "pp-split-forgotten");
}

TEST(Misconception, RightAnswerNamesNothingAndUnreadableSaysWhy) {
  Exercise ex = as_written(kFit, {"fit.kv_bytes_per_token"});
  StepGrade g = grade_step(ex, 0, "lots", registry(), real_catalog());
  EXPECT_FALSE(g.correct);
  EXPECT_EQ(g.misconception, nullptr);
  EXPECT_NE(g.message.find("accepted"), std::string::npos) << g.message;
  // 1,000 B is no named mistake: wrong, and nothing named.
  EXPECT_EQ(named(ex, 0, "1000"), "");
}

}  // namespace
}  // namespace ridge::practice
