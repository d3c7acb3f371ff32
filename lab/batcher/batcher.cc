#include "batcher.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

namespace ridge::lab {

Batcher::Batcher(BatcherConfig config, BatchFn fn) : config_(config), fn_(std::move(fn)) {
  worker_ = std::thread([this] { run(); });
}

Batcher::~Batcher() { stop(); }

std::future<std::int64_t> Batcher::submit(std::int64_t input) {
  Pending p{input, {}, std::chrono::steady_clock::now()};
  std::future<std::int64_t> f = p.promise.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      p.promise.set_exception(std::make_exception_ptr(BatcherStopped()));
      return f;
    }
    queue_.push_back(std::move(p));
  }
  cv_.notify_one();
  return f;
}

void Batcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (worker_.joinable()) worker_.join();
}

std::size_t Batcher::batches_dispatched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return batches_;
}

void Batcher::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left to flush

    // The deadline belongs to the oldest item and does not move when others arrive.
    // wait_until re-checks the predicate on every wakeup, spurious or not, and returns
    // at the deadline at the latest: this is the whole timer.
    const auto deadline = queue_.front().arrival + config_.max_wait;
    cv_.wait_until(lock, deadline, [&] { return stopping_ || queue_.size() >= config_.max_batch_size; });

    const std::size_t n = std::min(queue_.size(), config_.max_batch_size);
    std::vector<Pending> batch;
    batch.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    ++batches_;

    lock.unlock();  // the batch function runs unlocked: it may be slow, and it may submit()
    dispatch(batch);
    lock.lock();
  }
}

void Batcher::dispatch(std::vector<Pending>& batch) {
  std::vector<std::int64_t> inputs;
  inputs.reserve(batch.size());
  for (const auto& p : batch) inputs.push_back(p.input);

  std::exception_ptr error;
  std::vector<std::int64_t> outputs;
  try {
    outputs = fn_(inputs);
    if (outputs.size() != inputs.size()) {
      throw BatchError("batch function returned " + std::to_string(outputs.size()) + " outputs for " +
                       std::to_string(inputs.size()) + " inputs");
    }
  } catch (...) {
    error = std::current_exception();  // fails this batch's callers only
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (error) {
      batch[i].promise.set_exception(error);
    } else {
      batch[i].promise.set_value(outputs[i]);
    }
  }
}

}  // namespace ridge::lab
