// Three free-GPU pools for one node, the check-then-act race and its two fixes.
//
// Contract (every pool):
// - A pool starts with `gpus` free GPUs (1 <= gpus). acquire(n) succeeds only if n GPUs
//   are free, and then takes them; the free count never goes below zero. n < 1 is refused
//   (false) and takes nothing.
// - Any thread may call any method; free() is a snapshot that may be stale on return.
// - Test seam: each acquire takes a callback that runs once per attempt at the point where
//   another thread's interference matters. A test blocks there on a two-party barrier to
//   force the bad interleaving on every run instead of once a week under load.
//
// RacyPool is the bug on purpose: check (load) and act (fetch_sub) are each atomic, the pair
// is not. Its seam runs between them, and two callers can both pass the check. It exists so
// the tests can show the race fires; never use it.
//
// CasPool fixes it with a compare-and-swap loop: the act succeeds only if the count is still
// the one checked; otherwise the loop re-checks the new count. The seam runs after each check.
//
// LockedPool fixes it with one mutex around check and act. Its seam runs BEFORE the lock is
// taken (a seam that waited inside the lock for the other thread would deadlock, and a
// callback that re-enters the pool would too). release(n) returns GPUs; a release that would
// take the free count above the pool's size (a double release after a retry) is refused
// (false) and changes nothing. min_free() is the lowest free count ever set, for stress tests.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>

namespace ridge::lab {

class RacyPool {
 public:
  explicit RacyPool(int gpus) : free_(gpus) {}
  bool acquire(int n, const std::function<void()>& between);
  void release(int n) { free_.fetch_add(n); }
  int free() const { return free_.load(); }

 private:
  std::atomic<int> free_;  // atomic: the race is a logic bug, not undefined behaviour
};

class CasPool {
 public:
  explicit CasPool(int gpus) : size_(gpus), free_(gpus) {}
  bool acquire(int n, const std::function<void()>& between);
  bool acquire(int n) {
    return acquire(n, [] {});
  }
  bool release(int n);
  int free() const { return free_.load(); }

 private:
  const int size_;
  std::atomic<int> free_;
};

class LockedPool {
 public:
  explicit LockedPool(int gpus) : size_(gpus), free_(gpus), min_free_(gpus) {}
  bool acquire(int n, const std::function<void()>& before_lock);
  bool acquire(int n) {
    return acquire(n, [] {});
  }
  bool release(int n);
  int free() const;
  int min_free() const;

 private:
  const int size_;
  mutable std::mutex mu_;
  int free_;      // guarded by mu_
  int min_free_;  // guarded by mu_
};

}  // namespace ridge::lab
