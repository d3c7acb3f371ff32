// Straggler figures, simulated with a fixed seed: healthy arrivals are 100 ms + N(0, 2 ms)
// per rank. Reported: the false-positive rate actually observed against the target, how
// often one injected straggler is caught, and the same for the naive mean + k × sd rule,
// which a straggler masks by inflating the standard deviation.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/report.h"
#include "straggler_detector.h"

namespace {

using ridge::lab::StragglerPolicy;

constexpr double kMeanUs = 100'000, kSigmaUs = 2'000;

class Normal {
 public:
  explicit Normal(std::uint64_t seed) : rng_(seed) {}
  double next() {  // Box-Muller on the engine's raw bits: the same numbers on every platform
    const double u1 = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * 3.141592653589793 * u2);
  }

 private:
  std::mt19937_64 rng_;
};

std::vector<std::int64_t> healthy_step(Normal& normal, int ranks) {
  std::vector<std::int64_t> a(static_cast<std::size_t>(ranks));
  for (auto& t : a) t = static_cast<std::int64_t>(std::llround(kMeanUs + kSigmaUs * normal.next()));
  return a;
}

double observed_fpr(int ranks, int steps, double target) {
  Normal normal(20261130);
  std::int64_t flagged = 0;
  for (int s = 0; s < steps; ++s) {
    const auto a = healthy_step(normal, ranks);
    flagged += static_cast<std::int64_t>(ridge::lab::detect_stragglers(a, {.false_positive_rate = target})->late_ranks.size());
  }
  return static_cast<double>(flagged) / (static_cast<double>(ranks) * steps);
}

// Share of steps in which the injected straggler (rank 0, delayed by `delay_sigmas`) is
// caught, by median + k MAD and by mean + k sd with the same k.
std::pair<double, double> detection(int ranks, int steps, double delay_sigmas) {
  Normal normal(7);
  int robust = 0, naive = 0;
  for (int s = 0; s < steps; ++s) {
    auto a = healthy_step(normal, ranks);
    a[0] += static_cast<std::int64_t>(delay_sigmas * kSigmaUs);
    const auto r = ridge::lab::detect_stragglers(a, {.false_positive_rate = 1e-3});
    robust += !r->late_ranks.empty() && r->late_ranks.front() == 0;
    double mean = 0, sq = 0;
    for (auto t : a) mean += static_cast<double>(t);
    mean /= ranks;
    for (auto t : a) sq += (static_cast<double>(t) - mean) * (static_cast<double>(t) - mean);
    const double sd = std::sqrt(sq / (ranks - 1));
    naive += static_cast<double>(a[0]) > mean + r->k * sd;
  }
  return {static_cast<double>(robust) / steps, static_cast<double>(naive) / steps};
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("straggler", "median + k x MAD threshold from a target false-positive rate");
  report.note("healthy arrivals 100 ms + N(0, 2 ms); sigma floor 50 us; seeds fixed");

  report.section("observed false-positive rate, 1,024 healthy ranks x 2,000 steps");
  for (double target : {1e-3, 1e-4}) {
    const auto r = ridge::lab::detect_stragglers(std::vector<std::int64_t>{0, 1}, {.false_positive_rate = target});
    const std::string key = target == 1e-3 ? "fpr_1e-3" : "fpr_1e-4";
    report.add(key + "/k", r->k, "", "target " + std::string(target == 1e-3 ? "1e-3" : "1e-4") + ": k", 3);
    report.add(key + "/observed", observed_fpr(1024, 2000, target), "", "observed rate per rank-step", 6);
  }

  report.add("fpr_1e-3/observed_8_ranks", observed_fpr(8, 100'000, 1e-3), "",
             "target 1e-3, 8 ranks x 100,000 steps: observed (MAD from 8 values is noisy)", 6);

  report.section("one straggler caught (share of 1,000 steps), target 1e-3");
  for (int ranks : {8, 1024}) {
    for (double delay : {5.0, 10.0, 500.0}) {
      const auto [robust, naive] = detection(ranks, 1000, delay);
      const std::string key = "detect/ranks_" + std::to_string(ranks) + "/delay_" + std::to_string(static_cast<int>(delay)) + "_sigma";
      const std::string label = std::to_string(ranks) + " ranks, +" + std::to_string(static_cast<int>(delay)) + " sigma";
      report.add(key + "/median_mad", robust, "", label + ": median + k MAD", 3);
      report.add(key + "/mean_sd", naive, "", label + ": mean + k sd", 3);
    }
  }
  report.note("with n ranks one outlier's z-score is at most (n - 1) / sqrt(n): 2.47 for 8, below k = 3.09");
  return report.print(argc, argv);
}
