// Clock: the monotonic time source the token bucket reads, injected so tests control time.
#pragma once

#include <chrono>

namespace ridge::lab {

// Time since an arbitrary fixed origin. Implementations must be safe to call from any
// thread. A clock used for rate limiting must be monotonic: wall-clock time (system_clock)
// jumps when NTP corrects it, and a jump forward hands out a burst.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::nanoseconds now() const = 0;
};

// The production clock: std::chrono::steady_clock, never system_clock.
class SteadyClock final : public Clock {
 public:
  using Source = std::chrono::steady_clock;
  static_assert(Source::is_steady, "the rate limiter's clock must be monotonic");

  std::chrono::nanoseconds now() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Source::now().time_since_epoch());
  }
};

}  // namespace ridge::lab
