// A fixture for `ridge lab test intervals --impl`: compiles, but leaves total_us and
// any_idle undefined, and defines all_idle with the wrong parameter type (by value),
// so the link fails naming what the tests call.
#include <vector>

#include "intervals.h"

namespace ridge::lab {

MergeResult merge_intervals(std::span<const Interval>) { return {}; }

std::vector<Interval> idle_at_least(const std::vector<std::vector<Interval>>&, std::size_t) { return {}; }

std::vector<Interval> all_idle(std::vector<std::vector<Interval>>) { return {}; }

}  // namespace ridge::lab
