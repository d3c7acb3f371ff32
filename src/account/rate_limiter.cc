#include "account/rate_limiter.h"

#include <algorithm>

namespace ridge::account {

RateLimiter::Bucket& RateLimiter::refilled(const std::string& key) {
  int64_t now = clock_.now();
  if (buckets_.size() > 100000 && !buckets_.count(key)) buckets_.clear();  // bound memory under an address sweep
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{capacity_, now});
  Bucket& b = it->second;
  b.tokens = std::min(capacity_, b.tokens + static_cast<double>(now - b.updated) * per_second_);
  b.updated = now;
  return b;
}

bool RateLimiter::allow(const std::string& key, double* retry_after) {
  std::lock_guard<std::mutex> lock(mutex_);
  Bucket& b = refilled(key);
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return true;
  }
  if (retry_after) *retry_after = (1 - b.tokens) / per_second_;
  return false;
}

bool RateLimiter::exhausted(const std::string& key, double* retry_after) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!buckets_.count(key)) return false;  // never charged: full, and nothing to store
  Bucket& b = refilled(key);
  if (b.tokens >= 1) return false;
  if (retry_after) *retry_after = (1 - b.tokens) / per_second_;
  return true;
}

void RateLimiter::take(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  Bucket& b = refilled(key);
  if (b.tokens >= 1) b.tokens -= 1;
}

}  // namespace ridge::account
