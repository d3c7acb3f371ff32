#include "hash_ring.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stable_hash.h"

namespace ridge::lab {
namespace {

std::vector<std::string> keys(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("key-" + std::to_string(i));
  return out;
}

HashRing ring_of(int replicas, int points) {
  HashRing ring(points);
  for (int r = 0; r < replicas; ++r) ring.add("replica-" + std::to_string(r));
  return ring;
}

TEST(HashRing, EmptyRingOwnsNothing) {
  HashRing ring(150);
  EXPECT_FALSE(ring.owner("anything").has_value());
  ring.add("a");
  ring.remove("a");
  EXPECT_FALSE(ring.owner("anything").has_value());
}

TEST(HashRing, AddAndRemoveReportWhetherTheyChangedTheRing) {
  HashRing ring(3);
  EXPECT_TRUE(ring.add("a"));
  EXPECT_FALSE(ring.add("a"));
  EXPECT_EQ(ring.point_count(), 3u);
  EXPECT_TRUE(ring.remove("a"));
  EXPECT_FALSE(ring.remove("a"));
  EXPECT_EQ(ring.point_count(), 0u);
}

TEST(HashRing, PointsAreAtTheDocumentedPositions) {
  HashRing ring(2);
  ring.add("r");
  const auto points = ring.points();
  ASSERT_EQ(points.size(), 2u);
  std::vector<std::uint64_t> expected{stable_hash64("r#0"), stable_hash64("r#1")};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(points[0].first, expected[0]);
  EXPECT_EQ(points[1].first, expected[1]);
}

TEST(HashRing, ClockwiseInclusiveWithWrapAround) {
  HashRing ring(1);
  ring.add("a");
  ring.add("b");
  ring.add("c");
  const auto p = ring.points();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(ring.owner_of_hash(p[1].first), p[1].second) << "a hash exactly on a point belongs to it";
  EXPECT_EQ(ring.owner_of_hash(p[1].first - 1), p[1].second);
  EXPECT_EQ(ring.owner_of_hash(p[1].first + 1), p[2].second);
  EXPECT_EQ(ring.owner_of_hash(p[2].first + 1), p[0].second) << "past the last point wraps to the first";
  EXPECT_EQ(ring.owner_of_hash(std::numeric_limits<std::uint64_t>::max()), p[0].second);
  EXPECT_EQ(ring.owner_of_hash(0), p[0].second);
}

TEST(HashRing, PlacementDoesNotDependOnInsertionOrder) {
  HashRing forward(50), backward(50);
  for (int r = 0; r < 5; ++r) forward.add("replica-" + std::to_string(r));
  for (int r = 4; r >= 0; --r) backward.add("replica-" + std::to_string(r));
  for (const auto& k : keys(5000)) ASSERT_EQ(forward.owner(k), backward.owner(k)) << k;
}

TEST(HashRing, AddingAReplicaMovesKeysOnlyToIt) {
  HashRing ring = ring_of(8, 150);
  const auto all = keys(20000);
  std::map<std::string, std::string> before;
  for (const auto& k : all) before[k] = *ring.owner(k);
  ring.add("replica-8");
  int moved = 0;
  for (const auto& k : all) {
    const std::string now = *ring.owner(k);
    if (now != before[k]) {
      ++moved;
      ASSERT_EQ(now, "replica-8") << k << " moved between two old replicas";
    }
  }
  // About 1/9 of the keys should move; a ring that rehashes everything moves ~8/9.
  EXPECT_GT(moved, 20000 / 9 / 2);
  EXPECT_LT(moved, 20000 / 9 * 2);
}

TEST(HashRing, RemovingAReplicaMovesOnlyItsKeys) {
  HashRing ring = ring_of(8, 150);
  const auto all = keys(20000);
  std::map<std::string, std::string> before;
  for (const auto& k : all) before[k] = *ring.owner(k);
  ring.remove("replica-3");
  for (const auto& k : all) {
    const std::string now = *ring.owner(k);
    if (before[k] != "replica-3") {
      ASSERT_EQ(now, before[k]) << k << " moved although its replica stayed";
    }
    ASSERT_NE(now, "replica-3");
  }
}

TEST(HashRing, VirtualNodesBalanceTheLoad) {
  // 8 replicas, 100,000 keys. Each replica's share has a spread of about 1/sqrt(points):
  // with 150 points the heaviest replica stays under 1.3 x the mean; with one point
  // per replica the heaviest is typically 2-3 x.
  auto max_over_mean = [](const HashRing& ring) {
    std::map<std::string, int> load;
    const auto all = keys(100000);
    for (const auto& k : all) ++load[*ring.owner(k)];
    int max_load = 0;
    for (const auto& [replica, n] : load) max_load = std::max(max_load, n);
    return max_load / (100000.0 / 8);
  };
  const double with_150 = max_over_mean(ring_of(8, 150));
  const double with_1 = max_over_mean(ring_of(8, 1));
  EXPECT_LT(with_150, 1.3);
  EXPECT_GT(with_1, with_150);
}

}  // namespace
}  // namespace ridge::lab
