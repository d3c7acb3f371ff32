// The access log's own path to its descriptor (issue 30: through spdlog's queue the access log
// cost the server 26% of its requests per second on a 24.5 KB page, against 4% for nginx's
// `access_log ... buffer=64k`: a mutex and a condition variable per line on the request's
// thread, then one write(2) per line on the logger's thread).
//
// Each thread appends its lines to a buffer of its own (a lock no other thread takes but the
// flusher, five times a second). A buffer past 64 KiB is handed to the flusher thread, which
// writes it with one write(2); every 200 ms the flusher also takes what waits in each buffer.
// A request's thread never writes to the descriptor, so a slow reader of stderr (a full pipe)
// never stalls requests: past 4 MiB waiting, the oldest batch is dropped and the drop is
// counted in the log. A thread's lines stay in their order; lines of different threads
// interleave by batch (each line carries its time).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ridge::web::log {

class AccessBuffers {
 public:
  static constexpr size_t kBatchBytes = 64 * 1024;
  static constexpr size_t kMaxWaitingBytes = 4 * 1024 * 1024;
  static constexpr int kFlushEveryMs = 200;

  explicit AccessBuffers(int fd);
  ~AccessBuffers() { stop(); }
  // Writes everything still buffered and stops the flusher; later lines are written as they
  // come (a logger replaced while a request's thread still holds it).
  void stop();
  AccessBuffers(const AccessBuffers&) = delete;
  AccessBuffers& operator=(const AccessBuffers&) = delete;

  // The calling thread's buffer, to append one or more whole lines to, then release().
  std::string& acquire();
  void release();
  // Writes every thread's buffered lines now (tests, shutdown).
  void flush();
  // Lines dropped because the descriptor did not keep up (the batches' newline count).
  uint64_t dropped_lines() const { return dropped_lines_.load(std::memory_order_relaxed); }

 private:
  struct PerThread {
    std::mutex mutex;
    std::string data;
  };
  PerThread& mine();
  void hand_over(std::string& data);  // caller holds the thread's mutex
  void sweep();                       // every thread's waiting lines into the queue
  void write_waiting();
  void run();

  int fd_;
  uint64_t generation_;
  std::mutex threads_mutex_;
  std::vector<std::unique_ptr<PerThread>> threads_;
  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::deque<std::string> queue_;
  size_t queued_bytes_ = 0;
  bool stopping_ = false;
  std::atomic<bool> stopped_{false};
  std::mutex write_mutex_;  // one writer at a time: the flusher, or flush()
  std::atomic<uint64_t> dropped_lines_{0};
  uint64_t reported_drops_ = 0;  // under write_mutex_
  std::thread flusher_;
};

}  // namespace ridge::web::log
