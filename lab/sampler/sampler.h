// Sampling the next token from logits: temperature, top-k and top-p (nucleus).
//
// The filter order (the same as Hugging Face's default logits processors):
//   1. temperature == 0 means greedy: the argmax, lowest index on ties; top-k and top-p
//      are skipped (the argmax survives both anyway). Otherwise:
//   2. divide every logit by the temperature;
//   3. top-k (k > 0): keep the k largest scaled logits; ties at the boundary go to the
//      lower index, so exactly min(k, candidates) survive;
//   4. softmax over the survivors, numerically stable: the largest survivor is subtracted
//      before exp, so logits of 1000 do not overflow to inf and NaN;
//   5. top-p (p < 1): rank the survivors by probability (ties: lower index first) and keep
//      the shortest prefix whose cumulative probability reaches p (>= p); at least one
//      token is always kept. Note that p applies to the distribution AFTER top-k and
//      temperature: the order changes which tokens survive;
//   6. renormalize the kept probabilities; every other token has probability exactly 0.
// Logits of -infinity are masked tokens: they never survive. sample() draws by inverse
// CDF with u = (rng() >> 11) * 2^-53, so a seed gives the same tokens on every platform.
#pragma once

#include <cstddef>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace ridge::lab {

struct SamplingParams {
  double temperature = 1.0;  // >= 0; 0 = greedy
  int top_k = 0;             // >= 0; 0 = off
  double top_p = 1.0;        // in (0, 1]; 1 = off
};

// An error message when `params` or `logits` cannot be sampled: temperature negative or
// not finite, top_k negative, top_p outside (0, 1], logits empty, NaN or +inf, or every
// logit -inf. std::nullopt when sampling is well defined.
std::optional<std::string> invalid_input(std::span<const float> logits, const SamplingParams& params);

// The probability of each token after the filters above; sums to 1.
// Precondition: invalid_input(logits, params) is nullopt.
std::vector<double> distribution(std::span<const float> logits, const SamplingParams& params);

// One token index drawn from distribution(logits, params).
// Precondition: invalid_input(logits, params) is nullopt.
int sample(std::span<const float> logits, const SamplingParams& params, std::mt19937_64& rng);

}  // namespace ridge::lab
