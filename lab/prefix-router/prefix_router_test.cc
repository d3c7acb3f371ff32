#include "prefix_router.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hash-ring/hash_ring.h"
#include "hash-ring/stable_hash.h"

namespace ridge::lab {
namespace {

constexpr int kTemplate = 8, kSystem = 64, kUser = 32;

// A chat request: the shared template, system prompt `p`, a user turn from `seed`.
std::vector<int> request(int p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> t;
  for (int i = 0; i < kTemplate; ++i) t.push_back(1000 + i);
  for (int i = 0; i < kSystem; ++i) t.push_back(100000 * (p + 1) + i);
  for (int i = 0; i < kUser; ++i) t.push_back(static_cast<int>(rng() % 50000));
  return t;
}

const std::vector<int> kIdle(8, 0);

TEST(PrefixRouter, StdHashBugKeyIsTheStableHashOfLittleEndianTokenIds) {
  // Written out by hand: the key must not depend on the machine, the compiler or the run.
  const std::string bytes("\x01\x00\x00\x00\x00\x01\x00\x00\xff\xff\xff\xff", 12);
  EXPECT_EQ(PrefixRouter::key({1, 256, -1}, 3), stable_hash64(bytes));
  EXPECT_EQ(PrefixRouter::key({1, 256, -1, 7}, 3), stable_hash64(bytes));  // only the first 3
  EXPECT_EQ(PrefixRouter::key({}, 0), stable_hash64(""));
  EXPECT_EQ(stable_hash64(""), mix64(0xcbf29ce484222325ull));
}

TEST(PrefixRouter, RingIsHashRingsPlacement) {
  const PrefixRouter router(8, 150);
  HashRing ring(150);
  for (int r = 0; r < 8; ++r) ring.add("replica-" + std::to_string(r));
  ASSERT_EQ(router.ring().size(), ring.point_count());
  std::mt19937_64 rng(20261201);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t h = rng();
    EXPECT_EQ("replica-" + std::to_string(router.owner(h)), *ring.owner_of_hash(h));
  }
}

TEST(PrefixRouter, NoWrapAroundBugKeyPastTheLastPointGoesToTheFirst) {
  const PrefixRouter router(8, 150);
  const auto& ring = router.ring();
  EXPECT_EQ(router.owner(ring.back().first + 1), ring.front().second);
  EXPECT_EQ(router.owner(~std::uint64_t{0}), ring.front().second);
  EXPECT_EQ(router.owner(ring.front().first), ring.front().second);  // exactly on a point: that point
  // A request whose key lies past the last point, routed with a bound, wraps too.
  for (int p = 0; p < 100000; ++p) {
    const auto t = request(p, 1);
    if (PrefixRouter::key(t, 72) > ring.back().first) {
      EXPECT_EQ(router.route(t, 72, 0.25, kIdle, 0), ring.front().second) << "prompt " << p;
      return;
    }
  }
  FAIL() << "no key past the last point in 100,000 prompts";
}

TEST(PrefixRouter, KeyTooLongBugSamePrefixDifferentUserTurnsSameReplica) {
  const PrefixRouter router(8, 150);
  for (int p = 0; p < 10; ++p) {
    std::set<int> owners;
    for (std::uint64_t u = 0; u < 20; ++u) owners.insert(router.route(request(p, u), 72, -1, kIdle, 0));
    EXPECT_EQ(owners.size(), 1u) << "system prompt " << p;
  }
  // Hashing the whole prompt reaches the user turn: the same system prompt scatters.
  std::set<int> scattered;
  for (std::uint64_t u = 0; u < 20; ++u) scattered.insert(router.route(request(0, u), 104, -1, kIdle, 0));
  EXPECT_GT(scattered.size(), 1u);
}

TEST(PrefixRouter, KeyTooShortBugTemplateOnlySendsEveryPromptToOneReplica) {
  const PrefixRouter router(8, 150);
  std::set<int> short_key, long_key;
  for (int p = 0; p < 40; ++p) {
    short_key.insert(router.route(request(p, 7), kTemplate, -1, kIdle, 0));
    long_key.insert(router.route(request(p, 7), kTemplate + kSystem, -1, kIdle, 0));
  }
  EXPECT_EQ(short_key.size(), 1u);
  EXPECT_GE(long_key.size(), 6u);  // 40 prompts over 8 replicas
}

TEST(PrefixRouter, FirstRequestOnAnIdleFleetGoesToItsOwner) {
  // The cap counts the request being routed: ceil((1 + eps) × 1 / n) = 1 > 0, so the owner.
  const PrefixRouter router(8, 150);
  for (int p = 0; p < 40; ++p) {
    const auto t = request(p, 3);
    EXPECT_EQ(router.route(t, 72, 0.0, kIdle, 0), router.owner(PrefixRouter::key(t, 72)));
  }
}

TEST(PrefixRouter, NextPointBugSpillGoesToTheNextDistinctReplicaWithRoom) {
  const PrefixRouter router(8, 150);
  const auto t = request(0, 1);
  const std::uint64_t h = PrefixRouter::key(t, 72);
  // The distinct replicas clockwise from the key, in order.
  std::vector<int> order;
  const auto& ring = router.ring();
  std::size_t i = 0;
  while (i < ring.size() && ring[i].first < h) ++i;
  for (std::size_t step = 0; order.size() < 8; ++step) {
    const int r = ring[(i + step) % ring.size()].second;
    if (std::find(order.begin(), order.end(), r) == order.end()) order.push_back(r);
  }
  // 16 in flight, eps 0: cap = ceil(17 / 8) = 3. The owner and the next two replicas are full.
  std::vector<int> load(8, 1);
  load[order[0]] = 3;
  load[order[1]] = 3;
  load[order[2]] = 4;
  int sum = 0;
  for (int l : load) sum += l;
  load[order[7]] -= sum - 16;  // keep the loads summing to in_flight
  ASSERT_GE(load[order[7]], 0);
  EXPECT_EQ(router.route(t, 72, 0.0, load, 16), order[3]);
}

TEST(PrefixRouter, CumulativeCountBugTheBoundFollowsTheLoadNow) {
  const PrefixRouter router(4, 150);
  const auto t = request(5, 1);
  const int home = router.owner(PrefixRouter::key(t, 72));
  std::vector<int> load(4, 0);
  load[home] = 2;  // cap at eps 0.25, 2 in flight: ceil(1.25 × 3 / 4) = 1
  EXPECT_NE(router.route(t, 72, 0.25, load, 2), home);
  load[home] = 0;  // its requests finished: home again, whatever it served before
  EXPECT_EQ(router.route(t, 72, 0.25, load, 0), home);
}

TEST(PrefixRouter, TwoRoutersAgree) {
  const PrefixRouter a(8, 150), b(8, 150);
  for (int p = 0; p < 40; ++p) {
    EXPECT_EQ(a.route(request(p, 9), 72, -1, kIdle, 0), b.route(request(p, 9), 72, -1, kIdle, 0));
  }
}

TEST(PrefixRouter, BadInputIsRefused) {
  EXPECT_THROW(PrefixRouter(0, 150), std::invalid_argument);
  EXPECT_THROW(PrefixRouter(8, 0), std::invalid_argument);
  const PrefixRouter router(8, 150);
  EXPECT_THROW(router.route({1, 2}, -1, 0.25, kIdle, 0), std::invalid_argument);
  EXPECT_THROW(router.route({1, 2}, 2, 0.25, std::vector<int>(7, 0), 0), std::invalid_argument);
  EXPECT_THROW(router.route({1, 2}, 2, 0.25, kIdle, 3), std::invalid_argument);  // loads sum to 0
  EXPECT_THROW(router.route({1, 2}, 2, 0.25, std::vector<int>{-1, 1, 0, 0, 0, 0, 0, 0}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ridge::lab
