// A fixture for `ridge lab test intervals --impl`: does not compile.
#include "intervals.h"

namespace ridge::lab {

MergeResult merge_intervals(std::span<const Interval> intervals) {
  MergeResult r
  return r;
}

}  // namespace ridge::lab
