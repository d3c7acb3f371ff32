#include "ring_sim.h"

#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

// A value distinct for every (rank, index): a chunk sent to the wrong place, summed twice or
// never sent cannot cancel out. All-ones inputs (the tempting test) would hide all three.
RankBuffers distinct_inputs(std::size_t n, std::size_t S) {
  RankBuffers d(n, std::vector<std::int64_t>(S));
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < S; ++i) d[r][i] = static_cast<std::int64_t>(r * 1'000'003 + i * 7 + 1);
  return d;
}

std::vector<std::int64_t> expected_sum(const RankBuffers& d) {
  std::vector<std::int64_t> sum(d[0].size(), 0);
  for (const auto& b : d)
    for (std::size_t i = 0; i < b.size(); ++i) sum[i] += b[i];
  return sum;
}

void expect_all_hold_sum(std::size_t n, std::size_t S) {
  auto d = distinct_inputs(n, S);
  const auto sum = expected_sum(d);
  const RingStats st = ring_allreduce(d, 4);
  EXPECT_EQ(st.steps, 2 * static_cast<int>(n - 1)) << "n=" << n << " S=" << S;
  for (std::size_t r = 0; r < n; ++r) ASSERT_EQ(d[r], sum) << "rank " << r << " n=" << n << " S=" << S;
}

TEST(RingSim, ChunksCoverTheBufferWithTheRemainderUpFront) {
  // S = 10, n = 4: chunks of 3, 3, 2, 2.
  EXPECT_EQ(chunk_begin(10, 4, 0), 0u);
  EXPECT_EQ(chunk_begin(10, 4, 1), 3u);
  EXPECT_EQ(chunk_begin(10, 4, 2), 6u);
  EXPECT_EQ(chunk_begin(10, 4, 3), 8u);
  EXPECT_EQ(chunk_begin(10, 4, 4), 10u) << "the last chunk must end at S, or the tail is never reduced";
  // S < n: three one-element chunks, then empty ones.
  EXPECT_EQ(chunk_begin(3, 16, 3), 3u);
  EXPECT_EQ(chunk_begin(3, 16, 16), 3u);
}

TEST(RingSim, SumsWhenNDividesS) {
  for (std::size_t n : {2u, 4u, 8u}) expect_all_hold_sum(n, 64);
}

TEST(RingSim, SumsWhenNDoesNotDivideS) {
  // The dropped-remainder bug passes every size above and fails these.
  expect_all_hold_sum(4, 10);
  expect_all_hold_sum(8, 1'003);
  expect_all_hold_sum(3, 7);
}

TEST(RingSim, SumsWithFewerElementsThanRanks) {
  expect_all_hold_sum(16, 3);
  expect_all_hold_sum(5, 0);
}

TEST(RingSim, OneRankIsZeroStepsAndZeroBytes) {
  RankBuffers d{{1, 2, 3}};
  const RingStats st = ring_allreduce(d, 4);
  EXPECT_EQ(st.steps, 0);
  EXPECT_EQ(st.bytes_sent, std::vector<std::uint64_t>{0});
  EXPECT_EQ(d[0], (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(RingSim, EveryRankSends2NMinus1OverNOfTheBuffer) {
  for (std::size_t n : {2u, 4u, 8u, 16u}) {
    const std::size_t S = 1'024 * n;
    auto d = distinct_inputs(n, S);
    const RingStats st = ring_allreduce(d, 4);
    const auto expected = static_cast<std::uint64_t>(ring_bytes_per_rank(n, S, 4));
    EXPECT_EQ(expected, 2 * (n - 1) * (S / n) * 4);
    for (std::size_t r = 0; r < n; ++r) EXPECT_EQ(st.bytes_sent[r], expected) << "n=" << n << " rank " << r;
  }
}

TEST(RingSim, UnevenChunksMatchTheFormulaOnAverage) {
  // S = 10, n = 4: 60 bytes per rank on average; ranks send 56..64.
  auto d = distinct_inputs(4, 10);
  const RingStats st = ring_allreduce(d, 4);
  const std::uint64_t total = std::accumulate(st.bytes_sent.begin(), st.bytes_sent.end(), std::uint64_t{0});
  EXPECT_EQ(total, 4u * 60u);
  for (auto b : st.bytes_sent) {
    EXPECT_GE(b, 56u);
    EXPECT_LE(b, 64u);
  }
  // Never more than twice the buffer, whatever n is.
  EXPECT_LT(ring_bytes_per_rank(1'024, 1'000, 4), 2.0 * 1'000 * 4);
  EXPECT_DOUBLE_EQ(ring_bytes_per_rank(8, 1'000'000, 4), 7'000'000.0);
}

TEST(RingSim, ThreadedMatchesSingleThreadedBitForBit) {
  std::mt19937_64 rng(20261201);
  for (std::size_t n : {2u, 3u, 5u, 8u}) {
    for (std::size_t S : {0u, 1u, 7u, 100u, 1'001u}) {
      RankBuffers a(n, std::vector<std::int64_t>(S));
      for (auto& b : a)
        for (auto& x : b) x = static_cast<std::int64_t>(rng());  // full range: sums wrap
      RankBuffers b = a;
      const RingStats sa = ring_allreduce(a, 2);
      const RingStats sb = ring_allreduce_threaded(b, 2);
      ASSERT_EQ(a, b) << "n=" << n << " S=" << S;
      EXPECT_EQ(sa.bytes_sent, sb.bytes_sent);
      EXPECT_EQ(sa.steps, sb.steps);
    }
  }
}

TEST(RingSim, ThreadedSums) {
  auto d = distinct_inputs(8, 1'003);
  const auto sum = expected_sum(d);
  ring_allreduce_threaded(d, 4);
  for (const auto& b : d) ASSERT_EQ(b, sum);
}

TEST(RingSim, RejectsBadInput) {
  RankBuffers none;
  EXPECT_THROW(ring_allreduce(none, 4), std::invalid_argument);
  RankBuffers ragged{{1, 2}, {3}};
  EXPECT_THROW(ring_allreduce(ragged, 4), std::invalid_argument);
  EXPECT_THROW(ring_allreduce_threaded(ragged, 4), std::invalid_argument);
}

}  // namespace
}  // namespace ridge::lab
