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

}  // namespace
}  // namespace ridge::calc
