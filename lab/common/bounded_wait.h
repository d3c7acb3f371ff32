// Bounded waits for the lab's concurrent tests. A test that waits on another thread
// never waits forever: if the awaited thing is not ready within the bound, the test
// prints what it was waiting for and ends the process with a failure. A deadlock or
// a lost wakeup then reads as a failed test instead of a hung ctest.
//
// The bound is generous (seconds where the expected time is microseconds), so a slow or
// loaded machine does not turn a correct implementation into a failure.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

namespace ridge::lab {

inline constexpr std::chrono::seconds kBoundedWait{10};

// Fails the process if `f` is not ready within `bound`.
template <class T>
void expect_ready(std::future<T>& f, const char* what, std::chrono::milliseconds bound = kBoundedWait) {
  if (f.wait_for(bound) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: %s did not finish within %lld ms (deadlock or lost wakeup)\n", what,
                 static_cast<long long>(bound.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
}

// Polls `condition` (yielding between polls) until it holds; fails the process after `bound`.
// For waiting on a state another thread reaches, such as "four consumers are blocked".
inline void expect_eventually(const std::function<bool()>& condition, const char* what,
                              std::chrono::milliseconds bound = kBoundedWait) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "FAILED: %s did not happen within %lld ms\n", what, static_cast<long long>(bound.count()));
      std::fflush(stderr);
      std::_Exit(1);
    }
    std::this_thread::yield();
  }
}

}  // namespace ridge::lab
