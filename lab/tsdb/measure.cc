// TSDB figures: 1,000 sealed segments of 1,000 samples (one sample a second, 11.6 days),
// how many segments a window query skips thanks to the sparse index, what the query
// costs against decoding everything, and what TTL compaction drops and rewrites.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/report.h"
#include "segment_store.h"

namespace {

using ridge::lab::SegmentStore;

constexpr std::int64_t kSegments = 1000, kPerSegment = 1000, kStepMs = 1000;
constexpr std::int64_t kEndMs = kSegments * kPerSegment * kStepMs;  // one past the last sample

template <class F>
double microseconds(int repeats, F f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / repeats;
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("tsdb", "sparse-index pruning and whole-segment TTL compaction");
  SegmentStore store(kPerSegment);
  for (std::int64_t i = 0; i < kSegments * kPerSegment; ++i) store.append({i * kStepMs, static_cast<double>(i % 977)});
  report.note("1,000 segments x 1,000 samples, one sample per second; windows end at the newest sample");

  struct Window {
    const char* key;
    const char* label;
    std::int64_t from, to;
  };
  const Window windows[] = {
      {"last_5_minutes", "last 5 minutes", kEndMs - 300'000, kEndMs},
      {"last_hour", "last hour", kEndMs - 3'600'000, kEndMs},
      {"last_day", "last day", kEndMs - 86'400'000, kEndMs},
      {"everything", "everything", 0, kEndMs},
  };
  for (const auto& w : windows) {
    report.section(std::string("window: ") + w.label);
    const auto r = store.query(w.from, w.to);
    const std::string key = std::string("windows/") + w.key;
    report.add(key + "/segments_scanned", static_cast<std::int64_t>(r.stats.segments_scanned), "of 1,000", "segments scanned");
    report.add(key + "/segments_skipped", static_cast<std::int64_t>(r.stats.segments_skipped), "of 1,000", "segments skipped");
    report.add(key + "/samples", static_cast<std::int64_t>(r.samples.size()), "", "samples returned");
    report.add(key + "/query_us", microseconds(20, [&] { (void)store.query(w.from, w.to); }), "us", "query time", 1);
  }

  report.section("without the index: decode every segment and filter (last hour)");
  report.add("full_scan_last_hour_us", microseconds(3, [&] {
               std::vector<ridge::lab::Sample> out;
               for (const auto& s : store.segments()) s->scan(kEndMs - 3'600'000, kEndMs, out);
             }),
             "us", "query time", 1);

  report.section("TTL compaction: now = newest sample, TTL 7 days");
  {
    std::vector<std::uint8_t> survivor_bytes_before;
    const std::int64_t ttl = 7 * 86'400'000LL;
    const std::int64_t cutoff = kEndMs - ttl;
    std::int64_t bytes_total = 0, bytes_dropped = 0;
    for (const auto& s : store.segments()) {
      bytes_total += static_cast<std::int64_t>(s->bytes().size());
      if (s->max_time() < cutoff) {
        bytes_dropped += static_cast<std::int64_t>(s->bytes().size());
      } else {
        survivor_bytes_before.insert(survivor_bytes_before.end(), s->bytes().begin(), s->bytes().end());
      }
    }
    const auto dropped = store.compact(kEndMs, ttl);
    std::vector<std::uint8_t> survivor_bytes_after;
    for (const auto& s : store.segments()) survivor_bytes_after.insert(survivor_bytes_after.end(), s->bytes().begin(), s->bytes().end());
    std::int64_t changed = 0;
    for (std::size_t i = 0; i < survivor_bytes_before.size() && i < survivor_bytes_after.size(); ++i) {
      changed += survivor_bytes_before[i] != survivor_bytes_after[i];
    }
    changed += static_cast<std::int64_t>(survivor_bytes_before.size() > survivor_bytes_after.size()
                                             ? survivor_bytes_before.size() - survivor_bytes_after.size()
                                             : survivor_bytes_after.size() - survivor_bytes_before.size());
    report.add("compaction/segments_dropped", static_cast<std::int64_t>(dropped), "of 1,000", "segments dropped");
    report.add("compaction/bytes_dropped", bytes_dropped, "B", "bytes dropped");
    report.add("compaction/bytes_total", bytes_total, "B", "bytes before");
    report.add("compaction/survivor_bytes_changed", changed, "B", "survivor bytes changed (rewritten)");
    report.add("compaction/bytes_per_sample", static_cast<double>(bytes_total) / (kSegments * kPerSegment), "B",
               "encoded bytes per sample (varint delta + raw double)", 2);
  }
  report.note("segment counts and bytes are exact; query times depend on the machine and build type");
  return report.print(argc, argv);
}
