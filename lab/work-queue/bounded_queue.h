// BoundedQueue: a fixed-capacity FIFO of tasks between producers and consumers.
//
// Contract:
// - Backpressure: push() blocks while the queue is full; try_push() never blocks and
//   answers kFull instead. Memory stays bounded by capacity however fast producers are.
// - close() is the shutdown flag. It is idempotent, and it wakes EVERY blocked producer
//   (their push returns kClosed) and EVERY blocked consumer. After close:
//   push/try_push return kClosed; pop() still returns the tasks already queued, in order,
//   and then std::nullopt. A consumer loop `while (auto t = q.pop()) (*t)();` therefore
//   drains and exits.
// - push/try_push take the task by rvalue reference and move from it only on kOk; a
//   refused task stays with the caller.
// - Every member function is thread-safe.
//
// Precondition: capacity >= 1.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

namespace ridge::lab {

using Task = std::function<void()>;

enum class PushResult { kOk, kFull, kClosed };

class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity);

  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  PushResult push(Task&& task);      // blocks while full; kOk or kClosed
  PushResult try_push(Task&& task);  // never blocks; kOk, kFull or kClosed
  std::optional<Task> pop();         // blocks while empty and open; nullopt when closed and drained
  void close();

  bool closed() const;
  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }
  // Threads blocked right now in pop() / push(): for tests and metrics (idle workers,
  // producers held back by backpressure).
  std::size_t waiting_consumers() const;
  std::size_t waiting_producers() const;

 private:
  const std::size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable not_empty_;  // consumers wait here
  std::condition_variable not_full_;   // producers wait here
  std::deque<Task> tasks_;             // guarded by mu_
  bool closed_ = false;                // guarded by mu_
  std::size_t waiting_consumers_ = 0;  // guarded by mu_
  std::size_t waiting_producers_ = 0;  // guarded by mu_
};

}  // namespace ridge::lab
