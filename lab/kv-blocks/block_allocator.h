// BlockAllocator: a fixed pool of KV-cache blocks with prefix sharing by chain hash, the
// allocator behind a paged KV cache (vLLM's PagedAttention and automatic prefix caching).
//
// Contract:
// - The pool holds `num_blocks` blocks of `block_size` tokens. A sequence's KV lives in the
//   blocks its table names, one block per block_size tokens, the last one possibly partial.
// - A full block is named by a chain hash h_i = H(h_{i-1}, tokens of block i), so equal keys
//   mean equal prefixes, not only equal windows. A hit must also match the block's tokens
//   and its parent (physical id and generation): a hash collision can never hand out
//   another prefix's KV. `hash_space` > 0 reduces every hash modulo it (1 makes every full
//   block collide), for tests only; 0 keeps the full 64 bits.
// - allocate(prompt) shares the longest leading run of cached full blocks (reference + 1)
//   and takes fresh blocks for the rest. The last partial block is always private, and so
//   is every block after the first miss. All-or-nothing: if the pool cannot supply every
//   block (fresh ones plus revived cached ones, which also leave the free list), it answers
//   nullopt and nothing changed. An empty prompt gets an empty table.
// - Hits are pinned before any fresh block is taken, so a fresh take cannot evict a block
//   the same call is about to share.
// - release(seq) drops one reference per block, deepest block first; a block at reference 0
//   joins the tail of the free list and keeps its hash: still a hit until reused. A second
//   release of the same Seq (its table is cleared), a Seq with an empty table, or a table
//   naming a block already at reference 0 answers false and changes nothing.
// - A fresh block comes from the head of the free list (least recently freed); reusing a
//   block that holds a cached prefix evicts that cache entry (counted in stats().evictions).
// - Not thread-safe: the engine's scheduler loop owns it.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ridge::lab {

class BlockAllocator {
 public:
  struct Seq {
    std::vector<int> tokens;
    std::vector<int> table;  // physical block ids, one per block_size tokens
  };
  struct Stats {
    std::int64_t hits = 0;       // full blocks shared or revived from the cache
    std::int64_t misses = 0;     // blocks taken fresh
    std::int64_t evictions = 0;  // fresh takes that dropped a cached prefix block
  };

  // Preconditions: num_blocks >= 1, block_size >= 1 (std::invalid_argument otherwise).
  BlockAllocator(int num_blocks, int block_size, std::uint64_t hash_space = 0);

  std::optional<Seq> allocate(const std::vector<int>& prompt);
  bool release(Seq& s);  // false, and nothing changed, on a double release
  // Appends one decoded token to `s`. A token that starts a new block takes a fresh block;
  // if none is free it answers false and nothing changed. Decoded blocks are private and not
  // published to the prefix cache. Not counted in stats().
  bool append(Seq& s, int token);

  // Blocks one more call could take fresh now (reference 0, cached or not).
  int free_blocks() const { return static_cast<int>(free_.size()); }
  int num_blocks() const { return static_cast<int>(blocks_.size()); }
  int block_size() const { return bs_; }
  int ref(int block) const { return blocks_.at(block).ref; }
  const Stats& stats() const { return stats_; }
  // True if every block of `s` holds exactly the sequence's tokens at its position.
  bool holds(const Seq& s) const;

 private:
  struct Block {
    int ref = 0;
    bool cached = false;
    std::uint64_t hash = 0;
    std::uint32_t gen = 0;  // bumped on every reuse
    int parent = -1;        // previous block of the prefix, and its generation then
    std::uint32_t parent_gen = 0;
    std::vector<int> tokens;
    std::list<int>::iterator pos;  // place in free_ while ref == 0
  };

  std::uint64_t chain(std::uint64_t parent, const std::vector<int>& t, int i) const;
  bool matches(int b, const std::vector<int>& t, int i, int parent) const;
  int take_fresh();

  int bs_;
  std::uint64_t hash_space_;
  std::vector<Block> blocks_;
  std::list<int> free_;  // head: least recently freed
  std::unordered_map<std::uint64_t, int> cache_;
  Stats stats_;
};

}  // namespace ridge::lab
