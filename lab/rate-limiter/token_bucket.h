// TokenBucket: a thread-safe token-bucket rate limiter with lazy refill.
//
// Contract:
// - The bucket holds at most `capacity` tokens (the largest burst) and gains
//   `tokens_per_second` tokens per second (the sustained rate). The two are separate
//   parameters on purpose: merging them is the most common bug.
// - It starts full. Refill is lazy: each call reads the injected clock and adds
//   elapsed × rate, capped at capacity. There is no timer and no thread.
// - A request of cost c is allowed if the bucket holds at least c tokens, which it takes.
//   Refill, check and take happen under one lock, so concurrent callers never take more
//   than capacity + rate × elapsed tokens in total.
// - Tokens are kept in integer units of 1e-9 token, so a slow rate polled often still
//   accrues its fractions exactly (no floating-point drift, nothing rounded away).
// - A denial carries retry_after: the time until the deficit refills, rounded UP to the
//   nanosecond, so a caller that waits exactly retry_after (with no other caller in
//   between) is admitted. A cost above capacity can never pass: kNeverFits, no wait.
// - A clock that goes backwards adds nothing and does not move the bucket's time back.
//
// Preconditions: 1 <= capacity <= 1e9, 1 <= tokens_per_second <= 1e9; `clock` outlives
// the bucket and is monotonic (SteadyClock in production).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>

#include "clock.h"

namespace ridge::lab {

enum class Verdict {
  kAllowed,
  kDenied,       // wait retry_after and try again
  kNeverFits,    // cost > capacity: waiting cannot help (HTTP: not a 429)
  kInvalidCost,  // cost < 1
};

struct Decision {
  Verdict verdict;
  std::chrono::nanoseconds retry_after;  // > 0 only when verdict == kDenied
};

class TokenBucket {
 public:
  static constexpr std::int64_t kUnitsPerToken = 1'000'000'000;

  TokenBucket(std::int64_t capacity, std::int64_t tokens_per_second, const Clock& clock);

  TokenBucket(const TokenBucket&) = delete;
  TokenBucket& operator=(const TokenBucket&) = delete;

  // Thread-safe. Takes `cost` tokens if available.
  Decision try_acquire(std::int64_t cost = 1);

  // Tokens held now, in units of 1e-9 token (refill applied, nothing taken). Thread-safe.
  std::int64_t available_units() const;

  std::int64_t capacity() const { return capacity_units_ / kUnitsPerToken; }
  std::int64_t tokens_per_second() const { return rate_; }

 private:
  // Units held at time `t`, given the state last set at last_. Requires mu_ held.
  std::int64_t units_at(std::chrono::nanoseconds t) const;

  const std::int64_t capacity_units_;
  const std::int64_t rate_;  // tokens per second == units per nanosecond
  const Clock& clock_;

  mutable std::mutex mu_;
  std::int64_t units_;               // guarded by mu_
  std::chrono::nanoseconds last_;    // guarded by mu_: the clock reading units_ is valid at
};

}  // namespace ridge::lab
