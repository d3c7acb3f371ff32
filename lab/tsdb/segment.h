// Segment: a sealed, immutable run of samples of one series, encoded to bytes.
//
// Contract:
// - Built once from samples in non-decreasing time order; never modified afterwards.
//   bytes() is the encoded form a store would write to disk, and stays byte-for-byte the
//   same for the segment's lifetime.
// - min_time() and max_time() are the segment's entry in the store's sparse index.
// - Encoding (little-endian, portable): varint count, zigzag varint of the first time,
//   then per sample the time delta from the previous sample as a varint (0 for the first)
//   followed by the value's IEEE-754 bits as 8 bytes.
// - Const members are safe to call concurrently.
//
// Precondition: samples non-empty and sorted by time (equal times allowed).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ridge::lab {

struct Sample {
  std::int64_t time_ms;
  double value;
  bool operator==(const Sample&) const = default;
};

class Segment {
 public:
  explicit Segment(std::span<const Sample> samples);

  std::int64_t min_time() const { return min_time_; }
  std::int64_t max_time() const { return max_time_; }
  std::size_t count() const { return count_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

  std::vector<Sample> decode() const;
  // Appends to `out` the samples with from <= time <= to, in time order.
  void scan(std::int64_t from, std::int64_t to, std::vector<Sample>& out) const;

 private:
  std::int64_t min_time_;
  std::int64_t max_time_;
  std::size_t count_;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace ridge::lab
