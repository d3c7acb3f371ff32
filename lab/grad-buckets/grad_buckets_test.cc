#include "grad_buckets.h"

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
constexpr double k80GBps = 80e9 / 1e3;  // bytes per ms
constexpr double kLatency = 0.030;

std::vector<Param> model() { return transformer_params(24, 2048, 8192, 50'000, 2, 3.0); }

TEST(GradBuckets, ForwardOrderBugFirstBucketHoldsTheLastLayer) {
  const auto params = model();
  const auto buckets = assign_buckets(params, 25 * kMiB);
  ASSERT_FALSE(buckets.empty());
  EXPECT_EQ(params[buckets.front().params.front()].name, "l23.down");  // registered last, ready first
  EXPECT_EQ(params[buckets.back().params.back()].name, "embed");
  // Forward order puts the embedding (ready last) first: one stream can start nothing early.
  const Plan fwd = simulate(params, 25 * kMiB, false, 75.0, 64, k80GBps, kLatency);
  EXPECT_DOUBLE_EQ(fwd.exposed_ms, fwd.comm_ms);
  const Plan rev = simulate(params, 25 * kMiB, true, 75.0, 64, k80GBps, kLatency);
  EXPECT_LT(rev.exposed_ms, 0.1 * fwd.exposed_ms);
}

TEST(GradBuckets, ReverseOrderExposesOnlyTheLastBucket) {
  const Plan p = simulate(model(), 25 * kMiB, true, 75.0, 64, k80GBps, kLatency);
  EXPECT_EQ(p.buckets, 73);
  EXPECT_NEAR(p.exposed_ms, p.last_bucket_ms, 1e-9);  // the embedding cannot start before backward ends
  EXPECT_NEAR(p.exposed_ms, 5.1, 0.05);
}

TEST(GradBuckets, OneBucketHidesNothing) {
  const auto params = model();
  std::uint64_t total = 0;
  for (const auto& q : params) total += q.bytes;
  const Plan p = simulate(params, total, true, 75.0, 64, k80GBps, kLatency);
  EXPECT_EQ(p.buckets, 1);
  EXPECT_DOUBLE_EQ(p.exposed_ms, p.comm_ms);
}

TEST(GradBuckets, BucketClosesOnceItHoldsTheCap) {
  std::vector<Param> params;
  for (std::uint64_t b : {10u, 10u, 35u, 10u, 10u, 10u, 3u}) params.push_back({"p", b, 0});
  const auto buckets = assign_buckets(params, 20);
  // Reverse walk: 3 + 10 + 10 = 23 closes; 10 + 35 = 45 closes (the large one joins, then closes); 10 + 10.
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets[0].params, (std::vector<int>{6, 5, 4}));
  EXPECT_EQ(buckets[1].params, (std::vector<int>{3, 2}));
  EXPECT_EQ(buckets[2].params, (std::vector<int>{1, 0}));
  for (std::size_t i = 0; i + 1 < buckets.size(); ++i) EXPECT_GE(buckets[i].bytes, 20u);
  EXPECT_EQ(assign_buckets(params, 0).size(), params.size());  // cap 0: one per tensor
  EXPECT_EQ(assign_buckets({}, 20).size(), 0u);
}

TEST(GradBuckets, UnusedParameterBugNeverHangsSilently) {
  auto params = model();
  params[5].used = false;  // a frozen or unused tensor
  try {
    simulate(params, 25 * kMiB, true, 75.0, 64, k80GBps, kLatency);
    FAIL() << "expected the unused parameter to be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(params[5].name), std::string::npos) << e.what();
  }
  const Plan p = simulate(params, 25 * kMiB, true, 75.0, 64, k80GBps, kLatency, /*find_unused=*/true);
  EXPECT_EQ(p.buckets, 73);
  EXPECT_NEAR(p.exposed_ms, 5.1, 0.05);
}

TEST(GradBuckets, SameBucketsOnEveryRankWhateverTheTiming) {
  auto params = model();
  const auto reference = assign_buckets(params, 25 * kMiB);
  std::mt19937_64 rng(20261201);
  for (auto& p : params) p.ready_ms = static_cast<double>(rng() % 1000) / 10.0;  // another rank's timing
  const auto other = assign_buckets(params, 25 * kMiB);
  ASSERT_EQ(other.size(), reference.size());
  for (std::size_t i = 0; i < other.size(); ++i) EXPECT_EQ(other[i].params, reference[i].params);
}

TEST(GradBuckets, AllReduceCostIsTheRingFormula) {
  EXPECT_DOUBLE_EQ(allreduce_ms(0, 64, k80GBps, kLatency), kLatency);
  EXPECT_DOUBLE_EQ(allreduce_ms(80'000'000, 2, 80'000.0, 0.0), 1000.0);  // 2 (n - 1) / n = 1 at n = 2
  EXPECT_DOUBLE_EQ(allreduce_ms(80'000'000, 1, 80'000.0, 0.0), 0.0);     // one rank sends nothing
  EXPECT_NEAR(allreduce_ms(80'000'000, 64, 80'000.0, 0.0), 2.0 * 63 / 64 * 1000.0, 1e-9);
}

TEST(GradBuckets, OverlapCannotHideMoreThanTheBackward) {
  const Plan p = simulate(model(), 25 * kMiB, true, 75.0, 64, 25e9 / 1e3, kLatency);
  EXPECT_GT(p.comm_ms, 75.0);
  EXPECT_GE(p.exposed_ms, p.comm_ms - 75.0 - 3.0);  // at most backward minus the first layer hides
}

TEST(GradBuckets, BadInputIsRefused) {
  EXPECT_THROW(allreduce_ms(1, 0, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(allreduce_ms(1, 8, 0.0, 0.0), std::invalid_argument);
  EXPECT_THROW(allreduce_ms(1, 8, 1.0, -1.0), std::invalid_argument);
  EXPECT_THROW(simulate({{"w", 8, -1.0}}, 4, true, 10.0, 8, 1.0, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace ridge::lab
