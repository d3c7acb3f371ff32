#include "reshard.h"

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/invalid_argument_message.h"

namespace ridge::lab {
namespace {

// Every element's bytes are a function of (tensor, index, byte): no two elements look
// alike, so a read from the wrong place cannot produce the right shard by accident.
unsigned char value_byte(std::size_t t, std::uint64_t i, std::uint64_t k) {
  return static_cast<unsigned char>((t * 131 + i * 7 + k * 3 + 1) & 0xff);
}

// What a direct save by L.ranks() ranks would write, computed from lo/hi alone (not from
// file_offset, so a wrong offset table cannot make both sides agree).
Files direct_save(const Layout& L) {
  Files files;
  for (int r = 0; r < L.ranks(); ++r) {
    std::vector<unsigned char> f;
    for (std::size_t t = 0; t < L.tensors().size(); ++t)
      for (std::uint64_t i = L.lo(t, r); i < L.hi(t, r); ++i)
        for (std::uint64_t k = 0; k < L.tensors()[t].elem_bytes; ++k) f.push_back(value_byte(t, i, k));
    files.push_back(std::move(f));
  }
  return files;
}

// Resharding N -> M equals a direct save by M, and every destination byte is written once.
void expect_round_trip(const std::vector<Tensor>& tensors, int n, int m, std::size_t* reads = nullptr) {
  const Layout from(tensors, n), to(tensors, m);
  const Plan p = plan(from, to);
  const Files want = direct_save(to);
  ASSERT_EQ(apply(p, direct_save(from), from, to), want) << n << " -> " << m;
  std::size_t total = 0;
  for (int s = 0; s < m; ++s) {
    std::vector<int> covered(want[static_cast<std::size_t>(s)].size(), 0);
    for (const Read& rd : p[static_cast<std::size_t>(s)]) {
      ASSERT_GT(rd.len, 0u);
      for (std::uint64_t k = 0; k < rd.len; ++k) ++covered[rd.dest_off + k];
      ++total;
    }
    ASSERT_TRUE(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }))
        << n << " -> " << m << " new rank " << s;
  }
  if (reads != nullptr) *reads = total;
}

const std::vector<Tensor> kMixed = {{10, 2}, {7, 4}, {3, 4}, {1, 2}};  // bf16 and fp32; 1 < ranks

TEST(Reshard, RoundTripsEveryByteExactlyOnceWithMixedElementSizes) {
  const std::pair<int, int> pairs[] = {{8, 3}, {3, 8}, {4, 4}, {5, 2}, {2, 5}, {1, 6}};
  const std::size_t expected_reads[] = {19, 19, 12, 15, 15, 16};
  for (std::size_t i = 0; i < 6; ++i) {
    std::size_t reads = 0;
    expect_round_trip(kMixed, pairs[i].first, pairs[i].second, &reads);
    EXPECT_EQ(reads, expected_reads[i]) << pairs[i].first << " -> " << pairs[i].second;
  }
}

TEST(Reshard, RandomPairsAtAFixedSeedRoundTrip) {
  std::mt19937_64 rng(20261201);
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<Tensor> ts;
    const int tensors = 1 + static_cast<int>(rng() % 5);
    for (int t = 0; t < tensors; ++t) ts.push_back({rng() % 40, rng() % 2 == 0 ? 2u : 4u});
    const int n = 1 + static_cast<int>(rng() % 17), m = 1 + static_cast<int>(rng() % 17);
    expect_round_trip(ts, n, m);
    if (HasFatalFailure()) return;
  }
}

TEST(Reshard, RemainderGoesToTheFirstRanksNotDropped) {
  const Layout L({{10, 2}}, 4);  // 3, 3, 2, 2
  EXPECT_EQ(L.lo(0, 0), 0u);
  EXPECT_EQ(L.lo(0, 1), 3u);
  EXPECT_EQ(L.lo(0, 2), 6u);
  EXPECT_EQ(L.lo(0, 3), 8u);
  EXPECT_EQ(L.hi(0, 3), 10u);
}

TEST(Reshard, FileOffsetIsAPerRankPrefixSumNotTTimesAShardSize) {
  const Layout L({{10, 2}, {7, 4}, {3, 4}}, 3);
  // rank 0 holds 4 of tensor 0 (8 B), rank 2 holds 3 (6 B): tensor 1 starts at different offsets.
  EXPECT_EQ(L.file_offset(1, 0), 8u);
  EXPECT_EQ(L.file_offset(1, 2), 6u);
  EXPECT_EQ(L.file_offset(2, 0), 8u + 3 * 4);
  EXPECT_EQ(L.file_offset(2, 2), 6u + 2 * 4);
  EXPECT_EQ(L.shard_bytes(2), 6u + 2 * 4 + 1 * 4);
}

TEST(Reshard, ReadsNeverSplitAnElement) {
  const Layout from(kMixed, 5), to(kMixed, 3);
  const Plan p = plan(from, to);
  for (int s = 0; s < 3; ++s) {
    for (const Read& rd : p[static_cast<std::size_t>(s)]) {
      // Find the tensor this read lands in, and check it is element-aligned there.
      std::size_t t = 0;
      while (t + 1 < kMixed.size() && to.file_offset(t + 1, s) <= rd.dest_off) ++t;
      const std::uint64_t eb = kMixed[t].elem_bytes;
      EXPECT_EQ((rd.dest_off - to.file_offset(t, s)) % eb, 0u);
      EXPECT_EQ((rd.file_off - from.file_offset(t, rd.old_rank)) % eb, 0u);
      EXPECT_EQ(rd.len % eb, 0u);
    }
  }
}

TEST(Reshard, EmptyShardsGetNoReadsAndDoNotStallTheSweep) {
  const Layout from({{1, 2}}, 1), to({{1, 2}}, 6);
  const Plan p = plan(from, to);
  EXPECT_EQ(p[0].size(), 1u);
  for (int s = 1; s < 6; ++s) EXPECT_TRUE(p[static_cast<std::size_t>(s)].empty()) << s;
  expect_round_trip({{1, 2}}, 6, 1);  // five empty old shards skipped on the way
}

TEST(Reshard, CountsThatAreNotMultiplesOfEachOther) {
  // The question's large case: one 8192 x 8192 bf16 matrix and its two fp32 Adam moments.
  const std::uint64_t e = 8192ull * 8192;
  const std::vector<Tensor> big = {{e, 2}, {e, 4}, {e, 4}};
  const Layout b512(big, 512);
  for (auto [m, most_reads, most_files, bytes] :
       {std::tuple{256, 6u, 2u, 2'621'440ull}, std::tuple{384, 9u, 3u, 1'747'630ull}}) {
    const Layout to(big, m);
    const Plan p = plan(b512, to);
    std::size_t reads = 0, files = 0;
    for (const auto& rs : p) {
      reads = std::max(reads, rs.size());
      std::set<int> f;
      for (const auto& r : rs) f.insert(r.old_rank);
      files = std::max(files, f.size());
    }
    EXPECT_EQ(reads, most_reads) << m;
    EXPECT_EQ(files, most_files) << m;
    EXPECT_EQ(to.shard_bytes(0), bytes) << m;
  }
}

TEST(Reshard, CoalescingTheIdentityGivesOneReadPerFile) {
  const Layout L(kMixed, 4);
  const Plan p = coalesce(plan(L, L));
  for (int s = 0; s < 4; ++s) {
    ASSERT_EQ(p[static_cast<std::size_t>(s)].size(), 1u) << s;
    EXPECT_EQ(p[static_cast<std::size_t>(s)][0], (Read{s, 0, L.shard_bytes(s), 0}));
  }
  const Layout to(kMixed, 3);
  EXPECT_EQ(apply(coalesce(plan(L, to)), direct_save(L), L, to), direct_save(to));
}

TEST(Reshard, MismatchedLayoutsAndFilesAreRefused) {
  EXPECT_EQ(invalid_argument_message([] { (void)plan(Layout({{10, 2}}, 2), Layout({{10, 4}}, 3)); }),
            "tensor 0: 10 x 2 B saved, 10 x 4 B requested");
  EXPECT_EQ(invalid_argument_message([] { Layout({{10, 2}}, 0); }), "ranks 0: must be >= 1");
  EXPECT_EQ(invalid_argument_message([] { Layout({{10, 0}}, 2); }), "elem_bytes of tensor 0 0: must be >= 1");
  const Layout from({{10, 2}}, 2), to({{10, 2}}, 3);
  Files short_files = direct_save(from);
  short_files[1].pop_back();
  EXPECT_EQ(invalid_argument_message([&] { (void)apply(plan(from, to), short_files, from, to); }),
            "old file 1: 9 bytes, expected 10");
}

}  // namespace
}  // namespace ridge::lab
