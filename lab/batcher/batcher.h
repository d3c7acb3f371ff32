// Batcher: a dynamic batching queue for an inference server. Callers submit one input and
// get a future; a worker thread groups queued inputs into batches and runs the batch
// function once per batch.
//
// Contract:
// - One shared FIFO queue, one worker thread. A batch is dispatched when either trigger
//   fires: the queue holds max_batch_size items (size trigger), or the OLDEST queued item
//   has waited max_wait (time trigger). New arrivals never push the deadline back, so a
//   steady trickle cannot starve the first item.
// - A batch holds at most max_batch_size items, in submission order.
// - The timer is the worker's own bounded wait on the queue's condition variable: there
//   is no separate timer thread to cancel, and the batch function runs with no lock held,
//   so it may call submit() (it must not wait on the futures it creates: one worker).
// - The batch function returns one output per input, in order. If it throws, or returns
//   the wrong number of outputs, every future of THAT batch holds the exception (a
//   BatchError for a size mismatch); other batches and the worker are unaffected.
// - stop() (also run by the destructor) refuses new submissions, dispatches everything
//   already queued without waiting for either trigger, and joins the worker. It is
//   idempotent and must not be called from inside the batch function.
// - submit() after stop() returns a future holding BatcherStopped.
// - submit() and stop() are thread-safe.
//
// Preconditions: max_batch_size >= 1, max_wait >= 0, fn callable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ridge::lab {

struct BatcherConfig {
  std::size_t max_batch_size = 32;
  std::chrono::microseconds max_wait{5000};
};

using BatchFn = std::function<std::vector<std::int64_t>(const std::vector<std::int64_t>&)>;

class BatcherStopped : public std::runtime_error {
 public:
  BatcherStopped() : std::runtime_error("batcher stopped: submission refused") {}
};

class BatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Batcher {
 public:
  Batcher(BatcherConfig config, BatchFn fn);
  ~Batcher();

  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  std::future<std::int64_t> submit(std::int64_t input);
  void stop();

  // Batches dispatched so far (for tests and metrics).
  std::size_t batches_dispatched() const;

 private:
  struct Pending {
    std::int64_t input;
    std::promise<std::int64_t> promise;
    std::chrono::steady_clock::time_point arrival;
  };

  void run();
  void dispatch(std::vector<Pending>& batch);

  const BatcherConfig config_;
  const BatchFn fn_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;       // guarded by mu_
  bool stopping_ = false;           // guarded by mu_
  std::size_t batches_ = 0;         // guarded by mu_
  std::thread worker_;              // started last, after every member above exists
};

}  // namespace ridge::lab
