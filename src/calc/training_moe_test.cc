// The experts' token traffic (training_moe.h): each expectation derived by hand in its comment.
#include "calc/training_moe.h"

#include <gtest/gtest.h>

namespace ridge::calc::detail {
namespace {

TEST(MoeTraffic, RanksPerTokenCountsTheRanksTheTopKExpertsLandOn) {
  // 4 experts on 2 ranks (2 each), top-2: both experts on the other rank in C(2, 2) ÷ C(4, 2) =
  // 1/6 of the pairs, so a given rank is hit with probability 5/6: 2 × 5/6 = 5/3 ranks per token.
  EXPECT_NEAR(moe_ranks_per_token(4, 2, 2), 5.0 / 3, 1e-12);
  // Qwen3 30B-A3B at EP 8: 1 − C(112, 8) ÷ C(128, 8) = 1 − 0.332580 per rank, × 8 = 5.33936.
  EXPECT_NEAR(moe_ranks_per_token(128, 8, 8), 5.33936, 1e-5);
  // No expert parallelism: the token stays on its one rank.
  EXPECT_DOUBLE_EQ(moe_ranks_per_token(128, 8, 1), 1);
  // Top-3 of 4 experts on 2 ranks: the other rank holds only 2, so both ranks are always hit.
  EXPECT_DOUBLE_EQ(moe_ranks_per_token(4, 3, 2), 2);
  // One expert per rank (E = ep): each of the k experts is its own rank, k ranks.
  EXPECT_NEAR(moe_ranks_per_token(8, 2, 8), 2, 1e-9);
}

TEST(MoeTraffic, ShufflePassesByDispatcher) {
  // All-to-all dispatcher, k = 8: 24·k = 192 with the local sort (more than one local expert),
  // 16·k = 128 without; the ranks do not enter (k copies are sent).
  EXPECT_DOUBLE_EQ(moe_shuffle_passes(MoeDispatcher::kAllToAll, 16, 8, 5), 192);
  EXPECT_DOUBLE_EQ(moe_shuffle_passes(MoeDispatcher::kAllToAll, 1, 8, 5), 128);
  // HybridEP, k = 8 on r = 5 ranks: forward (1 + 5) + (8 + 8) + (8 + 5) + (5 + 1) = 41, twice: 82;
  // on r = 2 ranks: 4 + 12 + 48 = 64, whatever the experts per rank.
  EXPECT_DOUBLE_EQ(moe_shuffle_passes(MoeDispatcher::kHybridEp, 16, 8, 5), 82);
  EXPECT_DOUBLE_EQ(moe_shuffle_passes(MoeDispatcher::kHybridEp, 1, 8, 2), 64);
  // DeepEP (perf8t): dispatch read 1 write r, permute read k write k, unpermute read k write r,
  // combine read r write 1, the same 4 + 6r + 6k: 82 at k = 8, r = 5; 64 at r = 2.
  EXPECT_DOUBLE_EQ(moe_shuffle_passes(MoeDispatcher::kDeepEp, 16, 8, 5), 82);
  EXPECT_DOUBLE_EQ(moe_shuffle_passes(MoeDispatcher::kDeepEp, 1, 8, 2), 64);
  EXPECT_EQ(moe_dispatcher("deepep"), MoeDispatcher::kDeepEp);
  EXPECT_EQ(moe_dispatcher("hybridep"), MoeDispatcher::kHybridEp);
  EXPECT_EQ(moe_dispatcher("alltoall"), MoeDispatcher::kAllToAll);
}

TEST(MoeLaunches, PerLocalExpertByRecipe) {
  // Transformer Engine 2.9's GroupedLinear, fc1 and fc2: a GEMM per expert for the forward, the
  // data gradient and the weight gradient, 6 in all. Casts per expert of 4 tensors (the two inputs,
  // the two output gradients): current scaling 4 kernels each (zero amax, amax, scale, cast), 16;
  // MXFP8 and block scaling 1 each, 4; delayed scaling one fused kernel for all experts, 0.
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(false, "delayed", false), 6);
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(false, "current", false), 6);  // bf16: no recipe
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(true, "delayed", false), 6);
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(true, "current", false), 22);
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(true, "mxfp8", false), 10);
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(true, "block", false), 10);
  // Expert biases: fc2's bias added in PyTorch per expert (forward b·p and the sum; backward two
  // products and two reductions) and two main_grad additions: 8 more, 6 + 8 = 14 in bf16, 22 + 8 = 30.
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(false, "delayed", true), 14);
  EXPECT_DOUBLE_EQ(moe_launches_per_expert(true, "current", true), 30);
}

}  // namespace
}  // namespace ridge::calc::detail
