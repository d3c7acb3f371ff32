// Retry with exponential backoff, full jitter and a deadline.
//
// Contract:
// - The sleep before retry n (n = 0 for the first retry) is uniform in
//   [0, bound(n)] with bound(n) = min(cap, base × 2^n): "full jitter" (Brooker, AWS
//   Architecture Blog, "Exponential Backoff And Jitter", 2015). The bound doubles each
//   retry until it reaches the cap; the computation saturates instead of overflowing.
// - The deadline is a budget from the first attempt. It is never exceeded by the retry
//   loop: no attempt starts at or after the deadline, and a sleep that would end at or
//   after it is not taken (the call returns kDeadlineExceeded at once, since no attempt
//   could follow). Each attempt is told the time remaining and must respect it; an attempt
//   that overruns its budget is the attempt's fault, and no further attempt starts.
// - An attempt answers kSuccess, kRetryable or kPermanent; a permanent failure is not
//   retried. At most max_attempts attempts are made.
// - Time and randomness are injected (RetryClock, RetryRng) so tests run in virtual time
//   with scripted draws. retry_with_backoff is as thread-safe as the clock and RNG given.
//
// Preconditions: base > 0, cap >= base, max_attempts >= 1, deadline > 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace ridge::lab {

using std::chrono::nanoseconds;

class RetryClock {
 public:
  virtual ~RetryClock() = default;
  virtual nanoseconds now() const = 0;  // monotonic
  virtual void sleep_for(nanoseconds d) = 0;
};

class RetryRng {
 public:
  virtual ~RetryRng() = default;
  // A uniformly distributed integer in [0, max_inclusive].
  virtual std::uint64_t uniform(std::uint64_t max_inclusive) = 0;
};

// Production clock: steady_clock and this_thread::sleep_for.
class SteadyRetryClock final : public RetryClock {
 public:
  nanoseconds now() const override { return std::chrono::steady_clock::now().time_since_epoch(); }
  void sleep_for(nanoseconds d) override { std::this_thread::sleep_for(d); }
};

// Production RNG: mt19937_64 with unbiased rejection sampling (portable: the same draws
// for a seed on every standard library, unlike std::uniform_int_distribution).
class Mt64RetryRng final : public RetryRng {
 public:
  explicit Mt64RetryRng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t uniform(std::uint64_t max_inclusive) override {
    if (max_inclusive == UINT64_MAX) return engine_();
    const std::uint64_t range = max_inclusive + 1;
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;  // reject the biased tail
    std::uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return x % range;
  }

 private:
  std::mt19937_64 engine_;
};

struct BackoffPolicy {
  nanoseconds base = std::chrono::milliseconds(100);
  nanoseconds cap = std::chrono::seconds(10);
  int max_attempts = 10;
  nanoseconds deadline = std::chrono::seconds(30);
};

enum class AttemptOutcome { kSuccess, kRetryable, kPermanent };
using Attempt = std::function<AttemptOutcome(nanoseconds remaining)>;

enum class RetryStatus { kSucceeded, kPermanentFailure, kAttemptsExhausted, kDeadlineExceeded };

struct RetryResult {
  RetryStatus status;
  int attempts = 0;
  std::vector<nanoseconds> sleeps;  // each sleep taken, in order
};

// min(cap, base × 2^retry), saturating: never overflows for any retry >= 0.
nanoseconds backoff_bound(const BackoffPolicy& policy, int retry);

RetryResult retry_with_backoff(const Attempt& attempt, const BackoffPolicy& policy, RetryClock& clock, RetryRng& rng);

}  // namespace ridge::lab
