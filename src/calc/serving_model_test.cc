// The serving queueing model (serving_model.h). Each expected figure is derived by hand in the
// comment above it, from round-number costs chosen so the arithmetic stays on paper.
#include "calc/serving_model.h"

#include <cmath>
#include <gtest/gtest.h>

namespace ridge::calc::serving {
namespace {

// A replica whose decode step reads 1 GB of weights at 1 TB/s (1 ms) and 1 MB of cache per
// sequence (1 us each), and whose prefill costs 10 us per prompt token (1,000 tokens: 10 ms).
DecodeCost toy_decode() {
  DecodeCost c;
  c.dense_weight_bytes = 1e9;
  c.bandwidth = 1e12;
  c.kv_bytes_per_sequence = 1e6;
  return c;
}
PrefillCost toy_prefill() { return {0, 1e-5}; }
Load toy_load(double rate) {
  Load l;
  l.rate = rate;
  l.input_tokens = 1000;
  l.output_tokens = 100;
  return l;
}

TEST(ServingModel, ExpertsTouchedIsTheOccupancyOfUniformRouting) {
  // One token reads exactly its k = 8 experts: 128 × (1 − 120/128) = 8.
  EXPECT_NEAR(experts_touched(128, 8, 1), 8, 1e-9);
  // 64 tokens: 128 × (1 − 0.9375^64); 0.9375^64 = e^(64 × ln 0.9375) = e^(−4.13046) = 0.016077,
  // so 128 × 0.983923 = 125.94.
  EXPECT_NEAR(experts_touched(128, 8, 64), 125.94, 0.01);
  EXPECT_EQ(experts_touched(0, 0, 64), 0);
}

TEST(ServingModel, MoeDecodeStepReadsOnlyTheTouchedExperts) {
  // Dense part 1 GB plus 128 experts of 10 MB each: one token reads 1 GB + 8 × 10 MB = 1.08 GB,
  // 1.08 ms at 1 TB/s, plus its 1 us of cache.
  DecodeCost c = toy_decode();
  c.expert_bytes = 1e7;
  c.experts = 128;
  c.top_k = 8;
  EXPECT_NEAR(decode_step_seconds(c, 1), 1.08e-3 + 1e-6, 1e-12);
}

TEST(ServingModel, RoutedExpertsReadAtTheGroupedGemmBandwidth) {
  // perf5: the routed experts stream at their own rate. As above, but the experts at 0.25 TB/s:
  // one token: 1 GB ÷ 1 TB/s = 1 ms of dense weights, 8 × 10 MB = 80 MB ÷ 0.25 TB/s = 0.32 ms of
  // experts, plus 1 us of cache: 1.321 ms.
  DecodeCost c = toy_decode();
  c.expert_bytes = 1e7;
  c.experts = 128;
  c.top_k = 8;
  c.expert_bandwidth = 0.25e12;
  EXPECT_NEAR(decode_step_seconds(c, 1), 1e-3 + 0.32e-3 + 1e-6, 1e-12);
  // 100 sequences touch 128 × (1 − (120/128)^100) = 127.80 experts (the occupancy above):
  // 1 ms + 127.80 × 10 MB ÷ 0.25 TB/s = 1 ms + 5.112 ms, plus 100 × 1 us of cache: 6.212 ms,
  // against 1 ms + 1.278 ms + 0.1 ms = 2.378 ms when the experts stream as fast as the dense weights.
  const double touched = 128 * (1 - std::pow(120.0 / 128, 100));
  EXPECT_NEAR(decode_step_seconds(c, 100), 1e-3 + touched * 1e7 / 0.25e12 + 1e-4, 1e-12);
  EXPECT_NEAR(decode_step_seconds(c, 100), 6.212e-3, 1e-6);
  c.expert_bandwidth = 0;  // 0 = as the dense weights
  EXPECT_NEAR(decode_step_seconds(c, 100), 2.378e-3, 1e-6);
}

TEST(ServingModel, SpeculationGainsTheLeviathanExpectation) {
  // k = 4, a = 0.8: (1 − 0.8^5) ÷ (1 − 0.8) = (1 − 0.32768) ÷ 0.2 = 3.3616 tokens per step.
  EXPECT_NEAR(tokens_per_step({4, 0.8, 0.05}), 3.3616, 1e-9);
  EXPECT_EQ(tokens_per_step({}), 1);
  // One sequence: the draft's 4 × 0.05 plain steps (1.001 ms each) then a verify of 5 tokens that
  // is still bandwidth-bound (no FLOP term): 0.2 × 1.001 + 1.001 = 1.2012 ms.
  EXPECT_NEAR(speculative_step_seconds(toy_decode(), {4, 0.8, 0.05}, 1), 1.2012e-3, 1e-12);
}

TEST(ServingModel, AggregatedSteadyStateAtTenRequestsPerSecond) {
  // rho = 10/s × 10 ms = 0.1. Little: B = 10 × 100 × step ÷ 0.9 with step = 1 ms + B × 1 us,
  // so B = 1.11111 ÷ (1 − 0.00111111) = 1.112347 and step = 1.0011123 ms.
  const LoadPoint p = aggregated(toy_decode(), toy_prefill(), {}, toy_load(10));
  ASSERT_TRUE(p.stable) << p.why;
  EXPECT_NEAR(p.prefill_utilisation, 0.1, 1e-12);
  EXPECT_NEAR(p.batch, 1.112347, 1e-5);
  EXPECT_NEAR(p.step_seconds, 1.0011123e-3, 1e-9);
  // TPOT mean = step ÷ (1 − rho) = 1.112347 ms.
  EXPECT_NEAR(p.tpot_mean, 1.112347e-3, 1e-9);
  // Pollaczek-Khinchine with fixed prompts: W = 10 × (0.01)² ÷ (2 × 0.9) = 0.555556 ms;
  // TTFT mean = W + 10 ms + 0.9 × step ÷ 2 = 0.555556 + 10 + 0.450501 = 11.006056 ms.
  EXPECT_NEAR(p.ttft_mean, 11.006056e-3, 1e-8);
  // p99 wait = W ÷ rho × ln(rho ÷ 0.01) = 5.55556 ms × ln 10 = 12.79214 ms; TTFT p99 =
  // 12.79214 + 10 + 1.00111 = 23.79325 ms.
  EXPECT_NEAR(p.ttft_p99, 23.79325e-3, 1e-8);
  // Prefills landing in one request's life: m = 10 × 100 × step ÷ 0.9 = 1.112347; p99 count
  // 1.112347 + 2.326 × 1.054679 = 3.565530; TPOT p99 = 1.001112 ms + 3.565530 × 10 ms ÷ 100
  // = 1.357665 ms.
  EXPECT_NEAR(p.tpot_p99, 1.357665e-3, 1e-8);
  EXPECT_NEAR(p.output_tokens_per_second, 1000, 1e-9);
}

TEST(ServingModel, ExponentialPromptsRaiseTheWaitAndTheTail) {
  // cv 1: E[S²] = 2 × (10 ms)², so the mean wait doubles to 1.111111 ms; the p99 prompt is
  // 1,000 × ln 100 = 4,605.17 tokens, 46.0517 ms.
  Load l = toy_load(10);
  l.input_lengths = Lengths::kExponential;
  const LoadPoint p = aggregated(toy_decode(), toy_prefill(), {}, l);
  ASSERT_TRUE(p.stable);
  // p99 = 1.111111 ÷ 0.1 × ln 10 + 46.0517 + 1.00111 = 25.58428 + 47.05281 = 72.63709 ms.
  EXPECT_NEAR(p.ttft_p99, 72.63709e-3, 1e-7);
}

TEST(ServingModel, SaturationIsNamedNotExtrapolated) {
  // 100/s × 10 ms = rho 1: the prefill queue never empties.
  const LoadPoint p = aggregated(toy_decode(), toy_prefill(), {}, toy_load(100));
  EXPECT_FALSE(p.stable);
  EXPECT_NE(p.why.find("prefill saturates"), std::string::npos);
  // A cache of one sequence cannot hold the steady batch of 1.11 at 10/s.
  Load l = toy_load(10);
  l.max_batch = 1;
  EXPECT_FALSE(aggregated(toy_decode(), toy_prefill(), {}, l).stable);
}

TEST(ServingModel, DisaggregatedAddsTheKvTransferAndNeverStallsDecode) {
  // KV 100 kB per prompt token over 10 GB/s with 100 us latency: 0.1 ms + 1,000 × 1e5 ÷ 1e10 =
  // 10.1 ms. One decode replica at 10/s: B = 10 × 100 × (1 ms + B × 1 us) = 1 ÷ 0.999 = 1.001001,
  // step = TPOT = 1.001001 ms at the mean and at p99.
  Disaggregation dis{1, 1, 1e5, 1e10, 1e-4};
  const LoadPoint p = disaggregated(toy_decode(), toy_prefill(), {}, toy_load(10), dis);
  ASSERT_TRUE(p.stable);
  EXPECT_NEAR(p.kv_transfer_seconds, 10.1e-3, 1e-12);
  EXPECT_NEAR(p.tpot_mean, 1.001001e-3, 1e-9);
  EXPECT_EQ(p.tpot_p99, p.tpot_mean);
  // TTFT = W 0.555556 + 10 + 10.1 ms.
  EXPECT_NEAR(p.ttft_mean, 20.655556e-3, 1e-8);
}

TEST(ServingModel, DisaggregatedHandoffIsFixedPlusDecodeSteps) {
  // The same deployment with a handoff of 50 ms plus 2 decode steps: the step is 1.001001 ms
  // (above), so the handoff is 50 + 2.002002 = 52.002002 ms, on the mean and on the p99 alike;
  // TTFT = 20.655556 + 52.002002 = 72.657558 ms. The decode pool's batch does not change.
  Disaggregation dis{1, 1, 1e5, 1e10, 1e-4};
  dis.handoff_seconds = 0.050;
  dis.handoff_decode_steps = 2;
  const LoadPoint p = disaggregated(toy_decode(), toy_prefill(), {}, toy_load(10), dis);
  ASSERT_TRUE(p.stable);
  EXPECT_NEAR(p.handoff_seconds, 52.002002e-3, 1e-9);
  EXPECT_NEAR(p.ttft_mean, 72.657558e-3, 1e-8);
  EXPECT_NEAR(p.tpot_mean, 1.001001e-3, 1e-9);
  const LoadPoint bare = disaggregated(toy_decode(), toy_prefill(), {}, toy_load(10), Disaggregation{1, 1, 1e5, 1e10, 1e-4});
  EXPECT_NEAR(p.ttft_p99 - bare.ttft_p99, 52.002002e-3, 1e-9);
}

TEST(ServingModel, MaxRateMeetsTheSloAndOnePercentMoreDoesNot) {
  const Slo slo{0.05, 0};
  const double r = max_rate_aggregated(toy_decode(), toy_prefill(), {}, toy_load(0), slo);
  ASSERT_GT(r, 0);
  // Below the saturation rate of 1 ÷ 10 ms = 100/s, and the SLO binds at its edge.
  EXPECT_LT(r, 100);
  EXPECT_LE(aggregated(toy_decode(), toy_prefill(), {}, toy_load(r)).ttft_p99, 0.05 + 1e-9);
  EXPECT_GT(aggregated(toy_decode(), toy_prefill(), {}, toy_load(r * 1.01)).ttft_p99, 0.05);
  // Two replicas take twice the rate.
  EXPECT_NEAR(max_rate_aggregated(toy_decode(), toy_prefill(), {}, toy_load(0), slo, 2), 2 * r, 1e-6 * r);
}

TEST(ServingModel, TheBusiestExpertRankSetsAComputeBoundStep) {
  // 1,000 tokens of 1 GFLOP each at 1 TFLOP/s: 1 s of GEMMs (the 1 GB weight read takes 1 ms), plus
  // 1,000 × 1 MB of cache at 1 TB/s = 1 ms: 1.001 s. Half of each token's FLOPs are routed experts;
  // the busiest rank carrying twice the mean routed tokens adds 1,000 × 0.5 GFLOP ÷ 1 TFLOP/s =
  // 0.5 s: 1.501 s.
  DecodeCost c = toy_decode();
  c.flops_per_token = 1e9;
  c.expert_flops_per_token = 0.5e9;
  c.flop_rate = 1e12;
  EXPECT_NEAR(decode_step_seconds(c, 1000), 1.001, 1e-9);
  c.imbalance = 2;
  EXPECT_NEAR(decode_step_seconds(c, 1000), 1.501, 1e-9);
}

}  // namespace
}  // namespace ridge::calc::serving
