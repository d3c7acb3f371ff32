// Figures for the token bucket: what a client sending at twice the limit gets over a
// minute (simulated, exact), what merging capacity and rate does to a burst, and the
// cost of one try_acquire on the real steady clock.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#include "common/report.h"
#include "token_bucket.h"

namespace {

using ridge::lab::Clock;
using ridge::lab::TokenBucket;
using ridge::lab::Verdict;

class SimulatedClock final : public Clock {
 public:
  std::chrono::nanoseconds now() const override { return t_; }
  void set(std::chrono::nanoseconds t) { t_ = t; }

 private:
  std::chrono::nanoseconds t_{0};
};

double ns_per_call(int threads, int calls_per_thread) {
  ridge::lab::SteadyClock clock;
  TokenBucket bucket(1'000'000, 1'000'000'000, clock);  // never the bottleneck: measures the path
  std::latch start(threads + 1);
  std::vector<std::thread> pool;
  std::atomic<std::int64_t> sink{0};
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      start.arrive_and_wait();
      std::int64_t allowed = 0;
      for (int i = 0; i < calls_per_thread; ++i) allowed += bucket.try_acquire().verdict == Verdict::kAllowed;
      sink += allowed;
    });
  }
  start.arrive_and_wait();
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& th : pool) th.join();
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  return std::chrono::duration<double, std::nano>(elapsed).count() / (static_cast<double>(threads) * calls_per_thread);
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("rate-limiter", "token bucket: admitted load, burst, cost per call");

  report.section("a client sending 100 req/s for 60 s at a limit of capacity 100, rate 50/s (simulated clock)");
  {
    SimulatedClock clock;
    TokenBucket bucket(100, 50, clock);
    std::int64_t admitted = 0, denied = 0, admitted_after_10s = 0;
    double retry_sum_ms = 0;
    for (int i = 0; i < 6000; ++i) {
      clock.set(std::chrono::milliseconds(10 * i));
      const auto d = bucket.try_acquire();
      if (d.verdict == Verdict::kAllowed) {
        ++admitted;
        if (i >= 1000) ++admitted_after_10s;
      } else {
        ++denied;
        retry_sum_ms += std::chrono::duration<double, std::milli>(d.retry_after).count();
      }
    }
    report.add("twice_the_limit/admitted", admitted, "requests", "admitted of 6,000 (expected 100 + 50 × 59.99 s, floored)");
    report.add("twice_the_limit/denied", denied, "requests", "denied");
    report.add("twice_the_limit/sustained_rate_per_s", static_cast<double>(admitted_after_10s) / 50.0, "req/s",
               "admitted rate over the last 50 s", 2);
    report.add("twice_the_limit/mean_retry_after_ms", retry_sum_ms / static_cast<double>(denied), "ms",
               "mean retry-after told to denied requests", 2);
  }

  report.section("a quiet client bursts 100 requests at once (limit 50/s; capacity 50 is the merged setting)");
  for (std::int64_t capacity : {std::int64_t{100}, std::int64_t{50}, std::int64_t{1}}) {
    SimulatedClock clock;
    TokenBucket bucket(capacity, 50, clock);
    std::int64_t admitted = 0;
    for (int i = 0; i < 100; ++i) admitted += bucket.try_acquire().verdict == Verdict::kAllowed;
    report.add("burst_of_100/capacity_" + std::to_string(capacity), admitted, "admitted",
               "capacity " + std::to_string(capacity));
  }

  report.section("cost of try_acquire on the steady clock");
  report.add("ns_per_call/1_thread", ns_per_call(1, 2'000'000), "ns", "one thread", 1);
  report.add("ns_per_call/2_threads", ns_per_call(2, 1'000'000), "ns", "two threads on one bucket (contended lock)", 1);
  report.note("timings depend on the machine and the build type; the simulated counts do not");

  return report.print(argc, argv);
}
