#include "worker_pool.h"

#include <atomic>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/bounded_wait.h"

namespace ridge::lab {
namespace {

class FailureLog {
 public:
  FailureSink sink() {
    return [this](const TaskFailure& f) {
      std::lock_guard<std::mutex> lock(mu_);
      failures_.push_back(f);
    };
  }
  std::vector<TaskFailure> failures() const {
    std::lock_guard<std::mutex> lock(mu_);
    return failures_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<TaskFailure> failures_;
};

TEST(WorkerPool, AThrowingTaskIsReportedAndTheWorkerKeepsWorking) {
  // One worker: if the exception killed it (or ended its loop), the ten tasks after the
  // throwing one would never run.
  BoundedQueue q(64);
  FailureLog log;
  std::atomic<int> ran{0};
  {
    WorkerPool pool(q, 1, log.sink());
    ASSERT_EQ(q.push([] { throw std::runtime_error("boom"); }), PushResult::kOk);
    for (int i = 0; i < 10; ++i) ASSERT_EQ(q.push([&] { ++ran; }), PushResult::kOk);
    auto stopped = std::async(std::launch::async, [&] { pool.shutdown(); });
    expect_ready(stopped, "shutdown after a throwing task");
    EXPECT_EQ(pool.completed(), 10u);
    EXPECT_EQ(pool.failed(), 1u);
  }
  EXPECT_EQ(ran.load(), 10);
  const auto failures = log.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].what, "boom");
  EXPECT_EQ(failures[0].worker, 0u);
}

TEST(WorkerPool, NonStandardExceptionsAndAThrowingSinkAreSurvivedToo) {
  BoundedQueue q(64);
  std::atomic<int> ran{0};
  std::atomic<int> reported{0};
  std::string last;
  std::mutex mu;
  WorkerPool pool(q, 2, [&](const TaskFailure& f) {
    {
      std::lock_guard<std::mutex> lock(mu);
      last = f.what;
    }
    ++reported;
    throw std::logic_error("the sink itself throws");
  });
  ASSERT_EQ(q.push([] { throw 42; }), PushResult::kOk);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(q.push([&] { ++ran; }), PushResult::kOk);
  auto stopped = std::async(std::launch::async, [&] { pool.shutdown(); });
  expect_ready(stopped, "shutdown after a non-std exception");
  EXPECT_EQ(ran.load(), 20);
  EXPECT_EQ(reported.load(), 1);
  EXPECT_EQ(last, "unknown exception");
  EXPECT_EQ(pool.failed(), 1u);
}

TEST(WorkerPool, WorkersStayAliveThroughFailuresAndExitOnShutdown) {
  BoundedQueue q(8);
  FailureLog log;
  WorkerPool pool(q, 3, log.sink());
  EXPECT_EQ(pool.live_workers(), 3u);
  for (int i = 0; i < 30; ++i) ASSERT_EQ(q.push([] { throw std::runtime_error("every task fails"); }), PushResult::kOk);
  expect_eventually([&] { return pool.failed() == 30; }, "thirty failing tasks to be reported");
  EXPECT_EQ(pool.live_workers(), 3u) << "a failure ended a worker's loop";
  auto stopped = std::async(std::launch::async, [&] { pool.shutdown(); });
  expect_ready(stopped, "shutdown");
  EXPECT_EQ(pool.live_workers(), 0u);
  EXPECT_EQ(log.failures().size(), 30u);
}

TEST(WorkerPool, ShutdownRunsEveryAcceptedTaskAndWakesIdleWorkers) {
  BoundedQueue q(4);
  std::atomic<int> ran{0};
  WorkerPool pool(q, 4, nullptr);
  // Workers idle in pop(): shutdown must wake them all or join() waits forever.
  expect_eventually([&] { return q.waiting_consumers() == 4; }, "four idle workers");
  for (int i = 0; i < 100; ++i) ASSERT_EQ(q.push([&] { ++ran; }), PushResult::kOk);
  auto stopped = std::async(std::launch::async, [&] { pool.shutdown(); });
  expect_ready(stopped, "shutdown with idle workers");
  EXPECT_EQ(ran.load(), 100);
  EXPECT_EQ(pool.completed(), 100u);
  pool.shutdown();  // idempotent
}

}  // namespace
}  // namespace ridge::lab
