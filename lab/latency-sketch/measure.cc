// Figures for the latency sketch: a million requests over 8 hosts (one degraded), exact
// quantiles against the merged sketch and against the mean of the hosts' quantiles; buckets
// and worst relative error for three values of alpha.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "common/report.h"
#include "latency_sketch.h"

namespace {

double exact_sorted(const std::vector<double>& v, double q) {
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

}  // namespace

int main(int argc, char** argv) {
  using ridge::lab::LatencySketch;
  ridge::lab::Report report("latency-sketch", "relative-error latency sketch: merged quantiles against exact");
  std::mt19937_64 rng(20261201);
  auto u = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  auto normal = [&] { return std::sqrt(-2 * std::log(u())) * std::cos(2 * std::numbers::pi * u()); };
  constexpr int kHosts = 8, kPerHost = 125'000;
  std::vector<std::vector<double>> host(kHosts);
  std::vector<double> all;
  for (int h = 0; h < kHosts; ++h) {
    const double slow_share = h == 7 ? 0.1 : 0.001;
    for (int i = 0; i < kPerHost; ++i) {
      const double ms = u() < slow_share ? 300 + 1700 * u() : 50 * std::exp(0.4 * normal());
      host[h].push_back(ms);
      all.push_back(ms);
    }
  }
  std::vector<double> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  for (auto& v : host) std::sort(v.begin(), v.end());

  report.section("8 hosts x 125,000 requests (seed 20261201): lognormal around 50 ms; host 7 slow (300 ms to 2 s) "
                 "on 1 in 10, the others on 1 in 1,000; alpha = 0.01");
  std::vector<LatencySketch> sketches(kHosts, LatencySketch(0.01));
  for (int h = 0; h < kHosts; ++h) {
    for (double x : host[h]) sketches[h].add(x);
  }
  LatencySketch merged(0.01);
  for (const auto& s : sketches) merged.merge(s);
  const std::pair<const char*, double> qs[] = {{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p99.9", 0.999}};
  for (const auto& [name, q] : qs) {
    const double e = exact_sorted(sorted, q), s = merged.quantile(q);
    double mean_of_hosts = 0;
    for (const auto& v : host) mean_of_hosts += exact_sorted(v, q) / kHosts;
    std::string key = name;
    std::replace(key.begin(), key.end(), '.', '_');
    report.add(key + "/exact_ms", e, "ms", std::string(name) + ": exact", 1);
    report.add(key + "/sketch_ms", s, "ms", std::string(name) + ": merged sketch", 1);
    report.add(key + "/rel_err", std::fabs(s - e) / e, "", std::string(name) + ": relative error", 4);
    report.add(key + "/mean_of_hosts_ms", mean_of_hosts, "ms", std::string(name) + ": mean of the hosts' values", 1);
  }
  report.add("buckets_occupied", static_cast<std::int64_t>(merged.occupied()), "buckets", "occupied in the merged sketch");
  report.add("array_length", static_cast<std::int64_t>(merged.counts().size()), "counters", "dense array length");

  report.section("alpha against size and worst error over q = 0.001 .. 0.999 (step 0.001)");
  for (double alpha : {0.001, 0.01, 0.05}) {
    LatencySketch s(alpha);
    for (double x : all) s.add(x);
    double worst = 0;
    for (int k = 1; k <= 999; ++k) {
      const double q = k / 1000.0, e = exact_sorted(sorted, q);
      worst = std::max(worst, std::fabs(s.quantile(q) - e) / e);
    }
    const std::string key = "alpha_" + std::to_string(static_cast<int>(std::lround(alpha * 1000))) + "_per_mille";
    report.add(key + "/buckets", static_cast<std::int64_t>(s.occupied()), "buckets", "alpha " + std::to_string(alpha).substr(0, 5) + ": occupied buckets");
    report.add(key + "/worst_rel_err", worst, "", "worst relative error", 5);
  }
  return report.print(argc, argv);
}
