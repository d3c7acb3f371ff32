// Figures for the resharding planner: reads per reshard of the question's small mixed
// checkpoint, the large 512 -> 256 and 512 -> 384 plans (exact), and planning time for a
// model-sized tensor list (timed).
#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include "common/report.h"
#include "reshard.h"

int main(int argc, char** argv) {
  using ridge::lab::Layout;
  using ridge::lab::Tensor;
  ridge::lab::Report report("reshard", "checkpoint resharding N -> M: reads per plan, files per new rank");

  report.section("tensors of 10, 7, 3, 1 elements (2, 4, 4, 2 bytes): reads in the plan (exact)");
  const std::vector<Tensor> mixed = {{10, 2}, {7, 4}, {3, 4}, {1, 2}};
  for (auto [n, m] : {std::pair{8, 3}, std::pair{3, 8}, std::pair{4, 4}, std::pair{5, 2}, std::pair{2, 5}, std::pair{1, 6}}) {
    const auto p = ridge::lab::plan(Layout(mixed, n), Layout(mixed, m));
    std::int64_t reads = 0, merged = 0;
    for (const auto& rs : p) reads += static_cast<std::int64_t>(rs.size());
    for (const auto& rs : ridge::lab::coalesce(p)) merged += static_cast<std::int64_t>(rs.size());
    const std::string k = "small/" + std::to_string(n) + "_to_" + std::to_string(m);
    report.add(k + "/reads", reads, "reads", std::to_string(n) + " -> " + std::to_string(m) + ": reads");
    report.add(k + "/coalesced", merged, "reads", std::to_string(n) + " -> " + std::to_string(m) + ": after coalescing");
  }

  report.section("one 8192 x 8192 bf16 matrix and two fp32 moments, saved by 512 ranks (exact)");
  const std::uint64_t e = 8192ull * 8192;
  const std::vector<Tensor> big = {{e, 2}, {e, 4}, {e, 4}};
  const Layout from(big, 512);
  for (int m : {256, 384}) {
    const Layout to(big, m);
    const auto p = ridge::lab::plan(from, to);
    std::size_t most = 0, files = 0;
    for (const auto& rs : p) {
      most = std::max(most, rs.size());
      std::set<int> f;
      for (const auto& r : rs) f.insert(r.old_rank);
      files = std::max(files, f.size());
    }
    const std::string k = "large/512_to_" + std::to_string(m);
    report.add(k + "/most_reads_per_rank", static_cast<std::int64_t>(most), "reads", "512 -> " + std::to_string(m) + ": most reads per new rank");
    report.add(k + "/most_files_per_rank", static_cast<std::int64_t>(files), "files", "512 -> " + std::to_string(m) + ": most old files per new rank");
    report.add(k + "/shard_bytes_rank0", static_cast<std::int64_t>(to.shard_bytes(0)), "B", "512 -> " + std::to_string(m) + ": bytes in new shard 0");
  }

  report.section("planning 1,000 tensors of 4,096 x 4,096 fp32, 512 -> 384 ranks (timed)");
  const std::vector<Tensor> many(1000, Tensor{4096ull * 4096, 4});
  const Layout f2(many, 512), t2(many, 384);
  const auto t0 = std::chrono::steady_clock::now();
  const auto p = ridge::lab::plan(f2, t2);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::int64_t reads = 0;
  for (const auto& rs : p) reads += static_cast<std::int64_t>(rs.size());
  report.add("model/reads", reads, "reads", "reads in the plan");
  report.add("model/plan_ms", ms, "ms", "time to plan", 1);
  report.note("the read counts are exact; the planning time depends on the machine and build type");
  return report.print(argc, argv);
}
