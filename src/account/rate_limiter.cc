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

StoreRateLimiter::Answer StoreRateLimiter::limited(const std::string& key, double* retry_after) {
  auto tokens = store_.bucket_tokens(key, capacity_, per_second_, clock_.now());
  if (!tokens.ok()) return Answer::kUnavailable;
  if (*tokens >= 1) return Answer::kAllowed;
  if (retry_after) *retry_after = (1 - *tokens) / per_second_;
  return Answer::kLimited;
}

StoreRateLimiter::Answer StoreRateLimiter::allow(const std::string& key, double* retry_after) {
  Answer taken = take(key);
  if (taken != Answer::kLimited) return taken;
  Answer now = limited(key, retry_after);
  // Refilled between the take and the read: call it limited for a second.
  if (now == Answer::kAllowed && retry_after) *retry_after = 1;
  return now == Answer::kUnavailable ? now : Answer::kLimited;
}

StoreRateLimiter::Answer StoreRateLimiter::exhausted(const std::string& key, double* retry_after) {
  return limited(key, retry_after);
}

StoreRateLimiter::Answer StoreRateLimiter::take(const std::string& key) {
  int64_t now = clock_.now();
  // Now and then, drop the buckets that are full again (the table stays the size of the
  // last few minutes' failures); its failure is harmless.
  if (++takes_ % 1024 == 0) (void)store_.prune_buckets(now);
  auto left = store_.take_token(key, capacity_, per_second_, now);
  if (!left.ok()) return Answer::kUnavailable;
  return left->has_value() ? Answer::kAllowed : Answer::kLimited;
}

StoreRateLimiter::Answer StoreRateLimiter::give_back(const std::string& key) {
  return store_.return_token(key, capacity_).ok() ? Answer::kAllowed : Answer::kUnavailable;
}

}  // namespace ridge::account
