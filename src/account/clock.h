// Time as an interface, so FSRS schedules, session expiry and rate limits are tested by
// moving a fake clock instead of sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ridge::account {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now() const = 0;  // unix seconds
};

class SystemClock final : public Clock {
 public:
  int64_t now() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
};

class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start) : t_(start) {}
  int64_t now() const override { return t_.load(); }
  void advance(int64_t seconds) { t_ += seconds; }

 private:
  std::atomic<int64_t> t_;
};

}  // namespace ridge::account
