// DDP-style gradient bucketing: group parameters into buckets, launch each bucket's all-reduce
// when its last gradient is ready, and compute how much communication the backward pass hides.
//
// Contract:
// - params come in registration (forward) order. Backward produces gradients in roughly the
//   reverse order, so assign_buckets walks them in REVERSE (reverse = false is the forward-order
//   bug, kept for the comparison) and closes a bucket once it holds at least `cap` bytes: the
//   parameter that reaches the cap stays in it, a parameter larger than cap ends up alone, and
//   cap 0 gives one bucket per parameter. Buckets depend only on the parameters' order and
//   sizes, never on timing, so every rank builds the same buckets (a mismatch hangs).
// - A bucket's all-reduce starts when its last gradient is ready and after the previous
//   bucket's finished: one communication stream, launched in bucket order.
// - allreduce_ms(b) = latency + 2 (n - 1) / n × b / busbw (ring all-reduce); 0 bytes cost the
//   latency alone.
// - exposed_ms = how long the step waits after backward ends for the last all-reduce (>= 0).
// - A parameter with used == false never gets a gradient: its bucket would wait forever.
//   simulate throws std::invalid_argument naming it, unless find_unused is set, in which case
//   it counts as ready at time 0 (DDP marks unused parameters ready after the forward pass).
// - Bad input (ranks < 1, busbw <= 0, latency < 0, a negative ready time) throws
//   std::invalid_argument. Pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge::lab {

struct Param {
  std::string name;
  std::uint64_t bytes = 0;
  double ready_ms = 0;  // when backward produces its gradient
  bool used = true;
};

struct Bucket {
  std::vector<int> params;  // indices into the params, in the order added
  std::uint64_t bytes = 0;
};

struct Plan {
  int buckets = 0;
  double comm_ms = 0;     // sum of the all-reduce times
  double exposed_ms = 0;  // waited after backward ends
  double last_bucket_ms = 0;
};

std::vector<Bucket> assign_buckets(const std::vector<Param>& params, std::uint64_t cap, bool reverse = true);

double allreduce_ms(std::uint64_t bytes, int ranks, double busbw_bytes_per_ms, double latency_ms);

Plan simulate(const std::vector<Param>& params, std::uint64_t cap, bool reverse, double backward_end_ms, int ranks,
              double busbw_bytes_per_ms, double latency_ms, bool find_unused = false);

// The question's model: `layers` transformer layers (ln1, q, k, v, o, ln2, up, down) of hidden
// h and MLP f, registered after a vocab × h embedding, `bytes` per element. Backward takes
// layer_ms per layer from the last layer to the first; the embedding's gradient is ready last,
// at layer_ms × (layers + 1), which is the backward's end.
inline std::vector<Param> transformer_params(int layers, std::uint64_t h, std::uint64_t f, std::uint64_t vocab,
                                             std::uint64_t bytes, double layer_ms) {
  std::vector<Param> params;
  params.push_back({"embed", vocab * h * bytes, layer_ms * (layers + 1)});
  for (int l = 0; l < layers; ++l) {
    const double ready = layer_ms * (layers - l);  // the last layer finishes first
    const std::string p = "l" + std::to_string(l) + ".";
    params.push_back({p + "ln1", h * bytes, ready});
    for (const char* n : {"q", "k", "v", "o"}) params.push_back({p + n, h * h * bytes, ready});
    params.push_back({p + "ln2", h * bytes, ready});
    params.push_back({p + "up", h * f * bytes, ready});
    params.push_back({p + "down", f * h * bytes, ready});
  }
  return params;
}

}  // namespace ridge::lab
