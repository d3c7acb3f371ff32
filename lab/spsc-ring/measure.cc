// Figures for the SPSC ring: items per second between two threads through 1,024 slots, for the
// ring (indices on separate cache lines, each side caching the other's index) and for a packed
// variant defined here only for the comparison (both indices on one line, no cached copies).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "common/report.h"
#include "spsc_ring.h"

namespace {

// The same protocol with the layout bug: head and tail share a cache line, and every call
// reads the other side's index, so the line bounces between the two cores on every operation.
class PackedRing {
 public:
  explicit PackedRing(std::size_t capacity) : mask_(capacity - 1), slots_(capacity) {}
  bool try_push(std::uint64_t v) {
    const std::uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t - head_.load(std::memory_order_acquire) == slots_.size()) return false;
    slots_[t & mask_] = v;
    tail_.store(t + 1, std::memory_order_release);
    return true;
  }
  std::optional<std::uint64_t> try_pop() {
    const std::uint64_t h = head_.load(std::memory_order_relaxed);
    if (h == tail_.load(std::memory_order_acquire)) return std::nullopt;
    const std::uint64_t v = slots_[h & mask_];
    head_.store(h + 1, std::memory_order_release);
    return v;
  }

 private:
  const std::uint64_t mask_;
  std::vector<std::uint64_t> slots_;
  std::atomic<std::uint64_t> head_{0};
  std::atomic<std::uint64_t> tail_{0};
};

template <class Ring>
double items_per_second(std::uint64_t items) {
  Ring q(1024);
  const auto t0 = std::chrono::steady_clock::now();
  std::thread producer([&] {
    for (std::uint64_t i = 1; i <= items; ++i) {
      while (!q.try_push(i)) std::this_thread::yield();
    }
  });
  std::uint64_t got = 0, sum = 0;
  while (got < items) {
    if (auto v = q.try_pop()) {
      sum += *v;
      ++got;
    } else {
      std::this_thread::yield();
    }
  }
  producer.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum == items * (items + 1) / 2 ? static_cast<double>(items) / s : -1.0;  // -1: items lost
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("spsc-ring", "SPSC ring: items per second between two threads, 1,024 slots");
  constexpr std::uint64_t kItems = 5'000'000;
  report.section("5,000,000 items, producer and consumer threads, yield when full or empty");
  report.add("separated/items_per_s", items_per_second<ridge::lab::SpscRing>(kItems), "items/s",
             "indices on separate lines, cached copies", 0);
  report.add("packed/items_per_s", items_per_second<PackedRing>(kItems), "items/s",
             "both indices on one line, no cached copies", 0);
  report.note("timed: depends on the machine, its load and where the two threads run; on a machine with "
              "fewer free cores than two the threads take turns and the layout matters less");
  return report.print(argc, argv);
}
