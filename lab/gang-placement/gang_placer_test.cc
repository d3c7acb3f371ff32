#include "gang_placer.h"

#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/invalid_argument_message.h"

namespace ridge::lab {
namespace {

std::vector<int> range(int from, int to) {
  std::vector<int> v;
  for (int i = from; i < to; ++i) v.push_back(i);
  return v;
}

// The question's fixture: 2 pods x 4 racks x 16 nodes; rack 0 has 6 free, rack 1 has 12.
Cluster fragmented() {
  Cluster c(2, 4, 16);
  c.take(range(0, 10));
  c.take(range(16, 20));
  return c;
}

TEST(GangPlacer, PartialPlacementNeverHappens) {
  Cluster c = fragmented();
  EXPECT_EQ(c.total_free(), 114);
  EXPECT_FALSE(c.place(115, Policy::kBestFit).has_value());
  EXPECT_FALSE(c.place(115, Policy::kFirstFit).has_value());
  EXPECT_EQ(c.total_free(), 114);  // nothing was taken on the way to the refusal
  for (int n : {1, 7, 13, 17, 33, 64, 114}) {
    const auto p = c.place(n, Policy::kBestFit);
    ASSERT_TRUE(p.has_value()) << n;
    EXPECT_EQ(static_cast<int>(p->size()), n);
    for (int i : *p) EXPECT_FALSE(c.busy(i)) << "node " << i;
  }
}

TEST(GangPlacer, BestFitPicksTheTightestRackThatHoldsTheGang) {
  Cluster c = fragmented();
  const auto a = c.place(5, Policy::kBestFit);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(c.racks_spanned(*a), 1);
  EXPECT_EQ((*a)[0] / 16, 0);  // rack 0 (6 free), not rack 1 (12) or an empty rack
  const auto b = c.place(8, Policy::kBestFit);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ((*b)[0] / 16, 1);  // 8 does not fit rack 0: rack 1 keeps the empty racks whole
}

TEST(GangPlacer, BestFitClimbsToTheTightestPodBeforeSpanningPods) {
  // 20 nodes fit no rack. The tightest pod that holds them is pod 0 (50 free): placing them
  // there keeps pod 1 whole, so a 64-node gang still fits in one pod afterwards.
  Cluster c = fragmented();
  const auto twenty = c.place(20, Policy::kBestFit);
  ASSERT_TRUE(twenty.has_value());
  EXPECT_EQ(c.racks_spanned(*twenty), 2);  // most free racks first: 16 + 4
  for (int i : *twenty) EXPECT_EQ(i / 64, 0) << "node " << i;
  c.take(*twenty);
  const auto pod = c.place(64, Policy::kBestFit);
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(c.racks_spanned(*pod), 4);
  EXPECT_EQ(pod->front() / 64, 1);
  EXPECT_EQ(pod->back() / 64, 1);
}

TEST(GangPlacer, SpanningRacksTakesTheMostFreeFirst) {
  // Pod 0 racks free: 6, 12, 16, 16. Thirty nodes: 16 + 14, two racks, not 6 + 12 + 12.
  Cluster c(1, 4, 16);
  c.take(range(0, 10));
  c.take(range(16, 20));
  const auto p = c.place(30, Policy::kBestFit);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(c.racks_spanned(*p), 2);
}

TEST(GangPlacer, TiesGoToTheLowerIndexSoReplaysAgree) {
  Cluster c(2, 4, 16);
  const auto p = c.place(4, Policy::kBestFit);
  EXPECT_EQ(*p, range(0, 4));
  const auto s = c.place(20, Policy::kSpread);
  EXPECT_EQ(s->front(), 0);  // all racks equally free: rack 0, then rack 1
  EXPECT_EQ(c.racks_spanned(*s), 2);
}

TEST(GangPlacer, IncrementalFreeCountsMatchARecountUnderChurn) {
  Cluster c(2, 4, 16);
  std::mt19937_64 rng(7);
  std::vector<std::vector<int>> running;
  for (int step = 0; step < 3000; ++step) {
    if (!running.empty() && rng() % 3 == 0) {
      const std::size_t k = rng() % running.size();
      c.release(running[k]);
      running.erase(running.begin() + static_cast<long>(k));
    }
    const int n = 1 + static_cast<int>(rng() % 24);
    const auto policy = static_cast<Policy>(rng() % 3);
    if (auto p = c.place(n, policy)) {
      c.take(*p);
      running.push_back(*p);
    }
    int total = 0;
    for (int r = 0; r < c.racks(); ++r) {
      int f = 0;
      for (int i = r * 16; i < (r + 1) * 16; ++i) f += !c.busy(i);
      ASSERT_EQ(c.rack_free(r), f) << "rack " << r << " step " << step;
      total += f;
    }
    ASSERT_EQ(c.pod_free(0) + c.pod_free(1), total);
    ASSERT_EQ(c.total_free(), total);
  }
}

TEST(GangPlacer, DoubleReleaseAndBadInputAreRefusedAndChangeNothing) {
  Cluster c(1, 2, 4);
  c.take({0, 1});
  EXPECT_EQ(invalid_argument_message([&] { c.release({1, 2}); }), "release node 2: it is already free");
  EXPECT_TRUE(c.busy(1));  // the valid half of the bad release was not applied
  EXPECT_EQ(invalid_argument_message([&] { c.take({1}); }), "take node 1: it is already busy");
  EXPECT_EQ(invalid_argument_message([&] { c.take({3, 3}); }), "take node 3: it is already busy");
  EXPECT_EQ(invalid_argument_message([&] { c.take({8}); }), "take node 8: must be in [0, 8)");
  EXPECT_EQ(invalid_argument_message([&] { (void)c.place(0, Policy::kBestFit); }), "gang size 0: must be >= 1");
  EXPECT_EQ(c.total_free(), 6);
}

TEST(Simulation, BestFitKeepsGangsCompactAndHolesWhole) {
  // The question's table (exact: fixed seed, integer decisions).
  const SimResult first = simulate(Policy::kFirstFit);
  const SimResult spread = simulate(Policy::kSpread);
  const SimResult best = simulate(Policy::kBestFit);
  EXPECT_NEAR(first.extra_racks_per_gang, 0.640, 0.0005);
  EXPECT_NEAR(spread.full_rack_free_share, 0.004, 0.0005);
  EXPECT_NEAR(best.extra_racks_per_gang, 0.045, 0.0005);
  EXPECT_NEAR(best.big_in_one_rack_share, 0.783, 0.0005);
  EXPECT_NEAR(best.full_rack_free_share, 0.666, 0.0005);
  EXPECT_LT(best.extra_racks_per_gang, spread.extra_racks_per_gang);
  EXPECT_GT(best.big_in_one_rack_share, 10 * first.big_in_one_rack_share);
}

}  // namespace
}  // namespace ridge::lab
