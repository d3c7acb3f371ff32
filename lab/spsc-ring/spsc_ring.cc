#include "spsc_ring.h"

#include <stdexcept>
#include <string>

namespace ridge::lab {

SpscRing::SpscRing(std::size_t capacity) : mask_(capacity - 1) {
  if (capacity == 0 || (capacity & (capacity - 1)) != 0) {
    throw std::invalid_argument("capacity = " + std::to_string(capacity) +
                                ": must be a power of two (the slot is counter & (capacity - 1))");
  }
  slots_.assign(capacity, 0);
}

void SpscRing::check_thread(std::atomic<std::thread::id>& owner, const char* role) {
  const std::thread::id me = std::this_thread::get_id();
  std::thread::id none{};
  if (owner.load(std::memory_order_relaxed) == me) return;
  if (owner.compare_exchange_strong(none, me, std::memory_order_relaxed)) return;  // the first caller
  throw std::logic_error(std::string("SpscRing: a second ") + role + " thread; use an MPMC queue");
}

bool SpscRing::try_push(std::uint64_t v) {
  check_thread(producer_, "producer");
  const std::uint64_t t = tail_.load(std::memory_order_relaxed);  // only we write it
  if (t - head_cache_ == slots_.size()) {                         // looks full: refresh
    head_cache_ = head_.load(std::memory_order_acquire);
    if (t - head_cache_ == slots_.size()) return false;
  }
  slots_[t & mask_] = v;
  tail_.store(t + 1, std::memory_order_release);  // publish: the slot write happens-before this
  return true;
}

std::optional<std::uint64_t> SpscRing::try_pop() {
  check_thread(consumer_, "consumer");
  const std::uint64_t h = head_.load(std::memory_order_relaxed);  // only we write it
  if (h == tail_cache_) {                                         // looks empty: refresh
    tail_cache_ = tail_.load(std::memory_order_acquire);
    if (h == tail_cache_) return std::nullopt;
  }
  const std::uint64_t v = slots_[h & mask_];
  head_.store(h + 1, std::memory_order_release);  // the slot may now be reused by the producer
  return v;
}

std::size_t SpscRing::index_distance_bytes() const {
  const auto a = reinterpret_cast<std::uintptr_t>(&head_), b = reinterpret_cast<std::uintptr_t>(&tail_);
  return a > b ? a - b : b - a;
}

}  // namespace ridge::lab
