// Work-queue figures: throughput of empty tasks against the queue's capacity (2 producers,
// 2 workers), how often try_push meets a full queue when producers outrun the workers,
// and the failure accounting under 1% throwing tasks.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bounded_queue.h"
#include "common/report.h"
#include "worker_pool.h"

namespace {

using ridge::lab::BoundedQueue;
using ridge::lab::PushResult;
using ridge::lab::WorkerPool;

double tasks_per_second(std::size_t capacity, int producers, int per_producer) {
  BoundedQueue q(capacity);
  std::atomic<std::int64_t> ran{0};
  const auto t0 = std::chrono::steady_clock::now();
  {
    WorkerPool pool(q, 2, nullptr);
    std::vector<std::thread> threads;
    for (int p = 0; p < producers; ++p) {
      threads.emplace_back([&] {
        for (int i = 0; i < per_producer; ++i) q.push([&] { ran.fetch_add(1, std::memory_order_relaxed); });
      });
    }
    for (auto& t : threads) t.join();
    pool.shutdown();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(ran.load()) / s;
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("work-queue", "bounded queue and worker pool: throughput, backpressure, failures");

  report.section("empty tasks per second, 2 producers x 50,000 tasks, 2 workers");
  for (std::size_t capacity : {std::size_t{1}, std::size_t{64}, std::size_t{4096}}) {
    report.add("throughput/capacity_" + std::to_string(capacity), tasks_per_second(capacity, 2, 50'000), "tasks/s",
               "capacity " + std::to_string(capacity), 0);
  }

  report.section("backpressure: try_push at full speed against 1 worker running 20 us tasks (capacity 64)");
  {
    BoundedQueue q(64);
    std::int64_t accepted = 0, refused = 0, max_queued = 0;
    {
      WorkerPool pool(q, 1, nullptr);
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      while (std::chrono::steady_clock::now() < until) {
        const PushResult r = q.try_push([] {
          const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
          while (std::chrono::steady_clock::now() < end) {
          }
        });
        (r == PushResult::kOk ? accepted : refused) += 1;
        max_queued = std::max(max_queued, static_cast<std::int64_t>(q.size()));
      }
      pool.shutdown();
    }
    report.add("backpressure/accepted", accepted, "tasks", "accepted in 200 ms");
    report.add("backpressure/refused_share", static_cast<double>(refused) / static_cast<double>(accepted + refused),
               "", "share of try_push answered kFull", 4);
    report.add("backpressure/max_queued_seen", max_queued, "tasks", "most tasks seen queued (capacity 64)");
  }

  report.section("10,000 tasks, every 100th throws, 4 workers");
  {
    BoundedQueue q(256);
    std::atomic<std::int64_t> reported{0};
    std::size_t completed = 0, failed = 0, live_before = 0;
    {
      WorkerPool pool(q, 4, [&](const ridge::lab::TaskFailure&) { ++reported; });
      for (int i = 0; i < 10'000; ++i) {
        if (i % 100 == 99) {
          q.push([] { throw std::runtime_error("task failed"); });
        } else {
          q.push([] {});
        }
      }
      while (pool.completed() + pool.failed() < 10'000) std::this_thread::yield();
      live_before = pool.live_workers();
      pool.shutdown();
      completed = pool.completed();
      failed = pool.failed();
    }
    report.add("failures/completed", static_cast<std::int64_t>(completed), "tasks", "completed");
    report.add("failures/failed", static_cast<std::int64_t>(failed), "tasks", "failed (caught)");
    report.add("failures/reported", reported.load(), "tasks", "reported to the sink");
    report.add("failures/live_workers", static_cast<std::int64_t>(live_before), "of 4", "workers alive after all tasks");
  }
  report.note("throughput and the refused share depend on the machine; the failure counts do not");
  return report.print(argc, argv);
}
