#include "segment_store.h"

#include <algorithm>

namespace ridge::lab {

SegmentStore::SegmentStore(std::size_t samples_per_segment) : samples_per_segment_(samples_per_segment) {}

AppendStatus SegmentStore::append(Sample s) {
  const bool have_last = !head_.empty() || !segments_.empty();
  const std::int64_t last = !head_.empty() ? head_.back().time_ms : have_last ? segments_.back()->max_time() : 0;
  if (have_last && s.time_ms < last) return AppendStatus::kOutOfOrder;
  head_.push_back(s);
  if (head_.size() >= samples_per_segment_) seal();
  return AppendStatus::kOk;
}

void SegmentStore::seal() {
  if (head_.empty()) return;
  segments_.push_back(std::make_shared<const Segment>(head_));
  head_.clear();
}

QueryResult SegmentStore::query(std::int64_t from, std::int64_t to) const {
  QueryResult r;
  r.stats.segments_total = segments_.size();
  if (from <= to) {
    // Appends are time-ordered, so max_time is non-decreasing along segments_: binary
    // search the first segment that ends at or after `from`, stop at the first that
    // starts after `to`.
    auto it = std::partition_point(segments_.begin(), segments_.end(),
                                   [&](const std::shared_ptr<const Segment>& s) { return s->max_time() < from; });
    for (; it != segments_.end() && (*it)->min_time() <= to; ++it) {
      (*it)->scan(from, to, r.samples);
      ++r.stats.segments_scanned;
    }
    if (!head_.empty() && head_.front().time_ms <= to && head_.back().time_ms >= from) {
      r.stats.head_scanned = true;
      for (const Sample& s : head_) {
        if (s.time_ms >= from && s.time_ms <= to) r.samples.push_back(s);
      }
    }
  }
  r.stats.segments_skipped = r.stats.segments_total - r.stats.segments_scanned;
  return r;
}

std::size_t SegmentStore::compact(std::int64_t now_ms, std::int64_t ttl_ms) {
  const std::int64_t cutoff = now_ms - ttl_ms;
  // Expired segments are a prefix (max_time non-decreasing): drop it, touch nothing else.
  const auto first_kept = std::partition_point(
      segments_.begin(), segments_.end(), [&](const std::shared_ptr<const Segment>& s) { return s->max_time() < cutoff; });
  const auto dropped = static_cast<std::size_t>(first_kept - segments_.begin());
  segments_.erase(segments_.begin(), first_kept);
  return dropped;
}

}  // namespace ridge::lab
