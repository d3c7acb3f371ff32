#include "bounded_queue.h"

#include <utility>

namespace ridge::lab {

BoundedQueue::BoundedQueue(std::size_t capacity) : capacity_(capacity) {}

PushResult BoundedQueue::push(Task&& task) {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiting_producers_;
  not_full_.wait(lock, [&] { return closed_ || tasks_.size() < capacity_; });
  --waiting_producers_;
  if (closed_) return PushResult::kClosed;
  tasks_.push_back(std::move(task));
  lock.unlock();
  not_empty_.notify_one();
  return PushResult::kOk;
}

PushResult BoundedQueue::try_push(Task&& task) {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return PushResult::kClosed;
  if (tasks_.size() >= capacity_) return PushResult::kFull;
  tasks_.push_back(std::move(task));
  lock.unlock();
  not_empty_.notify_one();
  return PushResult::kOk;
}

std::optional<Task> BoundedQueue::pop() {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiting_consumers_;
  not_empty_.wait(lock, [&] { return closed_ || !tasks_.empty(); });
  --waiting_consumers_;
  if (tasks_.empty()) return std::nullopt;  // closed and drained
  Task task = std::move(tasks_.front());
  tasks_.pop_front();
  lock.unlock();
  not_full_.notify_one();
  return task;
}

void BoundedQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  // notify_all, not notify_one: every blocked thread must see the flag.
  not_empty_.notify_all();
  not_full_.notify_all();
}

bool BoundedQueue::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

std::size_t BoundedQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tasks_.size();
}

std::size_t BoundedQueue::waiting_consumers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_consumers_;
}

std::size_t BoundedQueue::waiting_producers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_producers_;
}

}  // namespace ridge::lab
