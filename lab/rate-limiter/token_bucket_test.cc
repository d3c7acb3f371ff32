#include "token_bucket.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// The test owns time: no sleeping, the same result on every run.
class FakeClock final : public Clock {
 public:
  nanoseconds now() const override { return nanoseconds(ns_.load()); }
  void set(nanoseconds t) { ns_.store(t.count()); }
  void advance(nanoseconds d) { ns_.fetch_add(d.count()); }

 private:
  std::atomic<std::int64_t> ns_{0};
};

// Each reading moves time forward by `step`: concurrent callers see time pass while they race.
class TickingClock final : public Clock {
 public:
  explicit TickingClock(nanoseconds step) : step_(step.count()) {}
  nanoseconds now() const override { return nanoseconds(ns_.fetch_add(step_) + step_); }
  nanoseconds peek() const { return nanoseconds(ns_.load()); }

 private:
  const std::int64_t step_;
  mutable std::atomic<std::int64_t> ns_{0};
};

int allowed_in_a_row(TokenBucket& bucket, int attempts) {
  int allowed = 0;
  for (int i = 0; i < attempts; ++i) allowed += bucket.try_acquire().verdict == Verdict::kAllowed;
  return allowed;
}

TEST(SteadyClock, IsSteadyClockNotSystemClock) {
  static_assert(std::is_same_v<SteadyClock::Source, std::chrono::steady_clock>);
  static_assert(!std::is_same_v<SteadyClock::Source, std::chrono::system_clock>);
  // The reading lies between two steady_clock readings: a system_clock reading (epoch
  // 1970) would be decades away from steady_clock's (epoch: boot, on Linux).
  SteadyClock clock;
  const auto before = std::chrono::steady_clock::now().time_since_epoch();
  const auto reading = clock.now();
  const auto after = std::chrono::steady_clock::now().time_since_epoch();
  EXPECT_LE(before, reading);
  EXPECT_LE(reading, after);
}

TEST(TokenBucket, BurstUpToCapacityThenDenied) {
  FakeClock clock;
  TokenBucket bucket(/*capacity=*/5, /*tokens_per_second=*/2, clock);
  EXPECT_EQ(allowed_in_a_row(bucket, 5), 5);
  const Decision sixth = bucket.try_acquire();
  EXPECT_EQ(sixth.verdict, Verdict::kDenied);
  EXPECT_EQ(sixth.retry_after, milliseconds(500));  // one token at two per second
}

TEST(TokenBucket, CapacityAndRateAreSeparate) {
  // Capacity 10, rate 2: a quiet client may burst 10, then gets 2 per second.
  FakeClock clock;
  TokenBucket bucket(10, 2, clock);
  EXPECT_EQ(allowed_in_a_row(bucket, 20), 10);
  clock.advance(seconds(1));
  EXPECT_EQ(allowed_in_a_row(bucket, 20), 2);
}

TEST(TokenBucket, LongIdleRefillsToCapacityNotBeyondAndDoesNotOverflow) {
  // An hour is 3.6e12 ns; at a billion tokens per second that is 3.6e21 units, far past
  // int64: a bucket that multiplies before comparing wraps and admits nothing (or anything).
  FakeClock clock;
  TokenBucket bucket(5, 1'000'000'000, clock);
  EXPECT_EQ(allowed_in_a_row(bucket, 5), 5);
  clock.advance(std::chrono::hours(1));
  EXPECT_EQ(bucket.available_units(), 5 * TokenBucket::kUnitsPerToken);
  EXPECT_EQ(allowed_in_a_row(bucket, 10), 5);
  // One idle length can wrap to a large positive value that a clamp to capacity hides; over
  // many lengths a multiply-first bucket wraps negative for some of them and fails here.
  for (int hours = 2; hours <= 200; ++hours) {
    EXPECT_EQ(allowed_in_a_row(bucket, 10), 0);  // drained
    clock.advance(std::chrono::hours(hours));
    ASSERT_EQ(bucket.available_units(), 5 * TokenBucket::kUnitsPerToken) << hours << " h idle";
    EXPECT_EQ(allowed_in_a_row(bucket, 10), 5);
  }
}

TEST(TokenBucket, SteadyRateOverTenSeconds) {
  FakeClock clock;
  TokenBucket bucket(3, 7, clock);
  int allowed = allowed_in_a_row(bucket, 3);
  // Poll every 10 ms for 10 s: exactly 7 per second pass after the burst.
  for (int tick = 1; tick <= 1000; ++tick) {
    clock.advance(milliseconds(10));
    allowed += allowed_in_a_row(bucket, 3);
  }
  EXPECT_EQ(allowed, 3 + 70);
}

TEST(TokenBucket, FractionsAccrueWhenPolledOften) {
  // One token per second, polled every millisecond: each poll adds 0.001 token. A bucket
  // that keeps whole tokens and moves its timestamp on every call never refills.
  FakeClock clock;
  TokenBucket bucket(1, 1, clock);
  ASSERT_EQ(bucket.try_acquire().verdict, Verdict::kAllowed);
  int allowed = 0;
  for (int ms = 1; ms <= 3000; ++ms) {
    clock.advance(milliseconds(1));
    allowed += bucket.try_acquire().verdict == Verdict::kAllowed;
  }
  EXPECT_EQ(allowed, 3);
}

TEST(TokenBucket, RetryAfterIsRoundedUpAndSufficient) {
  // Rate 3/s: one token takes 333,333,333.33 ns. Rounded up: 333,333,334.
  FakeClock clock;
  TokenBucket bucket(1, 3, clock);
  ASSERT_EQ(bucket.try_acquire().verdict, Verdict::kAllowed);
  const Decision denied = bucket.try_acquire();
  ASSERT_EQ(denied.verdict, Verdict::kDenied);
  EXPECT_EQ(denied.retry_after, nanoseconds(333'333'334));

  clock.advance(denied.retry_after - nanoseconds(1));
  EXPECT_EQ(bucket.try_acquire().verdict, Verdict::kDenied) << "one nanosecond early must still be denied";
  clock.advance(nanoseconds(1));
  EXPECT_EQ(bucket.try_acquire().verdict, Verdict::kAllowed) << "waiting retry_after must be enough";
}

TEST(TokenBucket, RetryAfterCountsThePartialRefill) {
  // The question's trace: capacity 5, 2/s; at 600 ms the bucket holds 0.2 token.
  FakeClock clock;
  TokenBucket bucket(5, 2, clock);
  ASSERT_EQ(allowed_in_a_row(bucket, 5), 5);
  clock.set(milliseconds(500));
  ASSERT_EQ(bucket.try_acquire().verdict, Verdict::kAllowed);
  clock.set(milliseconds(600));
  EXPECT_EQ(bucket.try_acquire().retry_after, milliseconds(400));
  clock.set(milliseconds(1000));
  ASSERT_EQ(bucket.try_acquire().verdict, Verdict::kAllowed);
  clock.set(milliseconds(1300));  // 0.6 token; cost 2 needs 1.4 more: 700 ms
  EXPECT_EQ(bucket.try_acquire(2).retry_after, milliseconds(700));
}

TEST(TokenBucket, CostAboveCapacityNeverFitsAndInvalidCostIsAValue) {
  FakeClock clock;
  TokenBucket bucket(5, 2, clock);
  EXPECT_EQ(bucket.try_acquire(6).verdict, Verdict::kNeverFits);
  EXPECT_EQ(bucket.try_acquire(0).verdict, Verdict::kInvalidCost);
  EXPECT_EQ(bucket.try_acquire(-3).verdict, Verdict::kInvalidCost);
  EXPECT_EQ(bucket.try_acquire(5).verdict, Verdict::kAllowed) << "rejected costs must not take tokens";
}

TEST(TokenBucket, ClockGoingBackwardsAddsNothing) {
  FakeClock clock;
  clock.set(seconds(100));
  TokenBucket bucket(2, 1, clock);
  ASSERT_EQ(allowed_in_a_row(bucket, 2), 2);
  clock.set(seconds(50));
  EXPECT_EQ(bucket.try_acquire().verdict, Verdict::kDenied);
  // Back to 100 s: no time has passed since the last real reading, so still nothing.
  clock.set(seconds(100));
  EXPECT_EQ(bucket.try_acquire().verdict, Verdict::kDenied);
  clock.set(seconds(101));
  EXPECT_EQ(bucket.try_acquire().verdict, Verdict::kAllowed);
}

TEST(TokenBucket, ConcurrentCallersNeverExceedTheBudget) {
  // Eight threads race; every clock reading advances time 1 us. Whatever the
  // interleaving, the total admitted cannot exceed capacity + rate × elapsed. Without
  // one lock across refill, check and take, two threads take the same tokens.
  constexpr int kThreads = 8;
  constexpr int kAttemptsPerThread = 20'000;
  TickingClock clock(std::chrono::microseconds(1));
  TokenBucket bucket(100, 1000, clock);  // 1000/s: one token per 1000 clock readings

  std::atomic<std::int64_t> allowed{0};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      std::int64_t mine = 0;
      for (int i = 0; i < kAttemptsPerThread; ++i) mine += bucket.try_acquire().verdict == Verdict::kAllowed;
      allowed += mine;
    });
  }
  for (auto& th : threads) th.join();

  const double elapsed_s = std::chrono::duration<double>(clock.peek()).count();
  const std::int64_t budget = 100 + static_cast<std::int64_t>(1000 * elapsed_s);
  EXPECT_LE(allowed.load(), budget);
  // And the bucket is not simply refusing: most of the budget was handed out.
  EXPECT_GE(allowed.load(), budget - 2);
}

}  // namespace
}  // namespace ridge::lab
