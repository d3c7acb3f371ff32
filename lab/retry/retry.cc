#include "retry.h"

namespace ridge::lab {

nanoseconds backoff_bound(const BackoffPolicy& policy, int retry) {
  // Double step by step and stop at the cap: base << retry is undefined for retry >= 64
  // and overflows long before that.
  std::int64_t bound = policy.base.count();
  const std::int64_t cap = policy.cap.count();
  for (int i = 0; i < retry && bound < cap; ++i) bound = bound > cap / 2 ? cap : bound * 2;
  return nanoseconds(bound < cap ? bound : cap);
}

RetryResult retry_with_backoff(const Attempt& attempt, const BackoffPolicy& policy, RetryClock& clock, RetryRng& rng) {
  RetryResult result{RetryStatus::kDeadlineExceeded, 0, {}};
  const nanoseconds deadline_at = clock.now() + policy.deadline;
  for (int retry = 0;; ++retry) {
    const nanoseconds remaining = deadline_at - clock.now();
    if (remaining <= nanoseconds::zero()) {
      result.status = RetryStatus::kDeadlineExceeded;
      return result;
    }
    ++result.attempts;
    const AttemptOutcome outcome = attempt(remaining);
    if (outcome == AttemptOutcome::kSuccess) {
      result.status = RetryStatus::kSucceeded;
      return result;
    }
    if (outcome == AttemptOutcome::kPermanent) {
      result.status = RetryStatus::kPermanentFailure;
      return result;
    }
    if (result.attempts >= policy.max_attempts) {
      result.status = RetryStatus::kAttemptsExhausted;
      return result;
    }
    const auto bound = static_cast<std::uint64_t>(backoff_bound(policy, retry).count());
    const nanoseconds sleep(static_cast<std::int64_t>(rng.uniform(bound)));
    if (clock.now() + sleep >= deadline_at) {  // no attempt could start after this sleep
      result.status = RetryStatus::kDeadlineExceeded;
      return result;
    }
    clock.sleep_for(sleep);
    result.sleeps.push_back(sleep);
  }
}

}  // namespace ridge::lab
