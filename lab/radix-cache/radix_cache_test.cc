#include "radix_cache.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

using Node = RadixCache::Node;

std::vector<int> seq(int base, int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(base + i);
  return v;
}

std::vector<int> cat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The least recently used unlocked leaf by a full scan: the O(nodes) reference.
void scan(const Node* n, const Node* root, const Node*& best) {
  if (n != root && n->kids.empty() && n->ref == 0 && (best == nullptr || n->used < best->used)) best = n;
  for (const auto& [tok, c] : n->kids) scan(c.get(), root, best);
}

void used_values(const Node* n, const Node* root, std::multiset<std::uint64_t>& out) {
  if (n != root) out.insert(n->used);
  for (const auto& [tok, c] : n->kids) used_values(c.get(), root, out);
}

TEST(RadixCache, SplitInsertsANewParentAndTheOldNodeKeepsItsTail) {
  RadixCache c;
  Node* a = c.insert({1, 2, 3, 4});
  Node* b = c.insert({1, 2, 5});
  EXPECT_EQ(c.nodes(), 3u);
  EXPECT_EQ(c.size(), 5u);  // the split added no tokens; the suffix [5] added one
  EXPECT_EQ(a->edge, (std::vector<int>{3, 4}));
  EXPECT_EQ(b->edge, (std::vector<int>{5}));
  ASSERT_NE(a->parent, nullptr);
  EXPECT_EQ(a->parent, b->parent);
  EXPECT_EQ(a->parent->edge, (std::vector<int>{1, 2}));
  EXPECT_EQ(c.match({1, 2, 3, 4}).second, a);
}

TEST(RadixCache, SplitRewritingTheNodeBugLeaksALockedTailAfterUnlock) {
  RadixCache c;
  Node* a = c.insert({1, 2, 3, 4});
  c.lock(a);                 // a running request holds [1 2 3 4]
  c.insert({1, 2, 5});       // splits a's edge while it is locked
  EXPECT_EQ(c.evict(100), 1u);  // only [5] is unlocked
  c.unlock(a);               // the request finishes
  EXPECT_EQ(c.evict(100), 4u);  // every token is evictable again: no lock left behind
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.nodes(), 0u);
}

TEST(RadixCache, LongestPrefixMayEndInsideAnEdge) {
  RadixCache c;
  c.insert({1, 2, 3, 4});
  c.insert({1, 2, 5});
  const auto [len, node] = c.match({1, 2, 3, 9});
  EXPECT_EQ(len, 3u);
  EXPECT_EQ(node->edge, (std::vector<int>{3, 4}));
  EXPECT_EQ(c.match({1, 2}).first, 2u);
  const auto none = c.match({7});
  EXPECT_EQ(none.first, 0u);
  EXPECT_EQ(none.second, c.root());
  EXPECT_EQ(c.match({}).first, 0u);
}

TEST(RadixCache, InsertingACachedSequenceAddsNothing) {
  RadixCache c;
  c.insert(seq(1, 10));
  Node* mid = c.insert(seq(1, 6));  // ends inside the edge: split, no new tokens
  EXPECT_EQ(c.size(), 10u);
  EXPECT_EQ(c.nodes(), 2u);
  EXPECT_EQ(mid->edge, seq(1, 6));
  EXPECT_EQ(c.insert(seq(1, 10))->edge, seq(7, 4));
  EXPECT_EQ(c.size(), 10u);
  EXPECT_EQ(c.insert({}), c.root());
}

TEST(RadixCache, EvictingALockedPathBugRunningRequestKeepsItsKV) {
  RadixCache c;
  const auto sys = seq(1000, 100);
  Node* a = c.insert(cat(sys, seq(1, 20)));
  c.lock(a);
  EXPECT_EQ(c.evict(1000), 0u);
  EXPECT_EQ(c.match(cat(sys, seq(1, 20))).first, 120u);
  c.lock(a);  // nested: two requests on the same path
  c.unlock(a);
  EXPECT_EQ(c.evict(1000), 0u);
  c.unlock(a);
  EXPECT_EQ(c.evict(1000), 120u);
}

TEST(RadixCache, LeastRecentlyUsedLeafGoesFirst) {
  RadixCache c;
  const auto sys = seq(1000, 100);
  Node* a = c.insert(cat(sys, seq(1, 20)));  // request A, still running
  c.lock(a);
  c.insert(cat(sys, seq(500, 30)));  // request B, finished
  c.insert(seq(9000, 40));           // an unrelated prompt, finished
  c.match(cat(sys, seq(500, 30)));   // B reused recently
  EXPECT_EQ(c.match(cat(sys, seq(77, 5))).first, 100u);
  EXPECT_EQ(c.evict(1), 40u);        // the unrelated prompt, used least recently
  EXPECT_EQ(c.match(seq(9000, 40)).first, 0u);
  EXPECT_EQ(c.evict(1), 30u);        // then B's branch
  EXPECT_EQ(c.size(), 120u);
}

TEST(RadixCache, EvictingAnInternalNodeBugSharedPrefixOutlivesItsBranches) {
  RadixCache c;
  const auto sys = seq(1000, 100);
  c.insert(cat(sys, seq(1, 20)));
  c.insert(cat(sys, seq(500, 30)));
  c.match(sys);  // the shared prefix is the most recently used node...
  c.match(cat(sys, seq(1, 20)));
  // ...yet it is internal: both branches go first, then it becomes a leaf.
  EXPECT_EQ(c.evict(1), 30u);
  EXPECT_EQ(c.match(sys).first, 100u);
  EXPECT_EQ(c.evict(1), 20u);
  EXPECT_EQ(c.match(sys).first, 100u);
  EXPECT_EQ(c.evictable(), 1u);  // the prefix, a leaf now
  EXPECT_EQ(c.evict(1), 100u);
  EXPECT_EQ(c.size(), 0u);
}

TEST(RadixCache, UnlockWithoutLockThrowsAndChangesNothing) {
  RadixCache c;
  Node* a = c.insert({1, 2, 3});
  EXPECT_THROW(c.unlock(a), std::logic_error);
  EXPECT_EQ(a->ref, 0);
  EXPECT_EQ(c.evict(10), 3u);
}

TEST(RadixCache, PriorityQueueEvictsWhatAFullScanWould) {
  std::mt19937_64 rng(20261201);
  RadixCache c;
  std::vector<std::vector<int>> seen;
  std::vector<Node*> locked;
  for (int step = 0; step < 3000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 4 || seen.empty()) {  // insert a sequence that branches off an earlier one
      std::vector<int> t = seen.empty() ? std::vector<int>{} : seen[rng() % seen.size()];
      t.resize(t.size() * (rng() % 100) / 100);
      for (int k = 0, n = 1 + static_cast<int>(rng() % 6); k < n; ++k) t.push_back(static_cast<int>(rng() % 5));
      Node* n = c.insert(t);
      seen.push_back(t);
      if (rng() % 4 == 0) {
        c.lock(n);
        locked.push_back(n);
      }
    } else if (op < 7) {
      c.match(seen[rng() % seen.size()]);
    } else if (op < 8 && !locked.empty()) {
      const std::size_t i = rng() % locked.size();
      c.unlock(locked[i]);
      locked.erase(locked.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const Node* best = nullptr;
      scan(c.root(), c.root(), best);
      std::multiset<std::uint64_t> before, after;
      used_values(c.root(), c.root(), before);
      const std::size_t want = best == nullptr ? 0 : best->edge.size();
      const std::uint64_t best_used = best == nullptr ? 0 : best->used;
      EXPECT_EQ(c.evict(1), want) << "step " << step;
      used_values(c.root(), c.root(), after);
      if (best != nullptr) {
        before.erase(before.find(best_used));
        EXPECT_EQ(before, after) << "step " << step << ": evicted another node than the LRU leaf";
      }
    }
  }
  for (Node* n : locked) c.unlock(n);
  c.evict(1'000'000);
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.evictable(), 0u);
}

}  // namespace
}  // namespace ridge::lab
