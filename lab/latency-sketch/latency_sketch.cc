#include "latency_sketch.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ridge::lab {

LatencySketch::LatencySketch(double alpha) : alpha_(alpha) {
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw std::invalid_argument("alpha = " + std::to_string(alpha) + ": must be in (0, 1)");
  }
  gamma_ = (1 + alpha) / (1 - alpha);
  ln_gamma_ = std::log(gamma_);
}

int LatencySketch::bucket_of(double x) const { return static_cast<int>(std::ceil(std::log(x) / ln_gamma_)); }

void LatencySketch::add_to_bucket(int i, std::uint64_t c) {
  if (counts_.empty()) {
    offset_ = i;
    counts_.assign(1, 0);
  } else if (i < offset_) {
    counts_.insert(counts_.begin(), static_cast<std::size_t>(offset_ - i), 0);
    offset_ = i;
  } else if (i - offset_ >= static_cast<int>(counts_.size())) {
    counts_.resize(static_cast<std::size_t>(i - offset_) + 1, 0);
  }
  counts_[static_cast<std::size_t>(i - offset_)] += c;
}

void LatencySketch::add(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) {  // not a latency: counted apart
    ++invalid_;
    return;
  }
  add_to_bucket(bucket_of(x), 1);
  ++n_;
}

void LatencySketch::merge(const LatencySketch& o) {
  if (o.alpha_ != alpha_) {
    throw std::invalid_argument("merge: alpha " + std::to_string(o.alpha_) + " into a sketch of alpha " +
                                std::to_string(alpha_) + ": buckets differ; use one alpha fleet-wide");
  }
  for (std::size_t j = 0; j < o.counts_.size(); ++j) {
    if (o.counts_[j] != 0) add_to_bucket(o.offset_ + static_cast<int>(j), o.counts_[j]);
  }
  n_ += o.n_;
  invalid_ += o.invalid_;
}

double LatencySketch::quantile(double q) const {
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("q = " + std::to_string(q) + ": must be in [0, 1]");
  if (n_ == 0) return std::numeric_limits<double>::quiet_NaN();
  std::uint64_t rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n_)));
  if (rank < 1) rank = 1;  // nearest rank counts from 1
  std::uint64_t seen = 0;
  for (std::size_t j = 0; j < counts_.size(); ++j) {
    seen += counts_[j];
    if (seen >= rank) return 2 * std::pow(gamma_, offset_ + static_cast<int>(j)) / (gamma_ + 1);
  }
  return 2 * std::pow(gamma_, offset_ + static_cast<int>(counts_.size()) - 1) / (gamma_ + 1);  // rank == n
}

std::size_t LatencySketch::occupied() const {
  std::size_t k = 0;
  for (std::uint64_t c : counts_) k += c != 0;
  return k;
}

}  // namespace ridge::lab
