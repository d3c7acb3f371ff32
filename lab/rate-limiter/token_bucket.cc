#include "token_bucket.h"

namespace ridge::lab {

TokenBucket::TokenBucket(std::int64_t capacity, std::int64_t tokens_per_second, const Clock& clock)
    : capacity_units_(capacity * kUnitsPerToken),
      rate_(tokens_per_second),
      clock_(clock),
      units_(capacity_units_),
      last_(clock.now()) {}

std::int64_t TokenBucket::units_at(std::chrono::nanoseconds t) const {
  if (t <= last_) return units_;  // a clock that did not advance (or went back) adds nothing
  const std::int64_t elapsed_ns = (t - last_).count();
  const std::int64_t room = capacity_units_ - units_;
  // Compare before multiplying: after a long idle, elapsed_ns * rate_ overflows 64 bits.
  // rate_ is in units per nanosecond, so filling `room` takes ceil(room / rate_) ns.
  if (elapsed_ns >= (room + rate_ - 1) / rate_) return capacity_units_;
  return units_ + elapsed_ns * rate_;
}

Decision TokenBucket::try_acquire(std::int64_t cost) {
  if (cost < 1) return {Verdict::kInvalidCost, std::chrono::nanoseconds::zero()};
  if (cost > capacity_units_ / kUnitsPerToken) return {Verdict::kNeverFits, std::chrono::nanoseconds::zero()};
  const std::int64_t need = cost * kUnitsPerToken;

  std::lock_guard<std::mutex> lock(mu_);
  const std::chrono::nanoseconds t = clock_.now();
  units_ = units_at(t);
  if (t > last_) last_ = t;
  if (units_ >= need) {
    units_ -= need;
    return {Verdict::kAllowed, std::chrono::nanoseconds::zero()};
  }
  // ceil(deficit / rate): rounding down would send the client back a moment too early.
  const std::int64_t deficit = need - units_;
  return {Verdict::kDenied, std::chrono::nanoseconds((deficit + rate_ - 1) / rate_)};
}

std::int64_t TokenBucket::available_units() const {
  std::lock_guard<std::mutex> lock(mu_);
  return units_at(clock_.now());
}

}  // namespace ridge::lab
