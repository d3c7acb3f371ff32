#include "segment.h"

#include <cstring>

namespace ridge::lab {

namespace {

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

std::uint64_t get_varint(const std::uint8_t*& p) {
  std::uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const std::uint8_t byte = *p++;
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) return v;
  }
}

std::uint64_t zigzag(std::int64_t v) { return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63); }
std::int64_t unzigzag(std::uint64_t v) { return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1); }

void put_double(std::vector<std::uint8_t>& out, double d) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
}

double get_double(const std::uint8_t*& p) {
  std::uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits |= static_cast<std::uint64_t>(*p++) << (8 * i);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace

Segment::Segment(std::span<const Sample> samples)
    : min_time_(samples.front().time_ms), max_time_(samples.back().time_ms), count_(samples.size()) {
  bytes_.reserve(samples.size() * 10 + 16);
  put_varint(bytes_, count_);
  put_varint(bytes_, zigzag(min_time_));
  std::int64_t previous = min_time_;
  for (const Sample& s : samples) {
    put_varint(bytes_, static_cast<std::uint64_t>(s.time_ms - previous));
    put_double(bytes_, s.value);
    previous = s.time_ms;
  }
}

std::vector<Sample> Segment::decode() const {
  std::vector<Sample> out;
  scan(min_time_, max_time_, out);
  return out;
}

void Segment::scan(std::int64_t from, std::int64_t to, std::vector<Sample>& out) const {
  const std::uint8_t* p = bytes_.data();
  const std::uint64_t n = get_varint(p);
  std::int64_t t = unzigzag(get_varint(p));
  for (std::uint64_t i = 0; i < n; ++i) {
    t += static_cast<std::int64_t>(get_varint(p));
    const double v = get_double(p);
    if (t > to) return;  // sorted: nothing later can match
    if (t >= from) out.push_back({t, v});
  }
}

}  // namespace ridge::lab
