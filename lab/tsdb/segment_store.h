// SegmentStore: one time series as sealed segments plus an open head, with a sparse
// index (each sealed segment's min and max time) that lets window queries skip segments.
//
// Contract:
// - append() takes samples in non-decreasing time order (an earlier time is rejected as
//   kOutOfOrder and not stored). The head seals into a Segment when it holds
//   samples_per_segment samples; seal() seals a non-empty head early.
// - query(from, to) returns every stored sample with from <= time <= to (both ends
//   inclusive), in time order. It decodes only the sealed segments whose [min, max]
//   overlaps the window (a segment whose max equals `from` overlaps); the rest are
//   counted as skipped without being read. The head is scanned when it overlaps.
// - compact(now, ttl) drops every sealed segment whose max_time < now - ttl: whole
//   segments only, never rewritten or re-encoded. A segment that straddles the cutoff
//   survives whole, so samples older than the TTL can outlive it until their segment
//   expires entirely: TTL is honoured at segment granularity. Survivors keep their
//   exact bytes (and the same Segment objects). The head is never compacted.
// - Not thread-safe: one writer, and no queries concurrent with append/compact.
//
// Precondition: samples_per_segment >= 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "segment.h"

namespace ridge::lab {

enum class AppendStatus { kOk, kOutOfOrder };

struct QueryStats {
  std::size_t segments_total = 0;    // sealed segments in the store
  std::size_t segments_scanned = 0;  // decoded because the index said they overlap
  std::size_t segments_skipped = 0;  // pruned by the index, never read
  bool head_scanned = false;
};

struct QueryResult {
  std::vector<Sample> samples;
  QueryStats stats;
};

class SegmentStore {
 public:
  explicit SegmentStore(std::size_t samples_per_segment);

  AppendStatus append(Sample s);
  void seal();
  QueryResult query(std::int64_t from, std::int64_t to) const;
  std::size_t compact(std::int64_t now_ms, std::int64_t ttl_ms);  // returns segments dropped

  // Sealed segments, oldest first.
  const std::vector<std::shared_ptr<const Segment>>& segments() const { return segments_; }
  std::size_t head_size() const { return head_.size(); }

 private:
  const std::size_t samples_per_segment_;
  std::vector<std::shared_ptr<const Segment>> segments_;  // time-ordered: min and max non-decreasing
  std::vector<Sample> head_;
};

}  // namespace ridge::lab
