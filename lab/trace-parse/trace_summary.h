// Summarize a Chrome trace (the JSON the PyTorch profiler and Kineto export): total time
// per GPU kernel, and the gaps when a GPU ran nothing.
//
// Contract:
// - Input: a JSON object with a "traceEvents" array, or a bare array of events (both are
//   Chrome trace format). Anything else is an error value, with the parser's message.
// - GPU activity is every complete event ("ph": "X") whose "cat" is "kernel",
//   "gpu_memcpy" or "gpu_memset". Its device is its "pid" (Kineto puts the device index
//   there; a string pid is used as is), its stream the "tid". Timestamps and durations
//   are microseconds and may be fractional.
// - Kernel totals cover "kernel" events only, grouped by name: count and total
//   duration, sorted by total descending, then name. Memcpy and memset count as busy
//   time but are not kernels.
// - Idle gaps, per device: the union of its busy intervals across all streams (streams
//   overlap), then every gap between consecutive busy stretches longer than min_gap_us.
//   Time before the device's first event and after its last is not counted: the trace
//   window says nothing about it.
// - A GPU-category "X" event without a string name, a numeric ts, or a numeric dur >= 0
//   is skipped and counted in events_skipped. Other events (CPU ops, metadata, instant
//   events) are ignored, not errors.
// - A pure function: safe to call concurrently.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lab {

struct KernelTotal {
  std::string name;
  std::size_t count = 0;
  double total_us = 0;
};

struct IdleGap {
  double start_us = 0;
  double end_us = 0;
};

struct DeviceSummary {
  std::string device;     // the events' pid, as text
  double span_us = 0;     // first busy start to last busy end
  double busy_us = 0;     // union of busy intervals
  std::vector<IdleGap> gaps;  // in time order
};

struct TraceSummary {
  std::vector<KernelTotal> kernels;
  std::vector<DeviceSummary> devices;  // sorted by device
  std::size_t events_total = 0;        // entries in the events array
  std::size_t events_gpu = 0;          // GPU events used
  std::size_t events_skipped = 0;      // malformed GPU events
};

struct TraceParseResult {
  std::optional<TraceSummary> summary;  // set on success
  std::string error;                    // set on failure
};

TraceParseResult summarize_trace(std::string_view json_text, double min_gap_us = 0);

}  // namespace ridge::lab
