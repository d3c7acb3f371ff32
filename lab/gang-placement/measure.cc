// Figures for gang placement: the question's churn simulation under three policies
// (exact: fixed seed, integer decisions), and the cost of one best-fit placement (timed).
#include <chrono>
#include <string>

#include "common/report.h"
#include "gang_placer.h"

int main(int argc, char** argv) {
  using ridge::lab::Policy;
  ridge::lab::Report report("gang-placement", "gang placement on pods > racks > nodes: compactness and whole holes");
  report.section("2 pods x 4 racks x 16 nodes; one gang per step for 20,000 steps; seed 20261201 (exact)");
  const std::pair<const char*, Policy> policies[] = {
      {"first_fit", Policy::kFirstFit}, {"spread", Policy::kSpread}, {"best_fit", Policy::kBestFit}};
  for (const auto& [name, policy] : policies) {
    const auto r = ridge::lab::simulate(policy);
    const std::string k = name;
    report.add(k + "/placed_share", r.placed_share, "", k + ": share of gangs placed");
    report.add(k + "/extra_racks_per_gang", r.extra_racks_per_gang, "racks", k + ": racks beyond the minimum, per gang");
    report.add(k + "/big_in_one_rack_share", r.big_in_one_rack_share, "", k + ": 16-node gangs in one rack");
    report.add(k + "/full_rack_free_share", r.full_rack_free_share, "", k + ": steps with a whole rack free");
  }

  report.section("one best-fit place() on the fragmented fixture, 20 nodes (timed)");
  ridge::lab::Cluster c(2, 4, 16);
  std::vector<int> busy;
  for (int i = 0; i < 10; ++i) busy.push_back(i);
  c.take(busy);
  constexpr int kCalls = 200'000;
  std::size_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) sink += c.place(20, Policy::kBestFit)->size();
  const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  report.add("ns_per_place_20", ns / kCalls, "ns", "best fit, 20 nodes spanning racks", 0);
  report.add("sink", static_cast<std::int64_t>(sink / kCalls), "nodes", "nodes per placement (keeps the loop)");
  report.note("the simulated shares are exact; the timing depends on the machine and build type");
  return report.print(argc, argv);
}
