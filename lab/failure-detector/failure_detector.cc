#include "failure_detector.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ridge::lab {

FailureDetector FailureDetector::fixed(double timeout_ms) {
  if (!(timeout_ms > 0)) throw std::invalid_argument("timeout_ms " + std::to_string(timeout_ms) + ": must be > 0");
  FailureDetector d;
  d.timeout_ = timeout_ms;
  return d;
}

FailureDetector FailureDetector::phi(double threshold, double pause_ms, std::size_t window, double min_sd_ms,
                                     double initial_interval_ms) {
  if (!(threshold > 0 && threshold <= 300))
    throw std::invalid_argument("threshold " + std::to_string(threshold) + ": must be in (0, 300]");
  if (!(pause_ms >= 0)) throw std::invalid_argument("pause_ms " + std::to_string(pause_ms) + ": must be >= 0");
  if (window < 2) throw std::invalid_argument("window " + std::to_string(window) + ": must be >= 2");
  if (!(min_sd_ms > 0)) throw std::invalid_argument("min_sd_ms " + std::to_string(min_sd_ms) + ": must be > 0");
  if (!(initial_interval_ms > 0))
    throw std::invalid_argument("initial_interval_ms " + std::to_string(initial_interval_ms) + ": must be > 0");
  FailureDetector d;
  d.threshold_ = threshold;
  d.z_ = z_for(threshold);
  d.pause_ = pause_ms;
  d.window_ = window;
  d.min_sd_ = min_sd_ms;
  d.initial_ = initial_interval_ms;
  return d;
}

double FailureDetector::z_for(double threshold) {
  const double target = std::pow(10.0, -threshold);
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::numbers::sqrt2) > target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

bool FailureDetector::heartbeat(double now_ms) {
  if (started_ && now_ms < last_) return false;  // the clock went back: not monotonic
  if (started_) {
    const double x = now_ms - last_;  // a completed interval
    iv_.push_back(x);
    sum_ += x;
    sum2_ += x * x;
    if (iv_.size() > window_) {
      sum_ -= iv_.front();
      sum2_ -= iv_.front() * iv_.front();
      iv_.pop_front();
    }
  }
  started_ = true;
  last_ = now_ms;
  return true;
}

double FailureDetector::mean() const {
  return iv_.empty() ? initial_ : sum_ / static_cast<double>(iv_.size());
}

double FailureDetector::sd() const {
  const double n = static_cast<double>(iv_.size());
  const double m = mean();
  const double fitted = n > 1 ? std::sqrt(std::max(0.0, sum2_ / n - m * m)) : 0.0;
  return std::max(min_sd_, fitted);  // regular beats fit sd ~ 0: any lateness would be "impossible"
}

double FailureDetector::deadline() const {
  if (timeout_ > 0) return timeout_;
  return mean() + pause_ + z_ * sd();
}

bool FailureDetector::suspect(double now_ms) const { return started_ && now_ms - last_ > deadline(); }

double FailureDetector::phi_at(double elapsed_ms) const {
  const double tail = 0.5 * std::erfc((elapsed_ms - pause_ - mean()) / (sd() * std::numbers::sqrt2));
  return tail <= 0 ? INFINITY : -std::log10(tail);
}

DetectorResult simulate(FailureDetector d, std::uint64_t seed, int intervals) {
  std::mt19937_64 rng(seed);
  auto u = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  auto normal = [&] { return std::sqrt(-2 * std::log(u())) * std::cos(2 * std::numbers::pi * u()); };
  std::vector<double> arrivals;
  arrivals.reserve(static_cast<std::size_t>(intervals));
  double t = 0;
  for (int i = 0; i < intervals; ++i) {
    const bool congested = i >= intervals / 2;
    double x = congested ? 1100 + 150 * normal() : 1000 + 20 * normal();
    if (u() < 0.001) x += 1000 + 2000 * u();
    t += std::max(1.0, x);
    arrivals.push_back(t);
  }
  long false_suspicions = 0;
  double calm = 0, busy = 0;
  d.heartbeat(0);
  for (int i = 0; i < intervals; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double deadline = d.deadline();
    if (arrivals[k] - (i > 0 ? arrivals[k - 1] : 0) > deadline) ++false_suspicions;
    (i < intervals / 2 ? calm : busy) += deadline;
    d.heartbeat(arrivals[k]);
  }
  const double days = arrivals.back() / 86'400'000.0;
  const double half = intervals / 2;
  return {static_cast<double>(false_suspicions) / days, calm / half / 1000,
          busy / (intervals - intervals / 2) / 1000};
}

}  // namespace ridge::lab
