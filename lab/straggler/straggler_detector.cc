#include "straggler_detector.h"

#include <algorithm>
#include <cmath>

#include "normal_quantile.h"

namespace ridge::lab {

namespace {

double median_of(std::vector<double> v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

// 1 / Phi^-1(0.75): scales MAD to a standard deviation under normality.
constexpr double kMadToSigma = 1.482602218505602;

}  // namespace

std::optional<StragglerReport> detect_stragglers(std::span<const std::int64_t> arrivals_us,
                                                 const StragglerPolicy& policy) {
  if (arrivals_us.empty()) return std::nullopt;
  if (!(policy.false_positive_rate > 0 && policy.false_positive_rate < 0.5) || policy.min_sigma_us < 0) {
    return std::nullopt;
  }
  StragglerReport r;
  std::vector<double> x(arrivals_us.begin(), arrivals_us.end());
  r.median_us = median_of(x);
  std::vector<double> deviation;
  deviation.reserve(x.size());
  for (double v : x) deviation.push_back(std::abs(v - r.median_us));
  r.mad_us = median_of(deviation);
  r.sigma_us = std::max(kMadToSigma * r.mad_us, static_cast<double>(policy.min_sigma_us));
  r.k = *normal_quantile(1 - policy.false_positive_rate);
  r.threshold_us = static_cast<std::int64_t>(std::floor(r.median_us + r.k * r.sigma_us));
  for (std::size_t i = 0; i < arrivals_us.size(); ++i) {
    if (arrivals_us[i] > r.threshold_us) r.late_ranks.push_back(static_cast<int>(i));  // == threshold: on time
  }
  return r;
}

StragglerDetector::StragglerDetector(int ranks, StragglerPolicy policy)
    : policy_(policy), arrivals_(static_cast<std::size_t>(ranks)) {}

RecordResult StragglerDetector::record(int rank, std::int64_t arrival_us) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= arrivals_.size()) return RecordResult::kUnknownRank;
  auto& slot = arrivals_[static_cast<std::size_t>(rank)];
  if (slot.has_value()) return RecordResult::kDuplicate;
  slot = arrival_us;
  return RecordResult::kOk;
}

std::optional<StragglerReport> StragglerDetector::evaluate() const {
  std::vector<std::int64_t> arrived;
  std::vector<int> rank_of;
  std::vector<int> missing;
  for (std::size_t i = 0; i < arrivals_.size(); ++i) {
    if (arrivals_[i]) {
      arrived.push_back(*arrivals_[i]);
      rank_of.push_back(static_cast<int>(i));
    } else {
      missing.push_back(static_cast<int>(i));
    }
  }
  auto report = detect_stragglers(arrived, policy_);
  if (!report) return std::nullopt;
  for (int& late : report->late_ranks) late = rank_of[static_cast<std::size_t>(late)];  // index -> rank
  report->missing_ranks = std::move(missing);
  return report;
}

void StragglerDetector::next_step() { std::fill(arrivals_.begin(), arrivals_.end(), std::nullopt); }

}  // namespace ridge::lab
