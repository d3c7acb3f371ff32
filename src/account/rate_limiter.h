// Token buckets keyed by a string (an address, an account): `capacity` attempts at once,
// refilled at `per_second`. Lazy refill on the injected clock; thread-safe. RateLimiter is
// in memory, so its limit is per process; StoreRateLimiter keeps the buckets in the store,
// so every server on one database enforces one limit (the sign-in and sign-up budgets).
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

#include "account/clock.h"
#include "store/store.h"

namespace ridge::account {

class RateLimiter {
 public:
  RateLimiter(const Clock& clock, double capacity, double per_second)
      : clock_(clock), capacity_(capacity), per_second_(per_second) {}

  // Takes one token; false (and the seconds until one is free) when the bucket is empty.
  bool allow(const std::string& key, double* retry_after = nullptr);
  // True (and the seconds until a token is free) when the bucket is empty; takes nothing.
  // With take(), a limit that counts only failures: check before, take after a failure.
  bool exhausted(const std::string& key, double* retry_after = nullptr);
  // Takes one token if there is one (a failure counted).
  void take(const std::string& key);

 private:

  struct Bucket {
    double tokens;
    int64_t updated;
  };
  // The key's bucket, refilled to now (created full); the caller holds mutex_.
  Bucket& refilled(const std::string& key);
  const Clock& clock_;
  double capacity_, per_second_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

// The same buckets in the store (table rate_limits), shared by every process on it. A store
// failure is its own answer, so the caller can say 503 instead of guessing.
class StoreRateLimiter {
 public:
  StoreRateLimiter(store::Store& store, const Clock& clock, double capacity, double per_second)
      : store_(store), clock_(clock), capacity_(capacity), per_second_(per_second) {}

  enum class Answer { kAllowed, kLimited, kUnavailable };
  // Takes one token; kLimited (and the seconds until one is free) when the bucket is empty.
  Answer allow(const std::string& key, double* retry_after = nullptr);
  // kLimited (and the seconds until a token is free) when the bucket is empty; takes nothing.
  Answer exhausted(const std::string& key, double* retry_after = nullptr);
  // Takes one token if there is one (a failure counted); kUnavailable when the store failed.
  Answer take(const std::string& key);
  // Puts back a token that allow() took (a reservation that did not count).
  Answer give_back(const std::string& key);

 private:
  Answer limited(const std::string& key, double* retry_after);
  store::Store& store_;
  const Clock& clock_;
  double capacity_, per_second_;
  std::atomic<uint64_t> takes_{0};
};

}  // namespace ridge::account
