#include "worker_pool.h"

#include <exception>
#include <utility>

namespace ridge::lab {

WorkerPool::WorkerPool(BoundedQueue& queue, std::size_t workers, FailureSink on_failure)
    : queue_(queue), on_failure_(std::move(on_failure)) {
  live_ = workers;
  threads_.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this, i] { work(i); });
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::shutdown() {
  queue_.close();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void WorkerPool::work(std::size_t index) {
  while (auto task = queue_.pop()) {
    TaskFailure failure{index, {}};
    try {
      (*task)();
      ++completed_;
      continue;
    } catch (const std::exception& e) {
      failure.what = e.what();
    } catch (...) {
      failure.what = "unknown exception";
    }
    // An exception escaping here would call std::terminate; one swallowed without a
    // trace would hide the bug. Count it, report it, keep the worker.
    ++failed_;
    try {
      if (on_failure_) on_failure_(failure);
    } catch (...) {
    }
  }
  --live_;
}

}  // namespace ridge::lab
