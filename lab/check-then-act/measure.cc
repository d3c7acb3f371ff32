// Figures for the check-then-act build: what the forced interleaving does to each pool
// (exact: the barrier decides the order), and the cost of acquire + release on one thread
// and on two threads sharing a pool (timed).
#include <atomic>
#include <barrier>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/report.h"
#include "gpu_pool.h"

namespace {

template <typename Pool>
void forced(ridge::lab::Report& report, const std::string& name, int n) {
  Pool pool(8);
  std::barrier both(2);
  std::atomic<int> granted{0};
  auto worker = [&] {
    bool first = true;
    auto seam = [&] {
      if (first) {
        first = false;
        both.arrive_and_wait();
      }
    };
    if (pool.acquire(n, seam)) ++granted;
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  const std::string key = "forced_" + std::to_string(n) + "_of_8/" + name;
  report.add(key + "/granted", static_cast<std::int64_t>(granted.load()), "requests", name + ": granted");
  report.add(key + "/free_after", static_cast<std::int64_t>(pool.free()), "GPUs", name + ": free after");
}

template <typename Pool>
double ns_per_cycle(int threads, int cycles) {
  Pool pool(8);
  std::vector<std::thread> ts;
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&] {
      for (int i = 0; i < cycles; ++i)
        if (pool.acquire(2)) pool.release(2);
    });
  }
  for (auto& th : ts) th.join();
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  return std::chrono::duration<double, std::nano>(elapsed).count() / (static_cast<double>(threads) * cycles);
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("check-then-act", "free-GPU pools: the forced interleaving, and the cost of each fix");

  report.section("two threads each ask for 6 of 8 GPUs; both reach the seam before either acts (exact)");
  forced<ridge::lab::RacyPool>(report, "racy", 6);
  forced<ridge::lab::CasPool>(report, "cas", 6);
  forced<ridge::lab::LockedPool>(report, "locked", 6);

  report.section("acquire(2) + release(2), 500,000 cycles per thread (timed)");
  report.add("ns_per_cycle/cas_1_thread", ns_per_cycle<ridge::lab::CasPool>(1, 500'000), "ns", "CAS, one thread", 1);
  report.add("ns_per_cycle/locked_1_thread", ns_per_cycle<ridge::lab::LockedPool>(1, 500'000), "ns",
             "mutex, one thread", 1);
  report.add("ns_per_cycle/cas_2_threads", ns_per_cycle<ridge::lab::CasPool>(2, 500'000), "ns",
             "CAS, two threads on one pool", 1);
  report.add("ns_per_cycle/locked_2_threads", ns_per_cycle<ridge::lab::LockedPool>(2, 500'000), "ns",
             "mutex, two threads on one pool", 1);
  report.note("timings depend on the machine and the build type; the forced counts do not");
  return report.print(argc, argv);
}
