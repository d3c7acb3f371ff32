#include "intervals.h"

#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {

void PrintTo(const Interval& i, std::ostream* os) { *os << "[" << i.start_us << ", " << i.end_us << ")"; }

namespace {

using Ranks = std::vector<std::vector<Interval>>;

// The question's trace (content/questions/coding/merge-gpu-idle-intervals.md): one 100 ms
// step on four ranks; rank 2 reports overlapping and touching records, rank 3 an empty one.
const Ranks kTrace{
    {{0, 8'000}, {40'000, 55'000}, {90'000, 100'000}},
    {{0, 5'000}, {42'000, 60'000}, {88'000, 100'000}},
    {{0, 3'000}, {2'000, 9'000}, {45'000, 50'000}, {50'000, 58'000}, {95'000, 100'000}},
    {{1'000, 6'000}, {41'000, 52'000}, {92'000, 100'000}, {70'000, 70'000}},
};

TEST(Intervals, MergeJoinsOverlappingAndTouchingAndDropsEmpty) {
  const std::vector<Interval> rank2{{0, 3'000}, {2'000, 9'000}, {45'000, 50'000}, {50'000, 58'000}, {95'000, 100'000}};
  EXPECT_EQ(merge_intervals(rank2).intervals,
            (std::vector<Interval>{{0, 9'000}, {45'000, 58'000}, {95'000, 100'000}}));
  const std::vector<Interval> messy{{5, 9}, {0, 5}, {7, 7}, {12, 10}, {20, 30}, {21, 22}};
  const auto r = merge_intervals(messy);
  EXPECT_EQ(r.intervals, (std::vector<Interval>{{0, 9}, {20, 30}}));
  EXPECT_EQ(r.dropped, 2u) << "(7, 7) and (12, 10)";
}

TEST(Intervals, TheQuestionsTraceHas16000UsOfAllIdleTime) {
  const auto common = all_idle(kTrace);
  EXPECT_EQ(common, (std::vector<Interval>{{1'000, 5'000}, {45'000, 52'000}, {95'000, 100'000}}));
  EXPECT_EQ(total_us(common), 16'000);
}

TEST(Intervals, MergingFirstPreventsDoubleCounting) {
  // Unmerged, rank 0's two records count it twice between 2 and 8, and with two ranks
  // the counter reaches 2 while rank 1 is busy.
  EXPECT_EQ(all_idle({{{0, 10}, {2, 8}}, {{0, 10}}}), (std::vector<Interval>{{0, 10}}));
  EXPECT_TRUE(all_idle({{{0, 10}, {2, 8}}, {{20, 30}}}).empty());
}

TEST(Intervals, TouchingAcrossRanksIsNotSharedIdleTime) {
  EXPECT_TRUE(all_idle({{{0, 5}}, {{5, 9}}}).empty());
  EXPECT_EQ(any_idle({{{0, 5}}, {{5, 9}}}), (std::vector<Interval>{{0, 9}}));
}

TEST(Intervals, EdgeCases) {
  EXPECT_TRUE(all_idle({}).empty()) << "no ranks";
  EXPECT_TRUE(all_idle({{{0, 10}}, {}}).empty()) << "a rank that was never idle";
  EXPECT_EQ(all_idle({{{0, 10}}}), (std::vector<Interval>{{0, 10}})) << "one rank";
  EXPECT_TRUE(idle_at_least({{{0, 10}}}, 0).empty());
  EXPECT_TRUE(idle_at_least({{{0, 10}}}, 2).empty());
}

// Brute force over unit time steps: time t is idle on a rank if some record covers it.
std::vector<Interval> brute_force(const Ranks& ranks, std::size_t k, std::int64_t horizon) {
  std::vector<Interval> out;
  for (std::int64_t t = 0; t < horizon; ++t) {
    std::size_t idle = 0;
    for (const auto& rank : ranks) {
      bool covered = false;
      for (const auto& i : rank) covered = covered || (i.start_us <= t && t < i.end_us);
      idle += covered;
    }
    if (idle >= k && !ranks.empty()) {
      if (!out.empty() && out.back().end_us == t) {
        out.back().end_us = t + 1;
      } else {
        out.push_back({t, t + 1});
      }
    }
  }
  return out;
}

TEST(Intervals, AgreesWithBruteForceOnRandomTraces) {
  std::mt19937_64 rng(20261130);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng() % 5;
    Ranks ranks(n);
    for (auto& rank : ranks) {
      const int records = static_cast<int>(rng() % 6);
      for (int r = 0; r < records; ++r) {
        const auto s = static_cast<std::int64_t>(rng() % 60);
        rank.push_back({s, s + static_cast<std::int64_t>(rng() % 15) - 2});  // some empty or reversed
      }
    }
    for (std::size_t k = 1; k <= n; ++k) {
      ASSERT_EQ(idle_at_least(ranks, k), brute_force(ranks, k, 80)) << "trial " << trial << " k " << k;
    }
  }
}

}  // namespace
}  // namespace ridge::lab
