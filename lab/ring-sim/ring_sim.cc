#include "ring_sim.h"

#include <barrier>
#include <stdexcept>
#include <thread>

namespace ridge::lab {

namespace {

void validate(const RankBuffers& data) {
  if (data.empty()) throw std::invalid_argument("ring_allreduce: no ranks");
  for (const auto& b : data) {
    if (b.size() != data[0].size()) throw std::invalid_argument("ring_allreduce: buffers of different lengths");
  }
}

std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

// The chunk rank r sends at step s of a phase (0: reduce-scatter, 1: all-gather).
std::size_t chunk_sent(std::size_t n, std::size_t r, std::size_t s, int phase) {
  return (r + n - s + (phase == 1 ? 1 : 0)) % n;
}

// Rank r's send at one step: into its successor's buffer, adding or overwriting.
void send_step(RankBuffers& data, std::size_t elem_bytes, std::size_t r, std::size_t s, int phase,
               std::uint64_t& bytes) {
  const std::size_t n = data.size(), S = data[0].size();
  const std::size_t c = chunk_sent(n, r, s, phase);
  const std::size_t to = (r + 1) % n;
  const std::size_t b = chunk_begin(S, n, c), e = chunk_begin(S, n, c + 1);
  for (std::size_t i = b; i < e; ++i) {
    data[to][i] = phase == 0 ? wrapping_add(data[to][i], data[r][i]) : data[r][i];
  }
  bytes += (e - b) * elem_bytes;
}

}  // namespace

std::size_t chunk_begin(std::size_t S, std::size_t n, std::size_t c) {
  const std::size_t base = S / n, extra = S % n;
  return c * base + (c < extra ? c : extra);
}

RingStats ring_allreduce(RankBuffers& data, std::size_t elem_bytes) {
  validate(data);
  const std::size_t n = data.size();
  RingStats st;
  st.bytes_sent.assign(n, 0);
  for (int phase = 0; phase < 2; ++phase) {
    for (std::size_t s = 0; s + 1 < n; ++s, ++st.steps) {
      for (std::size_t r = 0; r < n; ++r) send_step(data, elem_bytes, r, s, phase, st.bytes_sent[r]);
    }
  }
  return st;
}

RingStats ring_allreduce_threaded(RankBuffers& data, std::size_t elem_bytes) {
  validate(data);
  const std::size_t n = data.size();
  RingStats st;
  st.bytes_sent.assign(n, 0);
  st.steps = 2 * static_cast<int>(n - 1);
  std::barrier step_done(static_cast<std::ptrdiff_t>(n));
  std::vector<std::thread> ranks;
  ranks.reserve(n);
  for (std::size_t r = 0; r < n; ++r) {
    ranks.emplace_back([&, r] {
      for (int phase = 0; phase < 2; ++phase) {
        for (std::size_t s = 0; s + 1 < n; ++s) {
          send_step(data, elem_bytes, r, s, phase, st.bytes_sent[r]);
          step_done.arrive_and_wait();  // nobody reads step s + 1's chunk before it is written
        }
      }
    });
  }
  for (auto& t : ranks) t.join();
  return st;
}

double ring_bytes_per_rank(std::size_t n, std::size_t S, std::size_t elem_bytes) {
  return 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * static_cast<double>(S) *
         static_cast<double>(elem_bytes);
}

}  // namespace ridge::lab
