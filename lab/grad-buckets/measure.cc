// Figures for gradient bucketing: a 24-layer model's bf16 gradients on 64 ranks, five
// bucketing choices at two bus bandwidths (the question's table): buckets, communication time,
// and the communication backward could not hide.
#include <cstdint>
#include <string>
#include <vector>

#include "common/report.h"
#include "grad_buckets.h"

int main(int argc, char** argv) {
  using namespace ridge::lab;
  Report report("grad-buckets", "DDP gradient bucketing: exposed communication by bucket size, order and link");
  const auto params = transformer_params(24, 2048, 8192, 50'000, 2, 3.0);
  const double backward_end = 3.0 * 25;
  std::uint64_t total = 0;
  for (const auto& p : params) total += p.bytes;
  report.note("24 layers, hidden 2,048, MLP 8,192, 50,000-token embedding, bf16 gradients; 3 ms of backward per "
              "layer and 30 us per all-reduce (assumed); 64 ranks");
  report.add("tensors", static_cast<std::int64_t>(params.size()), "", "tensors");
  report.add("gradient_bytes", static_cast<std::int64_t>(total), "B", "gradient bytes");
  report.add("backward_ms", backward_end, "ms", "backward", 1);
  const std::uint64_t MiB = 1 << 20;
  struct Row {
    const char* key;
    std::uint64_t cap;
    bool reverse;
  };
  const Row rows[] = {{"per_tensor", 0, true},
                      {"cap_25MiB_reverse", 25 * MiB, true},
                      {"cap_100MiB_reverse", 100 * MiB, true},
                      {"one_bucket", total, true},
                      {"cap_25MiB_forward_bug", 25 * MiB, false}};
  for (double gbps : {80.0, 25.0}) {
    const std::string link = "busbw_" + std::to_string(static_cast<int>(gbps)) + "GBps";
    report.section("bus bandwidth " + std::to_string(static_cast<int>(gbps)) + " GB/s");
    for (const Row& r : rows) {
      const Plan p = simulate(params, r.cap, r.reverse, backward_end, 64, gbps * 1e9 / 1e3, 0.030);
      const std::string k = link + "/" + r.key + "/";
      report.add(k + "buckets", static_cast<std::int64_t>(p.buckets), "", std::string(r.key) + ": buckets");
      report.add(k + "comm_ms", p.comm_ms, "ms", "communication", 1);
      report.add(k + "exposed_ms", p.exposed_ms, "ms", "exposed after backward", 1);
    }
  }
  return report.print(argc, argv);
}
