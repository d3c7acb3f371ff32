#include "retry.h"

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

using namespace std::chrono_literals;

class FakeClock final : public RetryClock {
 public:
  nanoseconds now() const override { return t_; }
  void sleep_for(nanoseconds d) override { t_ += d; }
  void advance(nanoseconds d) { t_ += d; }

 private:
  nanoseconds t_{1'000'000'000};  // not zero: the deadline is relative to the start
};

// Returns the largest allowed draw and records every bound it was asked for.
class MaxRng final : public RetryRng {
 public:
  std::uint64_t uniform(std::uint64_t max_inclusive) override {
    bounds.push_back(max_inclusive);
    return max_inclusive;
  }
  std::vector<std::uint64_t> bounds;
};

class ZeroRng final : public RetryRng {
 public:
  std::uint64_t uniform(std::uint64_t) override { return 0; }
};

Attempt always(AttemptOutcome o) {
  return [o](nanoseconds) { return o; };
}

TEST(Backoff, TheBoundDoublesUntilTheCap) {
  const BackoffPolicy p{.base = 100ms, .cap = 1s, .max_attempts = 10, .deadline = 1h};
  const std::vector<nanoseconds> expected{100ms, 200ms, 400ms, 800ms, 1s, 1s, 1s};
  for (int n = 0; n < 7; ++n) EXPECT_EQ(backoff_bound(p, n), expected[static_cast<std::size_t>(n)]) << "retry " << n;
}

TEST(Backoff, TheBoundSaturatesInsteadOfOverflowing) {
  // 1 s × 2^70 overflows int64 nanoseconds; 1 << 70 is undefined behaviour.
  const BackoffPolicy p{.base = 1s, .cap = std::chrono::hours(24 * 365), .max_attempts = 200, .deadline = 1h};
  for (int n : {30, 33, 34, 63, 64, 70, 1000}) EXPECT_EQ(backoff_bound(p, n), p.cap) << "retry " << n;
}

TEST(Retry, SleepsAreDrawnUpToADoublingBound) {
  FakeClock clock;
  MaxRng rng;
  const BackoffPolicy p{.base = 10ms, .cap = 100ms, .max_attempts = 7, .deadline = 1h};
  const auto r = retry_with_backoff(always(AttemptOutcome::kRetryable), p, clock, rng);
  EXPECT_EQ(r.status, RetryStatus::kAttemptsExhausted);
  EXPECT_EQ(r.attempts, 7);
  const std::vector<std::uint64_t> ns{10'000'000, 20'000'000, 40'000'000, 80'000'000, 100'000'000, 100'000'000};
  EXPECT_EQ(rng.bounds, ns) << "one draw per retry, bound doubling to the cap";
  ASSERT_EQ(r.sleeps.size(), 6u);
  EXPECT_EQ(r.sleeps[3], 80ms);
}

TEST(Retry, FullJitterMayNotSleepAtAll) {
  FakeClock clock;
  ZeroRng rng;
  const auto start = clock.now();
  const auto r = retry_with_backoff(always(AttemptOutcome::kRetryable), {.max_attempts = 5}, clock, rng);
  EXPECT_EQ(r.attempts, 5);
  EXPECT_EQ(clock.now(), start) << "full jitter draws from [0, bound], zero included";
}

TEST(Retry, SuccessAndPermanentFailureStopRetrying) {
  FakeClock clock;
  MaxRng rng;
  int calls = 0;
  auto third_time_lucky = [&](nanoseconds) { return ++calls == 3 ? AttemptOutcome::kSuccess : AttemptOutcome::kRetryable; };
  auto r = retry_with_backoff(third_time_lucky, {}, clock, rng);
  EXPECT_EQ(r.status, RetryStatus::kSucceeded);
  EXPECT_EQ(r.attempts, 3);
  r = retry_with_backoff(always(AttemptOutcome::kPermanent), {}, clock, rng);
  EXPECT_EQ(r.status, RetryStatus::kPermanentFailure);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(r.sleeps.empty());
}

TEST(Retry, ASleepThatWouldReachTheDeadlineIsNotTaken) {
  // Deadline 1 s; sleeps at the maximum: 100, 200, 400 ms (t = 700 ms), then 800 ms
  // would end at 1.5 s. The loop returns at 700 ms instead of sleeping past the deadline.
  FakeClock clock;
  MaxRng rng;
  const auto start = clock.now();
  const auto r = retry_with_backoff(always(AttemptOutcome::kRetryable),
                                    {.base = 100ms, .cap = 10s, .max_attempts = 100, .deadline = 1s}, clock, rng);
  EXPECT_EQ(r.status, RetryStatus::kDeadlineExceeded);
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(clock.now() - start, 700ms);
}

TEST(Retry, TheDeadlineIsNeverExceeded) {
  // 2,000 seeded runs; attempts take a random share of the time they are given. Every
  // attempt must start before the deadline and be told the true remaining time, and the
  // call must return by the deadline.
  std::mt19937_64 seeds(20261130);
  for (int run = 0; run < 2000; ++run) {
    FakeClock clock;
    Mt64RetryRng rng(seeds());
    std::mt19937_64 work(seeds());
    const BackoffPolicy p{.base = 50ms, .cap = 2s, .max_attempts = 1000, .deadline = 5s};
    const nanoseconds deadline_at = clock.now() + p.deadline;
    auto attempt = [&](nanoseconds remaining) {
      EXPECT_LT(clock.now(), deadline_at) << "an attempt started at or after the deadline";
      EXPECT_EQ(remaining, deadline_at - clock.now()) << "the attempt was told the wrong budget";
      clock.advance(nanoseconds(static_cast<std::int64_t>(work() % static_cast<std::uint64_t>(remaining.count() / 4 + 1))));
      return AttemptOutcome::kRetryable;
    };
    const auto r = retry_with_backoff(attempt, p, clock, rng);
    ASSERT_EQ(r.status, RetryStatus::kDeadlineExceeded);
    ASSERT_LE(clock.now(), deadline_at) << "run " << run;
    for (std::size_t i = 0; i < r.sleeps.size(); ++i) {
      ASSERT_LE(r.sleeps[i], backoff_bound(p, static_cast<int>(i))) << "a sleep above its bound";
    }
  }
}

TEST(Mt64RetryRng, DrawsStayInRangeAndCoverIt) {
  Mt64RetryRng rng(1);
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 5000; ++i) {
    const auto x = rng.uniform(4);
    ASSERT_LE(x, 4u);
    ++seen[x];
  }
  for (int c : seen) EXPECT_GT(c, 800);  // about 1,000 each
  EXPECT_EQ(rng.uniform(0), 0u);
}

}  // namespace
}  // namespace ridge::lab
