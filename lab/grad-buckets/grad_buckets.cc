#include "grad_buckets.h"

#include <algorithm>
#include <stdexcept>

namespace ridge::lab {

std::vector<Bucket> assign_buckets(const std::vector<Param>& params, std::uint64_t cap, bool reverse) {
  std::vector<Bucket> buckets;
  auto add = [&](int i) {
    if (buckets.empty() || buckets.back().bytes >= cap) buckets.emplace_back();  // the last one is full
    buckets.back().params.push_back(i);
    buckets.back().bytes += params[static_cast<std::size_t>(i)].bytes;
  };
  const int n = static_cast<int>(params.size());
  const bool walk_reverse = reverse;
  if (walk_reverse) {
    for (int i = n - 1; i >= 0; --i) add(i);  // the order backward produces gradients
  } else {
    for (int i = 0; i < n; ++i) add(i);
  }
  return buckets;
}

double allreduce_ms(std::uint64_t bytes, int ranks, double busbw_bytes_per_ms, double latency_ms) {
  if (ranks < 1) throw std::invalid_argument("ranks = " + std::to_string(ranks) + ": must be >= 1");
  if (!(busbw_bytes_per_ms > 0)) {
    throw std::invalid_argument("busbw = " + std::to_string(busbw_bytes_per_ms) + " bytes/ms: must be > 0");
  }
  if (!(latency_ms >= 0)) throw std::invalid_argument("latency = " + std::to_string(latency_ms) + " ms: must be >= 0");
  return latency_ms + 2.0 * (ranks - 1) / ranks * static_cast<double>(bytes) / busbw_bytes_per_ms;
}

Plan simulate(const std::vector<Param>& params, std::uint64_t cap, bool reverse, double backward_end_ms, int ranks,
              double busbw_bytes_per_ms, double latency_ms, bool find_unused) {
  for (const Param& p : params) {
    if (!(p.ready_ms >= 0)) {
      throw std::invalid_argument("param '" + p.name + "': ready_ms = " + std::to_string(p.ready_ms) + ": must be >= 0");
    }
    if (!p.used && !find_unused) {
      throw std::invalid_argument("param '" + p.name +
                                  "' never gets a gradient: its bucket would wait forever (set find_unused, or remove it)");
    }
  }
  const auto buckets = assign_buckets(params, cap, reverse);
  Plan plan;
  plan.buckets = static_cast<int>(buckets.size());
  double stream_free = 0;
  for (const Bucket& b : buckets) {
    double ready = 0;
    for (int i : b.params) {
      const Param& p = params[static_cast<std::size_t>(i)];
      ready = std::max(ready, p.used ? p.ready_ms : 0.0);  // unused: marked ready after forward
    }
    const double t = allreduce_ms(b.bytes, ranks, busbw_bytes_per_ms, latency_ms);
    stream_free = std::max(stream_free, ready) + t;  // one stream, in bucket order
    plan.comm_ms += t;
    plan.last_bucket_ms = t;
  }
  plan.exposed_ms = std::max(0.0, stream_free - backward_end_ms);
  return plan;
}

}  // namespace ridge::lab
