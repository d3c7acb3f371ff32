// SpscRing: a bounded lock-free queue for exactly one producer thread and one consumer thread,
// the hand-off from an engine's scheduler loop (which must never block) to a streaming thread.
// Items are std::uint64_t (a token id or a handle): a template would add nothing to the
// ordering argument, and a .cc implementation is what `ridge lab test --impl` replaces.
//
// Contract:
// - capacity is a power of two >= 1 (anything else throws std::invalid_argument at
//   construction); the ring holds up to `capacity` items, no slot wasted: head and tail are
//   monotonically increasing 64-bit counters, size = tail - head, slot = counter & (capacity - 1).
// - try_push answers false when full; try_pop answers nullopt when empty. Neither blocks.
// - Only the producer writes tail_, only the consumer writes head_. The producer writes the slot,
//   then stores tail_ with RELEASE; the consumer loads tail_ with ACQUIRE, then reads the slot.
//   The reverse pair (consumer stores head_ with release after reading, producer loads it with
//   acquire) lets the producer reuse a slot. Each side loads its own index relaxed.
// - head_ and tail_ sit on separate cache lines, and each side caches the other's index,
//   refreshed only when the ring looks full (producer) or empty (consumer).
// - Exactly one producer and one consumer: the first thread to push becomes the producer and
//   the first to pop the consumer; a push or pop from any other thread throws std::logic_error.
//   (This catches a second producer that pushes; it cannot catch one that never runs.)
//
// What the tests can and cannot show: a two-thread stress test shows that, on this machine,
// compiler and run, every item arrived once and in order. It cannot show the memory orders are
// right: x86 keeps stores in order, so a relaxed publish passes it there (an ARM machine or a
// compiler reordering may not). ThreadSanitizer checks the happens-before the code establishes
// against the C++ memory model, for the interleavings that ran: it reports the relaxed publish
// as a data race on the slot. Neither proves the absence of a bug in interleavings never run.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

namespace ridge::lab {

class SpscRing {
 public:
  explicit SpscRing(std::size_t capacity);

  bool try_push(std::uint64_t v);       // producer thread only
  std::optional<std::uint64_t> try_pop();  // consumer thread only

  std::size_t capacity() const { return slots_.size(); }
  // Bytes between the two indices' addresses (>= the cache line when they are separated).
  std::size_t index_distance_bytes() const;

  static constexpr std::size_t kLine = 64;
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the ring's indices must be lock-free");

 private:
  void check_thread(std::atomic<std::thread::id>& owner, const char* role);

  const std::uint64_t mask_;
  std::vector<std::uint64_t> slots_;
  std::atomic<std::thread::id> producer_{};
  std::atomic<std::thread::id> consumer_{};
  alignas(kLine) std::atomic<std::uint64_t> head_{0};  // written by the consumer
  alignas(kLine) std::uint64_t tail_cache_ = 0;         // the consumer's copy of tail_
  alignas(kLine) std::atomic<std::uint64_t> tail_{0};  // written by the producer
  alignas(kLine) std::uint64_t head_cache_ = 0;         // the producer's copy of head_
};

}  // namespace ridge::lab
