#include "block_allocator.h"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

std::vector<int> run(int start, int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(start + i);
  return v;
}

std::vector<int> cat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(BlockAllocator, FullBlocksSharedPartialBlockPrivate) {
  BlockAllocator kv(8, 4);
  const auto system = run(100, 8);  // two full blocks
  auto a = *kv.allocate(cat(system, run(1, 2)));
  auto b = *kv.allocate(cat(system, run(50, 3)));
  ASSERT_EQ(a.table.size(), 3u);
  ASSERT_EQ(b.table.size(), 3u);
  EXPECT_EQ(a.table[0], b.table[0]);
  EXPECT_EQ(a.table[1], b.table[1]);
  EXPECT_NE(a.table[2], b.table[2]);
  EXPECT_EQ(kv.ref(a.table[0]), 2);
  EXPECT_EQ(kv.free_blocks(), 4);
  EXPECT_TRUE(kv.holds(a));
  EXPECT_TRUE(kv.holds(b));
}

TEST(BlockAllocator, BlockLocalHashBugSameWindowUnderAnotherPrefixNotShared) {
  // The second blocks hold the same 4 tokens, but after different first blocks: their KV
  // differs. A hash of the block's own tokens would share it.
  BlockAllocator kv(8, 4);
  auto a = *kv.allocate(cat(run(1, 4), run(500, 4)));
  auto b = *kv.allocate(cat(run(9, 4), run(500, 4)));
  EXPECT_NE(a.table[0], b.table[0]);
  EXPECT_NE(a.table[1], b.table[1]);
  EXPECT_EQ(kv.stats().hits, 0);
}

TEST(BlockAllocator, TrustingTheHashBugCollisionsNeverServeAnotherPrefix) {
  BlockAllocator weak(8, 4, /*hash_space=*/1);  // every full block has the same key
  auto x = *weak.allocate(run(1, 8));
  auto y = *weak.allocate(run(500, 8));
  EXPECT_NE(x.table[0], y.table[0]);
  EXPECT_NE(x.table[1], y.table[1]);
  EXPECT_TRUE(weak.holds(x));
  EXPECT_TRUE(weak.holds(y));
  // The same prompt again: the first block verifies and is shared; the second block's key is
  // owned by x's first block (a different parent), so it is a miss, never a wrong hit.
  auto z = *weak.allocate(run(1, 8));
  EXPECT_EQ(z.table[0], x.table[0]);
  EXPECT_NE(z.table[1], x.table[1]);
  EXPECT_TRUE(weak.holds(z));
}

TEST(BlockAllocator, FreedPrefixIsRevivedFromTheFreeList) {
  BlockAllocator kv(8, 4);
  const auto system = run(100, 8);
  auto a = *kv.allocate(cat(system, run(1, 2)));
  const auto a_blocks = a.table;
  ASSERT_TRUE(kv.release(a));
  EXPECT_EQ(kv.free_blocks(), 8);
  auto c = *kv.allocate(cat(system, run(7, 1)));
  EXPECT_EQ(c.table[0], a_blocks[0]);
  EXPECT_EQ(c.table[1], a_blocks[1]);
  EXPECT_EQ(kv.stats().hits, 2);
  EXPECT_EQ(kv.free_blocks(), 5);  // the revived blocks left the free list
}

TEST(BlockAllocator, UnpinnedHitsBugFreshTakeEvictsTheBlockAboutToBeShared) {
  // Arrange the free list so the cached prefix blocks sit at its head: a fresh take made
  // before the hits are pinned would evict them.
  BlockAllocator kv(4, 4);
  const auto system = run(100, 8);
  auto s = *kv.allocate(system);         // blocks 0, 1
  const auto sys_blocks = s.table;
  ASSERT_TRUE(kv.release(s));            // free: 2 3 1 0
  auto other = *kv.allocate(run(900, 8));  // takes 2, 3
  ASSERT_TRUE(kv.release(other));        // free: 1 0 3 2
  auto t = kv.allocate(cat(system, run(1, 4)));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->table[0], sys_blocks[0]);
  EXPECT_EQ(t->table[1], sys_blocks[1]);
  EXPECT_TRUE(kv.holds(*t));
  EXPECT_EQ(kv.stats().hits, 2);
  EXPECT_EQ(kv.stats().evictions, 1);  // block 3 (other's tail) was taken, not the prefix
}

TEST(BlockAllocator, PartialAllocationBugRefusedCallChangesNothing) {
  BlockAllocator kv(4, 4);
  const auto system = run(100, 8);
  auto a = *kv.allocate(system);
  ASSERT_TRUE(kv.release(a));
  auto d = *kv.allocate(run(900, 12));  // 3 blocks: 2, 3 and the cached block 1 (evicted)
  const auto before = kv.stats();
  const int free_before = kv.free_blocks();
  EXPECT_FALSE(kv.allocate(run(700, 8)).has_value());  // 2 asked, 1 free
  EXPECT_EQ(kv.free_blocks(), free_before);
  EXPECT_EQ(kv.stats().hits, before.hits);
  EXPECT_EQ(kv.stats().misses, before.misses);
  EXPECT_EQ(kv.stats().evictions, before.evictions);
  ASSERT_TRUE(kv.release(d));
  EXPECT_EQ(kv.free_blocks(), 4);
}

TEST(BlockAllocator, RevivedHitsCountAgainstTheFreeList) {
  // 4 blocks: the cached prefix (2 blocks, free) plus 3 fresh would need 5 from the list.
  BlockAllocator kv(4, 4);
  const auto system = run(100, 8);
  auto a = *kv.allocate(system);
  ASSERT_TRUE(kv.release(a));
  EXPECT_FALSE(kv.allocate(cat(system, run(1, 12))).has_value());
  EXPECT_EQ(kv.free_blocks(), 4);
  EXPECT_EQ(kv.stats().hits, 0);
  // Exactly the pool: 2 revived + 2 fresh.
  auto b = kv.allocate(cat(system, run(1, 8)));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(kv.free_blocks(), 0);
}

TEST(BlockAllocator, FirstBlockFirstReleaseBugEvictsTheSharedPrefixBeforeTheTail) {
  BlockAllocator kv(8, 4);
  const auto system = run(100, 8);
  auto d = *kv.allocate(run(900, 16));  // 4 blocks, all other blocks stay free ahead of it
  auto c = *kv.allocate(cat(system, run(7, 1)));
  const auto c_blocks = c.table;
  ASSERT_TRUE(kv.release(c));  // deepest first: the partial block, then prefix block 2, then 1
  // The free list now starts with the 1 untouched block, then C's blocks, tail first.
  auto e = *kv.allocate(run(600, 8));
  EXPECT_EQ(e.table[1], c_blocks[2]);
  auto f = kv.allocate(system);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->table[0], c_blocks[0]);
  EXPECT_EQ(f->table[1], c_blocks[1]);
  (void)d;
}

TEST(BlockAllocator, FreshBlocksComeFromTheLeastRecentlyFreed) {
  BlockAllocator kv(8, 4);
  auto d = *kv.allocate(run(900, 16));  // 4 cached full blocks
  const auto d_blocks = d.table;
  auto rest = *kv.allocate(run(1, 16));  // the other 4 blocks
  ASSERT_TRUE(kv.release(d));  // free: d3 d2 d1 d0
  auto g = *kv.allocate(run(300, 4));
  EXPECT_EQ(g.table[0], d_blocks[3]);
  EXPECT_EQ(kv.stats().evictions, 1);
  auto d2 = kv.allocate(run(900, 12));  // D's first three blocks still hit
  ASSERT_TRUE(d2.has_value());
  EXPECT_EQ(d2->table, std::vector<int>(d_blocks.begin(), d_blocks.begin() + 3));
  (void)rest;
}

TEST(BlockAllocator, UnguardedDecrementBugDoubleReleaseRefused) {
  BlockAllocator kv(8, 4);
  const auto system = run(100, 8);
  auto a = *kv.allocate(cat(system, run(1, 2)));
  auto b = *kv.allocate(cat(system, run(50, 3)));
  auto a_copy = a;
  ASSERT_TRUE(kv.release(a));
  EXPECT_FALSE(kv.release(a));       // its table was cleared
  EXPECT_FALSE(kv.release(a_copy));  // its partial block is already at reference 0
  EXPECT_EQ(kv.ref(b.table[0]), 1);  // B still holds the shared prefix
  EXPECT_EQ(kv.free_blocks(), 5);
}

TEST(BlockAllocator, AppendTakesABlockOnlyAtABoundaryAndNeverWritesASharedBlock) {
  BlockAllocator kv(4, 4);
  const auto system = run(100, 4);  // one full block, shared
  auto a = *kv.allocate(system);
  auto b = *kv.allocate(system);
  ASSERT_EQ(a.table, b.table);
  EXPECT_TRUE(kv.append(a, 7));  // starts a new block: the shared one is full
  EXPECT_EQ(a.table.size(), 2u);
  EXPECT_NE(a.table[1], b.table[0]);
  for (int t = 8; t < 11; ++t) EXPECT_TRUE(kv.append(a, t));  // fills it: no new block
  EXPECT_EQ(a.table.size(), 2u);
  EXPECT_TRUE(kv.holds(a));
  EXPECT_TRUE(kv.holds(b));
  EXPECT_TRUE(kv.append(a, 11));
  EXPECT_TRUE(kv.append(b, 12));
  EXPECT_EQ(kv.free_blocks(), 0);
  const auto before = a;
  EXPECT_FALSE(kv.append(b, 13) && kv.append(b, 14) && kv.append(b, 15) && kv.append(b, 16));
  EXPECT_EQ(a.table, before.table);
  EXPECT_EQ(b.tokens.size(), 8u);  // 4 + 4 appended; the one that needed a block was refused
}

TEST(BlockAllocator, EmptyPromptAndBadArguments) {
  BlockAllocator kv(2, 4);
  auto e = kv.allocate({});
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->table.empty());
  EXPECT_FALSE(kv.release(*e));
  EXPECT_THROW(BlockAllocator(0, 4), std::invalid_argument);
  EXPECT_THROW(BlockAllocator(4, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ridge::lab
