#include "intervals.h"

#include <algorithm>
#include <utility>

namespace ridge::lab {

MergeResult merge_intervals(std::span<const Interval> intervals) {
  MergeResult r;
  std::vector<Interval> sorted;
  sorted.reserve(intervals.size());
  for (const Interval& i : intervals) {
    if (i.start_us >= i.end_us) {
      ++r.dropped;
    } else {
      sorted.push_back(i);
    }
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Interval& a, const Interval& b) { return a.start_us < b.start_us; });
  for (const Interval& i : sorted) {
    if (!r.intervals.empty() && i.start_us <= r.intervals.back().end_us) {  // overlaps or touches
      r.intervals.back().end_us = std::max(r.intervals.back().end_us, i.end_us);
    } else {
      r.intervals.push_back(i);
    }
  }
  return r;
}

std::vector<Interval> idle_at_least(const std::vector<std::vector<Interval>>& per_rank, std::size_t k) {
  std::vector<Interval> out;
  if (k == 0 || k > per_rank.size()) return out;
  std::vector<std::pair<std::int64_t, int>> events;  // (time, +1 start / -1 end)
  for (const auto& rank : per_rank) {
    for (const Interval& i : merge_intervals(rank).intervals) {  // merge first, or a rank counts twice
      events.emplace_back(i.start_us, +1);
      events.emplace_back(i.end_us, -1);
    }
  }
  std::sort(events.begin(), events.end());  // at equal times -1 sorts before +1: ends first
  std::size_t idle = 0;
  bool open = false;
  std::int64_t opened_at = 0;
  for (const auto& [t, delta] : events) {
    idle = delta > 0 ? idle + 1 : idle - 1;
    if (idle >= k && !open) {
      open = true;
      opened_at = t;
      // A stretch that closed at this same instant (an end sorted before a start) goes on.
      if (!out.empty() && out.back().end_us == t) {
        opened_at = out.back().start_us;
        out.pop_back();
      }
    } else if (idle < k && open) {
      open = false;
      if (t > opened_at) out.push_back({opened_at, t});
    }
  }
  return out;
}

std::vector<Interval> all_idle(const std::vector<std::vector<Interval>>& per_rank) {
  return idle_at_least(per_rank, per_rank.size());
}

std::vector<Interval> any_idle(const std::vector<std::vector<Interval>>& per_rank) { return idle_at_least(per_rank, 1); }

std::int64_t total_us(std::span<const Interval> intervals) {
  std::int64_t sum = 0;
  for (const Interval& i : intervals) sum += i.end_us - i.start_us;
  return sum;
}

}  // namespace ridge::lab
