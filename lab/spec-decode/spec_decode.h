// Speculative decoding's acceptance: the closed form for tokens emitted per verification
// step, a seeded Monte Carlo of draft / verify / stop-at-first-rejection to check it, and the
// speedup model of Leviathan et al.
//
// Model (say it out loud; the closed form is only as good as it):
// - A drafter proposes k tokens; the target scores all k + 1 positions in one pass.
// - Draft i is accepted with probability a, independently. The step stops at the first
//   rejection; later drafts are discarded, never judged.
// - The target always adds one token (the corrected one at the rejection, or a bonus after k
//   accepted drafts), so a step emits between 1 and k + 1 tokens.
//
// Contract:
// - expected_tokens(a, k) = 1 + a + ... + a^k = (1 - a^(k+1)) / (1 - a); k + 1 at a == 1 (the
//   closed form's 0/0, decided: never NaN), 1 at a == 0.
// - emitted_pmf(a, k)[j - 1] = P(exactly j tokens) = a^(j-1) (1 - a) for j <= k, a^k for j = k + 1.
// - simulate(): randomness from std::mt19937_64(seed), turned into doubles by bit arithmetic
//   (the top 53 bits), so a seed gives the same result on every standard library.
//   a_from_trials = accepted / drafts actually judged (recovers a); a_naive = accepted /
//   (k × steps), the "draft acceptance rate" dashboards show: biased low, more so as k grows.
//   Both are 0 when k == 0 (no drafts).
// - speedup(a, k, c) = expected_tokens(a, k) / (k c + 1): a draft step costs c of a target
//   step, verification one target step. best_k: the k in [1, k_max] with the largest speedup
//   (the smallest such k on a tie).
// - Bad input (a outside [0, 1] or NaN, k < 0, steps < 1, c < 0, k_max < 1) throws
//   std::invalid_argument naming the value. All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ridge::lab {

double expected_tokens(double a, int k);
std::vector<double> emitted_pmf(double a, int k);

// Uniform double in [0, 1) from the top 53 bits of one draw.
double uniform01(std::mt19937_64& rng);

struct Sim {
  double mean_emitted = 0;
  double stderr_emitted = 0;  // standard error of mean_emitted
  double a_from_trials = 0;
  double a_naive = 0;
  std::vector<std::int64_t> emitted_counts;  // [j - 1]: steps that emitted exactly j tokens
};

Sim simulate(double a, int k, int steps, std::uint64_t seed);

double speedup(double a, int k, double c);
int best_k(double a, double c, int k_max);

}  // namespace ridge::lab
