// Figures for speculative decoding: tokens per verification step, closed form against a
// seeded simulation of 200,000 steps, the two acceptance estimates, and the best draft length.
#include <cmath>
#include <cstdio>
#include <string>

#include "common/report.h"
#include "spec_decode.h"

int main(int argc, char** argv) {
  using namespace ridge::lab;
  Report report("spec-decode", "speculative decoding: tokens per step, closed form against simulation");
  constexpr int kSteps = 200'000;
  report.section("200,000 simulated steps per row (seed 20261201)");
  for (double a : {0.5, 0.7, 0.8, 0.9}) {
    for (int k : {1, 4, 8}) {
      const Sim s = simulate(a, k, kSteps, 20261201);
      const double closed = expected_tokens(a, k);
      char key[32];
      std::snprintf(key, sizeof key, "a_%.0fpct/k_%d/", a * 100, k);
      const std::string row = std::string("a=") + std::to_string(a).substr(0, 3) + " k=" + std::to_string(k);
      report.add(std::string(key) + "closed_form", closed, "tokens", row + ": closed form", 4);
      report.add(std::string(key) + "simulated", s.mean_emitted, "tokens", row + ": simulated", 4);
      report.add(std::string(key) + "z", std::fabs(s.mean_emitted - closed) / s.stderr_emitted, "se",
                 row + ": |difference| in standard errors", 2);
      report.add(std::string(key) + "a_from_trials", s.a_from_trials, "", row + ": accepted / judged", 3);
      report.add(std::string(key) + "a_naive", s.a_naive, "", row + ": accepted / proposed", 3);
      report.add(std::string(key) + "binomial_model", k * a + 1, "tokens", row + ": the k*a+1 mistake", 1);
    }
  }
  report.section("speedup E / (k c + 1) with a draft step at c = 0.05 of a target step, a = 0.8");
  const int k = best_k(0.8, 0.05, 16);
  report.add("speedup/best_k", static_cast<std::int64_t>(k), "drafts", "best k in 1..16");
  report.add("speedup/at_best_k", speedup(0.8, k, 0.05), "x", "speedup at the best k", 3);
  report.add("speedup/at_k_4", speedup(0.8, 4, 0.05), "x", "speedup at k = 4", 3);
  return report.print(argc, argv);
}
