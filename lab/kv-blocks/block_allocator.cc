#include "block_allocator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ridge::lab {

namespace {
constexpr std::uint64_t kSeed = 0xcbf29ce484222325ull;  // FNV-1a offset basis
constexpr std::uint64_t kPrime = 0x100000001b3ull;      // FNV-1a prime
}  // namespace

BlockAllocator::BlockAllocator(int num_blocks, int block_size, std::uint64_t hash_space)
    : bs_(block_size), hash_space_(hash_space) {
  if (num_blocks < 1) throw std::invalid_argument("num_blocks = " + std::to_string(num_blocks) + ": must be >= 1");
  if (block_size < 1) throw std::invalid_argument("block_size = " + std::to_string(block_size) + ": must be >= 1");
  blocks_.resize(static_cast<std::size_t>(num_blocks));
  for (int b = 0; b < num_blocks; ++b) blocks_[b].pos = free_.insert(free_.end(), b);
}

std::uint64_t BlockAllocator::chain(std::uint64_t parent, const std::vector<int>& t, int i) const {
  std::uint64_t h = parent;
  for (int j = i * bs_; j < (i + 1) * bs_; ++j) {
    for (int k = 0; k < 4; ++k) {
      h ^= (static_cast<std::uint32_t>(t[j]) >> (8 * k)) & 0xff;
      h *= kPrime;
    }
  }
  return hash_space_ ? h % hash_space_ : h;  // a tiny hash space forces collisions in tests
}

bool BlockAllocator::matches(int b, const std::vector<int>& t, int i, int parent) const {
  const Block& blk = blocks_[b];
  if (blk.parent != parent) return false;
  if (parent >= 0 && blk.parent_gen != blocks_[parent].gen) return false;
  return std::equal(blk.tokens.begin(), blk.tokens.end(), t.begin() + i * bs_);
}

int BlockAllocator::take_fresh() {
  const int b = free_.front();
  free_.pop_front();
  Block& blk = blocks_[b];
  if (blk.cached) {  // reusing it evicts its cached prefix block
    cache_.erase(blk.hash);
    blk.cached = false;
    ++stats_.evictions;
  }
  ++blk.gen;
  return b;
}

std::optional<BlockAllocator::Seq> BlockAllocator::allocate(const std::vector<int>& prompt) {
  const int size = static_cast<int>(prompt.size());
  const int n = (size + bs_ - 1) / bs_;
  const int full = size / bs_;
  // Plan: the longest leading run of verified hits, then fresh blocks. Nothing changes yet.
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(full));
  std::vector<int> hit;
  std::uint64_t h = kSeed;
  int parent = -1;
  for (int i = 0; i < full; ++i) {
    h = chain(h, prompt, i);
    hashes[i] = h;
    if (static_cast<int>(hit.size()) != i) continue;  // the run of hits has ended
    const auto it = cache_.find(h);
    if (it != cache_.end() && matches(it->second, prompt, i, parent)) {
      hit.push_back(it->second);
      parent = it->second;
    }
  }
  int from_free = n - static_cast<int>(hit.size());
  for (int b : hit) from_free += blocks_[b].ref == 0;  // revived blocks leave the free list too
  if (from_free > free_blocks()) return std::nullopt;  // nothing touched

  Seq s;
  s.tokens = prompt;
  for (int b : hit) {  // pin the hits first, so taking fresh blocks cannot evict them
    if (blocks_[b].ref++ == 0) free_.erase(blocks_[b].pos);
    s.table.push_back(b);
    ++stats_.hits;
  }
  for (int i = static_cast<int>(hit.size()); i < n; ++i) {
    const int b = take_fresh();
    Block& blk = blocks_[b];
    blk.ref = 1;
    blk.tokens.assign(prompt.begin() + i * bs_, prompt.begin() + std::min(size, (i + 1) * bs_));
    blk.parent = i == 0 ? -1 : s.table[i - 1];
    blk.parent_gen = i == 0 ? 0 : blocks_[s.table[i - 1]].gen;
    if (i < full && !cache_.count(hashes[i])) {  // publish full blocks; a taken hash keeps its owner
      blk.hash = hashes[i];
      blk.cached = true;
      cache_[hashes[i]] = b;
    }
    s.table.push_back(b);
    ++stats_.misses;
  }
  return s;
}

bool BlockAllocator::release(Seq& s) {
  if (s.table.empty()) return false;
  for (int b : s.table) {
    if (b < 0 || b >= num_blocks() || blocks_[b].ref <= 0) return false;
  }
  for (auto it = s.table.rbegin(); it != s.table.rend(); ++it) {  // deepest block first
    Block& blk = blocks_[*it];
    if (--blk.ref == 0) blk.pos = free_.insert(free_.end(), *it);
  }
  s.table.clear();
  return true;
}

bool BlockAllocator::append(Seq& s, int token) {
  if (s.tokens.size() % static_cast<std::size_t>(bs_) == 0) {  // the last block is full (or there is none)
    if (free_.empty()) return false;
    const int b = take_fresh();
    Block& blk = blocks_[b];
    blk.ref = 1;
    blk.tokens.assign(1, token);
    blk.parent = s.table.empty() ? -1 : s.table.back();
    blk.parent_gen = s.table.empty() ? 0 : blocks_[s.table.back()].gen;
    s.table.push_back(b);
  } else {
    blocks_[s.table.back()].tokens.push_back(token);  // the partial last block is private
  }
  s.tokens.push_back(token);
  return true;
}

bool BlockAllocator::holds(const Seq& s) const {
  for (std::size_t i = 0; i < s.table.size(); ++i) {
    const auto& t = blocks_.at(s.table[i]).tokens;
    for (std::size_t j = 0; j < t.size(); ++j) {
      if (i * bs_ + j >= s.tokens.size() || t[j] != s.tokens[i * bs_ + j]) return false;
    }
  }
  return true;
}

}  // namespace ridge::lab
