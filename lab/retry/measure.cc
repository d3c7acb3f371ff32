// Retry figures in virtual time: the backoff bounds, a thundering herd of 1,000 clients
// retrying through a 5 s outage with and without jitter, and the deadline held over
// 10,000 seeded runs.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/report.h"
#include "retry.h"

namespace {

using namespace std::chrono_literals;
using ridge::lab::AttemptOutcome;
using ridge::lab::BackoffPolicy;
using ridge::lab::nanoseconds;

class VirtualClock final : public ridge::lab::RetryClock {
 public:
  nanoseconds now() const override { return t_; }
  void sleep_for(nanoseconds d) override { t_ += d; }

 private:
  nanoseconds t_{0};
};

// Always answers the maximum: backoff without jitter.
class NoJitter final : public ridge::lab::RetryRng {
 public:
  std::uint64_t uniform(std::uint64_t max_inclusive) override { return max_inclusive; }
};

struct Herd {
  std::int64_t peak_per_100ms = 0;  // after the first second, when the bounds have spread
  std::int64_t attempts = 0;
  double p99_recovered_ms = 0;  // after the outage ends, when the client got through
};

// 1,000 clients fail at t = 0; the server refuses every attempt before t = 5 s.
Herd herd(bool jitter) {
  const BackoffPolicy p{.base = 100ms, .cap = 10s, .max_attempts = 50, .deadline = 60s};
  std::map<std::int64_t, std::int64_t> per_bucket;
  std::vector<double> recovered;
  Herd h;
  for (int client = 0; client < 1000; ++client) {
    VirtualClock clock;
    ridge::lab::Mt64RetryRng jittered(static_cast<std::uint64_t>(client) + 1);
    NoJitter fixed;
    ridge::lab::RetryRng& rng = jitter ? static_cast<ridge::lab::RetryRng&>(jittered) : fixed;
    auto attempt = [&](nanoseconds) {
      ++per_bucket[clock.now() / 100ms];
      ++h.attempts;
      return clock.now() >= 5s ? AttemptOutcome::kSuccess : AttemptOutcome::kRetryable;
    };
    const auto r = ridge::lab::retry_with_backoff(attempt, p, clock, rng);
    if (r.status == ridge::lab::RetryStatus::kSucceeded) {
      recovered.push_back(std::chrono::duration<double, std::milli>(clock.now() - 5s).count());
    }
  }
  for (const auto& [bucket, n] : per_bucket) {
    if (bucket >= 10) h.peak_per_100ms = std::max(h.peak_per_100ms, n);  // after the first second
  }
  std::sort(recovered.begin(), recovered.end());
  h.p99_recovered_ms = recovered.empty() ? 0 : recovered[recovered.size() * 99 / 100];
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("retry", "exponential backoff, full jitter, deadline (virtual time)");

  report.section("sleep bound per retry: base 100 ms, cap 10 s");
  const BackoffPolicy p{.base = 100ms, .cap = 10s};
  for (int n = 0; n < 9; ++n) {
    report.add("bound_ms/retry_" + std::to_string(n),
               std::chrono::duration<double, std::milli>(ridge::lab::backoff_bound(p, n)).count(), "ms",
               "retry " + std::to_string(n), 0);
  }

  report.section("1,000 clients fail together; the server refuses everything for 5 s");
  for (bool jitter : {false, true}) {
    const Herd h = herd(jitter);
    const std::string key = jitter ? "herd/full_jitter" : "herd/no_jitter";
    const std::string label = jitter ? "full jitter" : "no jitter";
    report.add(key + "/peak_attempts_per_100ms", h.peak_per_100ms, "", label + ": peak retries in one 100 ms window after t = 1 s");
    report.add(key + "/attempts", h.attempts, "", label + ": attempts in total");
    report.add(key + "/p99_recovered_ms", h.p99_recovered_ms, "ms", label + ": p99 wait past the outage's end", 0);
  }

  report.section("deadline 5 s, always failing, 10,000 seeded runs");
  {
    const BackoffPolicy d{.base = 50ms, .cap = 2s, .max_attempts = 1000, .deadline = 5s};
    nanoseconds worst{0};
    std::int64_t attempts = 0;
    for (int run = 0; run < 10'000; ++run) {
      VirtualClock clock;
      ridge::lab::Mt64RetryRng rng(static_cast<std::uint64_t>(run) + 1);
      const auto r = ridge::lab::retry_with_backoff([](nanoseconds) { return AttemptOutcome::kRetryable; }, d, clock, rng);
      worst = std::max(worst, clock.now());
      attempts += r.attempts;
    }
    report.add("deadline/worst_elapsed_ms", std::chrono::duration<double, std::milli>(worst).count(), "ms",
               "longest time to give up (deadline 5,000 ms)", 1);
    report.add("deadline/mean_attempts", static_cast<double>(attempts) / 10'000, "", "mean attempts before giving up", 2);
  }
  return report.print(argc, argv);
}
