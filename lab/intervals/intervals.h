// GPU idle intervals across the ranks of a training job: merge each rank's records, then
// find the stretches when every rank (or at least k ranks) sat idle at once.
//
// Contract:
// - Intervals are half-open, [start_us, end_us): two that touch do not overlap, so one
//   rank going busy at the instant another goes idle is not shared idle time.
// - merge_intervals() is the union of one rank's records: sorted by start, overlapping
//   OR touching intervals joined. Empty or reversed records (start >= end) are dropped
//   and counted: they usually mean a clock went backwards or two log lines were paired wrong.
// - idle_at_least(per_rank, k) merges each rank first (so one rank's overlapping records
//   never count it twice) and sweeps start (+1) and end (-1) events, ends before starts
//   at equal times, returning the maximal stretches where at least k ranks were idle.
//   all_idle is k = number of ranks; any_idle is k = 1. A rank with no intervals means no
//   all-idle time. O(N log N) for N intervals.
// - Pure functions: safe to call concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ridge::lab {

struct Interval {
  std::int64_t start_us;
  std::int64_t end_us;
  bool operator==(const Interval&) const = default;
};

struct MergeResult {
  std::vector<Interval> intervals;  // sorted, disjoint, non-touching
  std::size_t dropped = 0;          // empty or reversed records removed
};

MergeResult merge_intervals(std::span<const Interval> intervals);

std::vector<Interval> idle_at_least(const std::vector<std::vector<Interval>>& per_rank, std::size_t k);
std::vector<Interval> all_idle(const std::vector<std::vector<Interval>>& per_rank);
std::vector<Interval> any_idle(const std::vector<std::vector<Interval>>& per_rank);

// Sum of lengths. Precondition: disjoint intervals (as the functions above return).
std::int64_t total_us(std::span<const Interval> intervals);

}  // namespace ridge::lab
