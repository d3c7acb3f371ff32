// The latency a batching window adds, at several arrival rates.
//
// Part 1 simulates the batcher's two triggers in virtual time: Poisson arrivals from a
// fixed seed, max batch 32, max wait 5 ms, a batch function that takes no time (so the
// figure is the window's cost alone, not queueing behind a busy worker). Exact and
// repeatable. Part 2 runs the real Batcher on the steady clock at three of the rates, so
// the simulation can be checked against threads, wakeups and a real scheduler.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "batcher.h"
#include "common/report.h"

namespace {

using ridge::lab::Batcher;
using ridge::lab::BatcherConfig;

constexpr std::size_t kMaxBatch = 32;
constexpr double kMaxWaitUs = 5000.0;
constexpr std::uint64_t kSeed = 20261130;

// Poisson arrival times in microseconds. Exponential gaps from the raw 64-bit engine
// output (not std::exponential_distribution, whose algorithm varies by library).
std::vector<double> poisson_arrivals(double rate_per_s, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> t(n);
  double now = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;  // (0, 1)
    now += -std::log(u) / rate_per_s * 1e6;
    t[i] = now;
  }
  return t;
}

struct WindowStats {
  double p50_us, p99_us, mean_batch;
};

double percentile(std::vector<double> v, double q) {  // nearest rank
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

// The two triggers in virtual time: a batch starting at item i is dispatched when its
// 32nd item arrives or at arrival[i] + max_wait, whichever comes first.
WindowStats simulate(const std::vector<double>& arrival) {
  std::vector<double> added;
  added.reserve(arrival.size());
  std::size_t batches = 0;
  for (std::size_t i = 0; i < arrival.size();) {
    const double deadline = arrival[i] + kMaxWaitUs;
    const std::size_t last_if_full = i + kMaxBatch - 1;
    double dispatch;
    std::size_t end;
    if (last_if_full < arrival.size() && arrival[last_if_full] <= deadline) {
      dispatch = arrival[last_if_full];
      end = last_if_full + 1;
    } else {
      dispatch = deadline;
      end = i;
      while (end < arrival.size() && end - i < kMaxBatch && arrival[end] <= deadline) ++end;
    }
    for (std::size_t k = i; k < end; ++k) added.push_back(dispatch - arrival[k]);
    ++batches;
    i = end;
  }
  return {percentile(added, 0.50), percentile(added, 0.99),
          static_cast<double>(arrival.size()) / static_cast<double>(batches)};
}

// The real Batcher: a producer thread submits on the Poisson schedule; the batch
// function stamps when it was called. Added latency = call time - submit time.
WindowStats run_real(double rate_per_s, std::size_t n) {
  const auto schedule = poisson_arrivals(rate_per_s, n, kSeed);
  std::vector<std::chrono::steady_clock::time_point> submitted(n), dispatched(n);
  std::size_t batches = 0;
  {
    Batcher batcher(BatcherConfig{kMaxBatch, std::chrono::microseconds(static_cast<std::int64_t>(kMaxWaitUs))},
                    [&](const std::vector<std::int64_t>& in) {
                      const auto now = std::chrono::steady_clock::now();
                      for (auto i : in) dispatched[static_cast<std::size_t>(i)] = now;
                      ++batches;  // only the worker thread writes it
                      return in;
                    });
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::future<std::int64_t>> futures;
    futures.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::this_thread::sleep_until(t0 + std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::duration<double, std::micro>(schedule[i])));
      submitted[i] = std::chrono::steady_clock::now();
      futures.push_back(batcher.submit(static_cast<std::int64_t>(i)));
    }
    for (auto& f : futures) f.get();
  }  // the batcher is stopped and joined here: the worker's writes are visible below
  std::vector<double> added(n);
  for (std::size_t i = 0; i < n; ++i) {
    added[i] = std::chrono::duration<double, std::micro>(dispatched[i] - submitted[i]).count();
  }
  return {percentile(added, 0.50), percentile(added, 0.99), static_cast<double>(n) / static_cast<double>(batches)};
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("batcher", "latency the batching window adds (max batch 32, max wait 5 ms)");
  report.note("Poisson arrivals, seed 20261130; batch function takes no time, so this is the window alone");

  report.section("simulated triggers, 200,000 arrivals per rate (exact, repeatable)");
  for (double rate : {10.0, 100.0, 1000.0, 10000.0, 100000.0}) {
    const auto s = simulate(poisson_arrivals(rate, 200'000, kSeed));
    const std::string key = "simulated/" + std::to_string(static_cast<int>(rate)) + "_per_s";
    const std::string label = std::to_string(static_cast<int>(rate)) + " req/s";
    report.add(key + "/p50_added_us", s.p50_us, "us", label + ": p50 added", 0);
    report.add(key + "/p99_added_us", s.p99_us, "us", label + ": p99 added", 0);
    report.add(key + "/mean_batch", s.mean_batch, "items", label + ": mean batch", 2);
  }

  report.section("the real Batcher on the steady clock (threads and wakeups included)");
  struct RealRun {
    double rate;
    std::size_t n;
  };
  for (RealRun r : {RealRun{100, 100}, RealRun{1000, 1000}, RealRun{10000, 5000}}) {
    const auto s = run_real(r.rate, r.n);
    const std::string key = "real/" + std::to_string(static_cast<int>(r.rate)) + "_per_s";
    const std::string label = std::to_string(static_cast<int>(r.rate)) + " req/s (" + std::to_string(r.n) + " arrivals)";
    report.add(key + "/p50_added_us", s.p50_us, "us", label + ": p50 added", 0);
    report.add(key + "/p99_added_us", s.p99_us, "us", label + ": p99 added", 0);
    report.add(key + "/mean_batch", s.mean_batch, "items", label + ": mean batch", 2);
  }
  report.note("real-run figures vary with the machine's load; the simulated ones do not");
  return report.print(argc, argv);
}
