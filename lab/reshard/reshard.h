// Resharding plan for a flat-sharded checkpoint saved by N ranks and loaded by M.
//
// Contract:
// - Tensor t has count elements of elem_bytes bytes each. Saved by N ranks, rank r holds
//   elements [lo(t, r), hi(t, r)) of every tensor: an even split where the first count % N
//   ranks hold one extra element. When count < N some ranks hold nothing of that tensor.
// - Rank r's file is its pieces of tensor 0, 1, 2, ... back to back, so tensor t starts at
//   the sum of rank r's earlier pieces: a prefix sum per rank, precomputed at construction
//   (pieces differ by an element between ranks, so it is never t x a shard size).
// - plan(from, to) returns, for each new rank, the reads that fill its shard in order of
//   destination offset: (old rank, byte offset in that rank's file, byte length, byte offset
//   in the new shard). Reads are never empty, never split an element, never overlap, and
//   cover every byte of every new shard exactly once. O(T x (N + M)) for T tensors.
// - coalesce() merges a new rank's consecutive reads that are contiguous in both the old
//   file and the new shard (the identity plan becomes one read per file).
// - apply() runs a plan against in-memory old files and returns the new shards; it checks
//   every read against the file and shard sizes.
// - Bad input throws std::invalid_argument naming the field and the value: ranks < 1,
//   elem_bytes < 1, two layouts with different tensors, files of the wrong count or size.
//
// Immutable after construction: const methods are safe from any thread.
#pragma once

#include <cstdint>
#include <vector>

namespace ridge::lab {

struct Tensor {
  std::uint64_t count, elem_bytes;
};

class Layout {
 public:
  Layout(std::vector<Tensor> tensors, int ranks);

  int ranks() const { return ranks_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  std::uint64_t lo(std::size_t t, int r) const;
  std::uint64_t hi(std::size_t t, int r) const { return lo(t, r + 1); }
  std::uint64_t file_offset(std::size_t t, int r) const;  // byte offset of tensor t in rank r's file
  std::uint64_t shard_bytes(int r) const;

 private:
  std::vector<Tensor> tensors_;
  int ranks_;
  std::vector<std::uint64_t> offsets_;  // (ranks_) x (tensors + 1): prefix sums per rank
};

struct Read {
  int old_rank;
  std::uint64_t file_off, len, dest_off;
  bool operator==(const Read&) const = default;
};

using Plan = std::vector<std::vector<Read>>;  // per new rank

Plan plan(const Layout& from, const Layout& to);
Plan coalesce(const Plan& p);

using Files = std::vector<std::vector<unsigned char>>;  // per rank
Files apply(const Plan& p, const Files& old_files, const Layout& from, const Layout& to);

}  // namespace ridge::lab
