// Token buckets keyed by a string (an address, an account): `capacity` attempts at once,
// refilled at `per_second`. Lazy refill on the injected clock; thread-safe. In memory, so
// the limit is per process: behind a proxy with several servers each enforces its own.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include "account/clock.h"

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

}  // namespace ridge::account
