#include "gpu_pool.h"

namespace ridge::lab {

bool RacyPool::acquire(int n, const std::function<void()>& between) {
  if (n < 1) return false;
  if (free_.load() >= n) {  // check
    between();
    free_.fetch_sub(n);  // act: another thread may have acted since the check
    return true;
  }
  return false;
}

bool CasPool::acquire(int n, const std::function<void()>& between) {
  if (n < 1) return false;
  int seen = free_.load();
  while (seen >= n) {
    between();
    // Act only if the count is still the one checked; on failure `seen` is reloaded and the
    // loop checks again. The strong form: a spurious failure must not refuse a fitting request.
    if (free_.compare_exchange_strong(seen, seen - n)) return true;
  }
  return false;
}

bool CasPool::release(int n) {
  if (n < 1) return false;
  int seen = free_.load();
  while (seen + n <= size_) {
    if (free_.compare_exchange_strong(seen, seen + n)) return true;
  }
  return false;  // more than was taken: a double release
}

bool LockedPool::acquire(int n, const std::function<void()>& before_lock) {
  if (n < 1) return false;
  before_lock();  // outside the lock: a callback here may re-enter the pool
  std::lock_guard<std::mutex> lock(mu_);
  if (free_ < n) return false;  // check, under the lock
  free_ -= n;                   // act, under the same lock
  if (free_ < min_free_) min_free_ = free_;
  return true;
}

bool LockedPool::release(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (n < 1 || free_ + n > size_) return false;  // more than was taken: a double release
  free_ += n;
  return true;
}

int LockedPool::free() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_;
}

int LockedPool::min_free() const {
  std::lock_guard<std::mutex> lock(mu_);
  return min_free_;
}

}  // namespace ridge::lab
