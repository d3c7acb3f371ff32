// Ring all-reduce over n in-memory ranks: reduce-scatter then all-gather, summing every
// rank's buffer in place and counting the bytes each rank sends.
//
// Contract:
// - data[r] is rank r's buffer of S elements (every buffer the same length, n >= 1); on
//   return every buffer holds the element-wise sum of all of them.
// - Chunks: n contiguous pieces; chunk c is [chunk_begin(S, n, c), chunk_begin(S, n, c + 1)).
//   The first S % n chunks hold one extra element; when S < n the last n - S are empty.
// - Reduce-scatter, steps s = 0 .. n-2: rank r sends chunk (r - s) mod n to rank (r + 1) mod n,
//   which adds it. Afterwards rank r holds the full sum of chunk (r + 1) mod n.
// - All-gather, steps s = 0 .. n-2: rank r sends chunk (r + 1 - s) mod n; the receiver
//   overwrites. Total 2 (n - 1) steps; n = 1 is zero steps and sends nothing.
// - bytes_sent[r] = elements rank r sent × elem_bytes. With n dividing S every rank sends
//   exactly 2 (n - 1) / n × S × elem_bytes; otherwise ranks differ by at most one chunk's extra
//   element per step and the mean over ranks is exactly that figure.
// - Sums wrap as unsigned 64-bit arithmetic would (no UB on overflow), so the threaded and the
//   single-threaded versions agree bit for bit whatever the inputs.
// - ring_allreduce_threaded: one thread per rank and a barrier after each step; within a step
//   no two ranks touch the same chunk of the same buffer, so it needs no locks and gives the
//   same buffers and counts as ring_allreduce.
// - Throws std::invalid_argument on no ranks or buffers of different lengths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ridge::lab {

struct RingStats {
  std::vector<std::uint64_t> bytes_sent;  // per rank
  int steps = 0;                          // 2 (n - 1)
};

using RankBuffers = std::vector<std::vector<std::int64_t>>;

// Start of chunk c (0 <= c <= n) of an S-element buffer cut into n chunks.
std::size_t chunk_begin(std::size_t S, std::size_t n, std::size_t c);

RingStats ring_allreduce(RankBuffers& data, std::size_t elem_bytes);
RingStats ring_allreduce_threaded(RankBuffers& data, std::size_t elem_bytes);

// 2 (n - 1) / n × S × elem_bytes: what each rank sends when n divides S (the mean otherwise).
double ring_bytes_per_rank(std::size_t n, std::size_t S, std::size_t elem_bytes);

}  // namespace ridge::lab
