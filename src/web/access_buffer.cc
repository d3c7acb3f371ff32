#include "web/access_buffer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace ridge::web::log {
namespace {

std::atomic<uint64_t> next_generation{1};

// write(2) until done; false when the descriptor refuses (the lines are then lost: a log
// never stalls the server).
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

AccessBuffers::AccessBuffers(int fd) : fd_(fd), generation_(next_generation.fetch_add(1)) {
  flusher_ = std::thread([this] { run(); });
}

void AccessBuffers::stop() {
  if (stopped_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    stopping_ = true;
  }
  queue_cv_.notify_one();
  if (flusher_.joinable()) flusher_.join();
  flush();
}

AccessBuffers::PerThread& AccessBuffers::mine() {
  // One buffer per thread per logger: the generation tells a buffer of a replaced logger.
  thread_local uint64_t generation = 0;
  thread_local PerThread* buffer = nullptr;
  if (generation != generation_) {
    auto made = std::make_unique<PerThread>();
    made->data.reserve(kBatchBytes + 512);
    buffer = made.get();
    std::lock_guard<std::mutex> lock(threads_mutex_);
    threads_.push_back(std::move(made));
    generation = generation_;
  }
  return *buffer;
}

std::string& AccessBuffers::acquire() {
  PerThread& t = mine();
  t.mutex.lock();
  return t.data;
}

void AccessBuffers::release() {
  PerThread& t = mine();
  if (t.data.size() >= kBatchBytes || stopped_.load(std::memory_order_relaxed)) hand_over(t.data);
  t.mutex.unlock();
  if (stopped_.load(std::memory_order_relaxed)) write_waiting();
}

void AccessBuffers::hand_over(std::string& data) {
  if (data.empty()) return;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    queued_bytes_ += data.size();
    queue_.push_back(std::move(data));
    // The descriptor is not keeping up: drop the oldest batches, and say so.
    while (queued_bytes_ > kMaxWaitingBytes && queue_.size() > 1) {
      const std::string& oldest = queue_.front();
      dropped_lines_.fetch_add(static_cast<uint64_t>(std::count(oldest.begin(), oldest.end(), '\n')),
                               std::memory_order_relaxed);
      queued_bytes_ -= oldest.size();
      queue_.pop_front();
    }
    wake = queue_.size() == 1;
  }
  data = std::string();
  data.reserve(kBatchBytes + 512);
  if (wake) queue_cv_.notify_one();
}

void AccessBuffers::sweep() {
  std::vector<PerThread*> all;
  {
    std::lock_guard<std::mutex> lock(threads_mutex_);
    for (auto& t : threads_) all.push_back(t.get());
  }
  for (PerThread* t : all) {
    std::lock_guard<std::mutex> lock(t->mutex);
    hand_over(t->data);
  }
}

void AccessBuffers::write_waiting() {
  std::lock_guard<std::mutex> writing(write_mutex_);
  std::deque<std::string> batches;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    batches.swap(queue_);
    queued_bytes_ = 0;
  }
  const uint64_t drops = dropped_lines_.load(std::memory_order_relaxed);
  if (drops != reported_drops_) {
    write_all(fd_, "ridge: " + std::to_string(drops - reported_drops_) +
                       " access-log lines dropped: the log's reader did not keep up\n");
    reported_drops_ = drops;
  }
  for (const std::string& b : batches) write_all(fd_, b);
}

void AccessBuffers::flush() {
  sweep();
  write_waiting();
}

void AccessBuffers::run() {
  const auto every = std::chrono::milliseconds(kFlushEveryMs);
  auto next_sweep = std::chrono::steady_clock::now() + every;
  for (;;) {
    bool stop = false;
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_cv_.wait_until(lock, next_sweep, [this] { return stopping_ || !queue_.empty(); });
      stop = stopping_;
    }
    if (stop) return;  // stop() writes what is left
    if (std::chrono::steady_clock::now() >= next_sweep) {
      sweep();
      next_sweep = std::chrono::steady_clock::now() + every;
    }
    write_waiting();
  }
}

}  // namespace ridge::web::log
