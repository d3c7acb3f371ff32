#include "account/rate_limiter.h"

#include <algorithm>

namespace ridge::account {

bool RateLimiter::allow(const std::string& key, double* retry_after) {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t now = clock_.now();
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{capacity_, now});
  Bucket& b = it->second;
  b.tokens = std::min(capacity_, b.tokens + static_cast<double>(now - b.updated) * per_second_);
  b.updated = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return true;
  }
  if (retry_after) *retry_after = (1 - b.tokens) / per_second_;
  if (buckets_.size() > 100000) buckets_.clear();  // bound memory under an address sweep
  return false;
}

bool RateLimiter::exhausted(const std::string& key, double* retry_after) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return false;
  Bucket& b = it->second;
  int64_t now = clock_.now();
  b.tokens = std::min(capacity_, b.tokens + static_cast<double>(now - b.updated) * per_second_);
  b.updated = now;
  if (b.tokens >= 1) return false;
  if (retry_after) *retry_after = (1 - b.tokens) / per_second_;
  return true;
}

void RateLimiter::take(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t now = clock_.now();
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{capacity_, now});
  Bucket& b = it->second;
  b.tokens = std::min(capacity_, b.tokens + static_cast<double>(now - b.updated) * per_second_);
  b.updated = now;
  if (b.tokens >= 1) b.tokens -= 1;
  if (buckets_.size() > 100000) buckets_.clear();
}

}  // namespace ridge::account
