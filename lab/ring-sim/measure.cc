// Ring all-reduce figures: bytes each rank sends against 2(n-1)/n of the buffer (counted by
// the simulator, exact), the spread when n does not divide S, and the simulator's time.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/report.h"
#include "ring_sim.h"

namespace {

using ridge::lab::RankBuffers;

RankBuffers inputs(std::size_t n, std::size_t S) {
  RankBuffers d(n, std::vector<std::int64_t>(S));
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < S; ++i) d[r][i] = static_cast<std::int64_t>(r * 1'000'003 + i * 7 + 1);
  return d;
}

bool all_equal(const RankBuffers& d) {
  return std::all_of(d.begin(), d.end(), [&](const auto& b) { return b == d[0]; });
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("ring-sim", "ring all-reduce: bytes per rank against 2(n-1)/n of the buffer");

  report.section("1,000,000 float32 elements (4,000,000 B), counted by the simulator");
  for (std::size_t n : {2u, 4u, 8u, 16u}) {
    auto d = inputs(n, 1'000'000);
    const auto st = ridge::lab::ring_allreduce(d, 4);
    const std::string k = "n_" + std::to_string(n);
    report.add(k + "/bytes_per_rank", static_cast<std::int64_t>(st.bytes_sent[0]), "B",
               "n=" + std::to_string(n) + " bytes sent by rank 0");
    report.add(k + "/factor", static_cast<double>(st.bytes_sent[0]) / 4'000'000.0, "x buffer", "of the buffer", 4);
    report.add(k + "/steps", static_cast<std::int64_t>(st.steps), "", "steps");
  }
  report.add("formula/factor_1024", 2.0 * 1023 / 1024, "x buffer", "2(n-1)/n at n = 1,024 (never reaches 2)", 4);

  report.section("S = 1,000,003 at n = 8: 3 chunks of 125,001, 5 of 125,000");
  {
    auto d = inputs(8, 1'000'003);
    const auto st = ridge::lab::ring_allreduce(d, 4);
    const auto [lo, hi] = std::minmax_element(st.bytes_sent.begin(), st.bytes_sent.end());
    std::uint64_t total = 0;
    for (auto b : st.bytes_sent) total += b;
    report.add("uneven/min_bytes", static_cast<std::int64_t>(*lo), "B", "least any rank sent");
    report.add("uneven/max_bytes", static_cast<std::int64_t>(*hi), "B", "most any rank sent");
    report.add("uneven/mean_bytes", static_cast<double>(total) / 8.0, "B", "mean (the formula: 7,000,021)", 1);
    report.add("uneven/formula_bytes", ridge::lab::ring_bytes_per_rank(8, 1'000'003, 4), "B", "2(n-1)/n x S x 4", 1);
    report.add_text("uneven/sums", all_equal(d) ? "ok" : "WRONG", "every rank holds the same sum");
  }

  report.section("simulator time, 8 ranks x 1,000,000 elements");
  {
    auto d = inputs(8, 1'000'000);
    auto t0 = std::chrono::steady_clock::now();
    ridge::lab::ring_allreduce(d, 4);
    const double single_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto e = inputs(8, 1'000'000);
    t0 = std::chrono::steady_clock::now();
    ridge::lab::ring_allreduce_threaded(e, 4);
    const double threaded_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    report.add("time/single_thread_ms", single_ms, "ms", "one thread", 2);
    report.add("time/threaded_ms", threaded_ms, "ms", "one thread per rank, a barrier per step", 2);
    report.add_text("time/threaded_matches", d == e ? "yes" : "NO", "threaded buffers equal single-threaded");
  }
  report.note("byte counts are exact and machine-independent; the times depend on the machine and build type");
  return report.print(argc, argv);
}
