// WorkerPool: threads that run the tasks of a BoundedQueue.
//
// Contract:
// - Each worker loops `while (auto task = queue.pop()) run(*task);` and exits when the
//   queue is closed and drained.
// - A task that throws does not kill its worker: the exception is caught (std::exception
//   and anything else), counted, and reported to the failure sink with the worker's index
//   and the exception's message; the worker then takes the next task. A sink that itself
//   throws is ignored (the failure is still counted).
// - shutdown() closes the queue, lets the workers finish every task already queued, and
//   joins them. Idempotent; also run by the destructor. Call it from one thread at a time,
//   never from a task.
// - The sink is called from worker threads, possibly concurrently: it must be thread-safe.
// - completed(), failed() and live_workers() are thread-safe.
//
// Preconditions: workers >= 1; `queue` outlives the pool.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bounded_queue.h"

namespace ridge::lab {

struct TaskFailure {
  std::size_t worker;  // 0-based index of the worker that ran the task
  std::string what;    // e.what(), or "unknown exception" for a non-std exception
};

using FailureSink = std::function<void(const TaskFailure&)>;

class WorkerPool {
 public:
  WorkerPool(BoundedQueue& queue, std::size_t workers, FailureSink on_failure);
  ~WorkerPool();

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void shutdown();

  std::size_t completed() const { return completed_.load(); }  // tasks that returned normally
  std::size_t failed() const { return failed_.load(); }        // tasks that threw
  std::size_t live_workers() const { return live_.load(); }    // workers still in their loop

 private:
  void work(std::size_t index);

  BoundedQueue& queue_;
  const FailureSink on_failure_;
  std::atomic<std::size_t> completed_{0};
  std::atomic<std::size_t> failed_{0};
  std::atomic<std::size_t> live_{0};
  std::vector<std::thread> threads_;
};

}  // namespace ridge::lab
