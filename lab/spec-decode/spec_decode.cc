#include "spec_decode.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ridge::lab {

namespace {

void check_a(double a) {
  if (!(a >= 0.0 && a <= 1.0)) throw std::invalid_argument("a = " + std::to_string(a) + ": must be in [0, 1]");
}

void check_k(int k) {
  if (k < 0) throw std::invalid_argument("k = " + std::to_string(k) + ": must be >= 0");
}

}  // namespace

double expected_tokens(double a, int k) {
  check_a(a);
  check_k(k);
  if (a >= 1.0) return k + 1.0;  // the closed form divides zero by zero here
  return (1.0 - std::pow(a, k + 1)) / (1.0 - a);
}

std::vector<double> emitted_pmf(double a, int k) {
  check_a(a);
  check_k(k);
  std::vector<double> p(static_cast<std::size_t>(k) + 1);
  for (int j = 1; j <= k; ++j) p[j - 1] = std::pow(a, j - 1) * (1.0 - a);
  p[k] = std::pow(a, k);
  return p;
}

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

Sim simulate(double a, int k, int steps, std::uint64_t seed) {
  check_a(a);
  check_k(k);
  if (steps < 1) throw std::invalid_argument("steps = " + std::to_string(steps) + ": must be >= 1");
  std::mt19937_64 rng(seed);
  Sim r;
  r.emitted_counts.assign(static_cast<std::size_t>(k) + 1, 0);
  double sum = 0, sum2 = 0;
  std::int64_t accepted_total = 0, judged_total = 0;
  for (int s = 0; s < steps; ++s) {
    int accepted = 0;
    while (accepted < k) {
      ++judged_total;                  // this draft was judged
      if (uniform01(rng) >= a) break;  // rejected: later drafts are discarded, never judged
      ++accepted;
    }
    accepted_total += accepted;
    const int emitted = accepted + 1;  // plus the target's own token
    ++r.emitted_counts[emitted - 1];
    sum += emitted;
    sum2 += static_cast<double>(emitted) * emitted;
  }
  r.mean_emitted = sum / steps;
  const double var = std::max(0.0, sum2 / steps - r.mean_emitted * r.mean_emitted);
  r.stderr_emitted = std::sqrt(var / steps);
  if (k > 0) {
    r.a_from_trials = static_cast<double>(accepted_total) / static_cast<double>(judged_total);
    r.a_naive = static_cast<double>(accepted_total) / (static_cast<double>(k) * steps);
  }
  return r;
}

double speedup(double a, int k, double c) {
  if (!(c >= 0.0)) throw std::invalid_argument("c = " + std::to_string(c) + ": must be >= 0");
  return expected_tokens(a, k) / (k * c + 1.0);
}

int best_k(double a, double c, int k_max) {
  if (k_max < 1) throw std::invalid_argument("k_max = " + std::to_string(k_max) + ": must be >= 1");
  int best = 1;
  double best_speedup = speedup(a, 1, c);
  for (int k = 2; k <= k_max; ++k) {
    const double s = speedup(a, k, c);
    if (s > best_speedup) {
      best_speedup = s;
      best = k;
    }
  }
  return best;
}

}  // namespace ridge::lab
