#include "bounded_queue.h"

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/bounded_wait.h"

namespace ridge::lab {
namespace {

using namespace std::chrono_literals;

Task noop() {
  return [] {};
}

TEST(BoundedQueue, TryPushFailsWhenFullAndKeepsTheTask) {
  BoundedQueue q(2);
  EXPECT_EQ(q.try_push(noop()), PushResult::kOk);
  EXPECT_EQ(q.try_push(noop()), PushResult::kOk);
  bool ran = false;
  Task refused = [&] { ran = true; };
  EXPECT_EQ(q.try_push(std::move(refused)), PushResult::kFull);
  EXPECT_EQ(q.size(), 2u) << "a full queue must not grow";
  ASSERT_TRUE(refused) << "a refused task stays with the caller";
  refused();
  EXPECT_TRUE(ran);
}

TEST(BoundedQueue, PushBlocksWhileFullUntilAConsumerMakesRoom) {
  BoundedQueue q(1);
  ASSERT_EQ(q.push(noop()), PushResult::kOk);
  auto producer = std::async(std::launch::async, [&] { return q.push(noop()); });
  expect_eventually([&] { return q.waiting_producers() == 1; }, "the producer blocking on a full queue");
  EXPECT_EQ(producer.wait_for(0ms), std::future_status::timeout) << "push returned while the queue was full";
  ASSERT_TRUE(q.pop().has_value());
  expect_ready(producer, "the producer after a pop made room");
  EXPECT_EQ(producer.get(), PushResult::kOk);
  EXPECT_EQ(q.size(), 1u);
}

TEST(BoundedQueue, CloseWakesEveryBlockedConsumer) {
  // With notify_one instead of notify_all, one consumer wakes and three sleep forever.
  constexpr int kConsumers = 4;
  BoundedQueue q(8);
  std::vector<std::future<bool>> consumers;
  for (int i = 0; i < kConsumers; ++i) {
    consumers.push_back(std::async(std::launch::async, [&] { return q.pop().has_value(); }));
  }
  expect_eventually([&] { return q.waiting_consumers() == kConsumers; }, "four consumers blocking in pop()");
  q.close();
  for (auto& c : consumers) {
    expect_ready(c, "a consumer blocked in pop() when the queue closed");
    EXPECT_FALSE(c.get());
  }
}

TEST(BoundedQueue, CloseWakesBlockedProducersWithClosed) {
  BoundedQueue q(1);
  ASSERT_EQ(q.push(noop()), PushResult::kOk);
  std::vector<std::future<PushResult>> producers;
  for (int i = 0; i < 3; ++i) producers.push_back(std::async(std::launch::async, [&] { return q.push(noop()); }));
  expect_eventually([&] { return q.waiting_producers() == 3; }, "three producers blocking on a full queue");
  q.close();
  for (auto& p : producers) {
    expect_ready(p, "a producer blocked in push() when the queue closed");
    EXPECT_EQ(p.get(), PushResult::kClosed);
  }
  EXPECT_EQ(q.size(), 1u);
}

TEST(BoundedQueue, CloseDrainsWhatIsQueuedThenReportsTheEnd) {
  BoundedQueue q(4);
  std::vector<int> order;
  for (int i = 0; i < 3; ++i) ASSERT_EQ(q.push([&order, i] { order.push_back(i); }), PushResult::kOk);
  q.close();
  q.close();  // idempotent
  EXPECT_EQ(q.try_push(noop()), PushResult::kClosed);
  EXPECT_EQ(q.push(noop()), PushResult::kClosed);
  while (auto t = q.pop()) (*t)();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2})) << "queued tasks run, in FIFO order, after close";
  EXPECT_FALSE(q.pop().has_value());
}

TEST(BoundedQueue, ManyProducersAndConsumersDeliverEveryTaskExactlyOnce) {
  constexpr int kProducers = 4, kConsumers = 4, kPerProducer = 5000;
  BoundedQueue q(16);
  std::vector<std::atomic<int>> runs(kProducers * kPerProducer);
  std::vector<std::future<void>> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.push_back(std::async(std::launch::async, [&] {
      while (auto t = q.pop()) (*t)();
    }));
  }
  std::latch start(kProducers);
  std::vector<std::future<void>> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.push_back(std::async(std::launch::async, [&, p] {
      start.arrive_and_wait();
      for (int i = 0; i < kPerProducer; ++i) {
        const int id = p * kPerProducer + i;
        ASSERT_EQ(q.push([&runs, id] { ++runs[id]; }), PushResult::kOk);
      }
    }));
  }
  for (auto& p : producers) expect_ready(p, "a producer");
  q.close();
  for (auto& c : consumers) expect_ready(c, "a consumer draining after close");
  for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
}

}  // namespace
}  // namespace ridge::lab
