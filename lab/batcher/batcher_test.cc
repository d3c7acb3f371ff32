#include "batcher.h"

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/bounded_wait.h"

namespace ridge::lab {
namespace {

using namespace std::chrono_literals;

// A batch function that doubles its inputs and records each batch it was given.
class Recorder {
 public:
  BatchFn fn() {
    return [this](const std::vector<std::int64_t>& in) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        batches_.push_back(in);
        dispatch_times_.push_back(std::chrono::steady_clock::now());
      }
      std::vector<std::int64_t> out;
      for (auto x : in) out.push_back(2 * x);
      return out;
    };
  }
  std::vector<std::vector<std::int64_t>> batches() const {
    std::lock_guard<std::mutex> lock(mu_);
    return batches_;
  }
  std::chrono::steady_clock::time_point dispatch_time(std::size_t i) const {
    std::lock_guard<std::mutex> lock(mu_);
    return dispatch_times_.at(i);
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::vector<std::int64_t>> batches_;
  std::vector<std::chrono::steady_clock::time_point> dispatch_times_;
};

constexpr auto kForever = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::hours(1));

TEST(Batcher, SizeTriggerDispatchesAFullBatchWithoutWaitingForTheTimer) {
  Recorder rec;
  Batcher batcher({.max_batch_size = 4, .max_wait = kForever}, rec.fn());
  std::vector<std::future<std::int64_t>> futures;
  for (int i = 1; i <= 4; ++i) futures.push_back(batcher.submit(i));
  for (auto& f : futures) expect_ready(f, "a full batch (size trigger)");
  EXPECT_EQ(futures[2].get(), 6);
  EXPECT_EQ(rec.batches(), (std::vector<std::vector<std::int64_t>>{{1, 2, 3, 4}}));
}

TEST(Batcher, TimeTriggerDispatchesAPartialBatchNoEarlierThanMaxWait) {
  Recorder rec;
  Batcher batcher({.max_batch_size = 100, .max_wait = 20ms}, rec.fn());
  const auto before = std::chrono::steady_clock::now();
  auto f = batcher.submit(21);
  expect_ready(f, "a lone item (time trigger)");
  EXPECT_EQ(f.get(), 42);
  ASSERT_EQ(rec.batches().size(), 1u);
  EXPECT_EQ(rec.batches()[0].size(), 1u);
  EXPECT_GE(rec.dispatch_time(0) - before, 20ms) << "the time trigger fired before max_wait";
}

TEST(Batcher, DeadlineBelongsToTheOldestItemNotTheNewest) {
  // A trickle of arrivals every 2 ms must not keep pushing the 50 ms deadline back. A
  // timer that restarts on each arrival never fires while the trickle lasts (2 s here).
  Recorder rec;
  Batcher batcher({.max_batch_size = 1'000'000, .max_wait = 50ms}, rec.fn());
  const auto start = std::chrono::steady_clock::now();
  auto first = batcher.submit(1);
  std::vector<std::future<std::int64_t>> trickle;
  while (first.wait_for(0ms) != std::future_status::ready && std::chrono::steady_clock::now() - start < 2s) {
    trickle.push_back(batcher.submit(2));
    std::this_thread::sleep_for(2ms);  // pacing the arrivals, not synchronizing
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(first.wait_for(0ms), std::future_status::ready) << "first item starved by later arrivals";
  EXPECT_LT(waited, 1s);
}

TEST(Batcher, AnExceptionFailsOnlyThatBatchsCallers) {
  // Batches are pairs (size trigger only), so which items share a batch is deterministic.
  BatchFn fn = [](const std::vector<std::int64_t>& in) {
    for (auto x : in) {
      if (x < 0) throw std::runtime_error("negative input in batch");
    }
    return in;
  };
  Batcher batcher({.max_batch_size = 2, .max_wait = kForever}, fn);
  auto a = batcher.submit(1), b = batcher.submit(2);
  auto c = batcher.submit(-1), d = batcher.submit(3);
  auto e = batcher.submit(4), g = batcher.submit(5);
  for (auto* f : {&a, &b, &c, &d, &e, &g}) expect_ready(*f, "every batch after a failing one");
  EXPECT_EQ(a.get(), 1);
  EXPECT_EQ(b.get(), 2);
  EXPECT_THROW(c.get(), std::runtime_error);
  EXPECT_THROW(d.get(), std::runtime_error) << "its batch-mate fails with it";
  EXPECT_EQ(e.get(), 4) << "the worker survived the exception";
  EXPECT_EQ(g.get(), 5);
}

TEST(Batcher, WrongNumberOfOutputsFailsThatBatchWithBatchError) {
  BatchFn fn = [](const std::vector<std::int64_t>& in) {
    if (in.front() == 10) return std::vector<std::int64_t>{1};  // one output for two inputs
    return in;
  };
  Batcher batcher({.max_batch_size = 2, .max_wait = kForever}, fn);
  auto a = batcher.submit(10), b = batcher.submit(11);
  auto c = batcher.submit(12), d = batcher.submit(13);
  for (auto* f : {&a, &b, &c, &d}) expect_ready(*f, "batches after a short one");
  EXPECT_THROW(a.get(), BatchError);
  EXPECT_THROW(b.get(), BatchError);
  EXPECT_EQ(c.get(), 12);
  EXPECT_EQ(d.get(), 13);
}

TEST(Batcher, TheBatchFunctionMaySubmitWithoutDeadlock) {
  // If the worker held the queue lock while running the batch function, this submit
  // would block on it forever.
  std::promise<std::future<std::int64_t>> inner;
  std::atomic<bool> submitted{false};
  Batcher* self = nullptr;
  BatchFn fn = [&](const std::vector<std::int64_t>& in) {
    if (in.front() == 1 && !submitted.exchange(true)) inner.set_value(self->submit(100));
    return in;
  };
  Batcher batcher({.max_batch_size = 1, .max_wait = kForever}, fn);
  self = &batcher;
  auto outer = batcher.submit(1);
  expect_ready(outer, "a batch whose function submits");
  auto inner_future = inner.get_future().get();
  expect_ready(inner_future, "the item submitted from inside the batch function");
  EXPECT_EQ(inner_future.get(), 100);
}

TEST(Batcher, StopFlushesQueuedItemsAndDoesNotWaitForTheTimer) {
  Recorder rec;
  auto batcher = std::make_unique<Batcher>(BatcherConfig{.max_batch_size = 100, .max_wait = kForever}, rec.fn());
  auto a = batcher->submit(1), b = batcher->submit(2), c = batcher->submit(3);
  auto stopped = std::async(std::launch::async, [&] { batcher->stop(); });
  expect_ready(stopped, "stop() with an hour-long timer pending");
  for (auto* f : {&a, &b, &c}) ASSERT_EQ(f->wait_for(0ms), std::future_status::ready);
  EXPECT_EQ(c.get(), 6);
  auto late = batcher->submit(4);
  ASSERT_EQ(late.wait_for(0ms), std::future_status::ready);
  EXPECT_THROW(late.get(), BatcherStopped);
  batcher->stop();  // idempotent
}

TEST(Batcher, ConcurrentSubmittersAllGetTheirOwnResults) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  Recorder rec;
  Batcher batcher({.max_batch_size = 16, .max_wait = 1ms}, rec.fn());
  std::latch start(kThreads);
  std::vector<std::future<bool>> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.push_back(std::async(std::launch::async, [&, t] {
      start.arrive_and_wait();
      std::vector<std::future<std::int64_t>> mine;
      for (int i = 0; i < kPerThread; ++i) mine.push_back(batcher.submit(t * kPerThread + i));
      bool ok = true;
      for (int i = 0; i < kPerThread; ++i) ok = ok && mine[i].get() == 2 * (t * kPerThread + i);
      return ok;
    }));
  }
  for (auto& w : workers) {
    expect_ready(w, "a submitting thread");
    EXPECT_TRUE(w.get());
  }
  std::size_t items = 0;
  for (const auto& batch : rec.batches()) {
    EXPECT_LE(batch.size(), 16u);
    items += batch.size();
  }
  EXPECT_EQ(items, static_cast<std::size_t>(kThreads * kPerThread));
  EXPECT_EQ(batcher.batches_dispatched(), rec.batches().size());
}

}  // namespace
}  // namespace ridge::lab
