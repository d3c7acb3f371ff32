// LatencySketch: quantiles of a latency stream with a bounded RELATIVE error, mergeable across
// hosts by adding counts (the construction of DDSketch), on a dense array store.
//
// Contract:
// - alpha in (0, 1) is the relative-error bound; gamma = (1 + alpha) / (1 - alpha).
// - add(x) for a finite x > 0 counts x in bucket i = ceil(ln(x) / ln(gamma)); bucket i covers
//   (gamma^(i-1), gamma^i]. x <= 0, NaN and infinities are not latencies (a clock step, a bug):
//   they are counted apart in invalid() and never reach a quantile.
// - quantile(q), q in [0, 1]: the bucket holding the nearest-rank sample, rank = ceil(q × n)
//   counted from 1 (rank 1 for q = 0), answered as 2 gamma^i / (gamma + 1), which is within a
//   factor (1 ± alpha) of every value in that bucket. NaN when no valid value was added.
// - merge(other): adds counts bucket for bucket; merging sketches equals sketching the union.
//   Sketches with different alpha cover different ranges per bucket: merge throws
//   std::invalid_argument and changes nothing.
// - Store: one counter per bucket index from the smallest occupied to the largest (an array
//   with an offset), so memory is log(max / min) / log(gamma) counters: about 230 per decade
//   at alpha = 0.01. add is O(1) amortized; quantile and merge are O(buckets).
// - Not thread-safe: one sketch per thread or host, merged.
#pragma once

#include <cstdint>
#include <vector>

namespace ridge::lab {

class LatencySketch {
 public:
  // Throws std::invalid_argument unless 0 < alpha < 1.
  explicit LatencySketch(double alpha);

  void add(double x);
  void merge(const LatencySketch& other);
  // Throws std::invalid_argument unless 0 <= q <= 1.
  double quantile(double q) const;

  double alpha() const { return alpha_; }
  std::uint64_t count() const { return n_; }          // valid values added
  std::uint64_t invalid() const { return invalid_; }  // x <= 0 or not finite
  int bucket_of(double x) const;                      // the index add(x) uses; x finite and > 0
  int min_index() const { return offset_; }           // meaningful when count() > 0
  // counts()[j] is bucket min_index() + j.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  std::size_t occupied() const;                       // buckets with a nonzero count

 private:
  void add_to_bucket(int i, std::uint64_t c);

  double alpha_;
  double gamma_;
  double ln_gamma_;
  int offset_ = 0;
  std::vector<std::uint64_t> counts_;
  std::uint64_t n_ = 0;
  std::uint64_t invalid_ = 0;
};

}  // namespace ridge::lab
