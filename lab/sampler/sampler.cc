#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ridge::lab {

namespace {

int argmax(std::span<const float> logits) {
  std::size_t best = 0;
  float best_value = logits[0];  // kept in a register: no reload through `best` each step
  for (std::size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > best_value) {  // strict: the lowest index wins ties
      best = i;
      best_value = logits[i];
    }
  }
  return static_cast<int>(best);
}

}  // namespace

std::optional<std::string> invalid_input(std::span<const float> logits, const SamplingParams& params) {
  if (!std::isfinite(params.temperature) || params.temperature < 0) {
    return "temperature must be a finite number >= 0; got " + std::to_string(params.temperature);
  }
  if (params.top_k < 0) return "top_k must be >= 0 (0 = off); got " + std::to_string(params.top_k);
  if (!(params.top_p > 0 && params.top_p <= 1)) {
    return "top_p must be in (0, 1] (1 = off); got " + std::to_string(params.top_p);
  }
  if (logits.empty()) return "logits are empty";
  bool any_finite = false;
  for (float l : logits) {
    if (std::isnan(l) || l == std::numeric_limits<float>::infinity()) return "logits contain NaN or +inf";
    any_finite = any_finite || std::isfinite(l);
  }
  if (!any_finite) return "every logit is -inf: no token can be sampled";
  return std::nullopt;
}

std::vector<double> distribution(std::span<const float> logits, const SamplingParams& params) {
  const std::size_t n = logits.size();
  std::vector<double> probs(n, 0.0);
  if (params.temperature == 0) {
    probs[static_cast<std::size_t>(argmax(logits))] = 1.0;
    return probs;
  }

  // 2. Temperature. Masked (-inf) tokens are not candidates.
  std::vector<double> scaled(n);
  std::vector<std::size_t> kept;
  kept.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = static_cast<double>(logits[i]) / params.temperature;
    if (std::isfinite(logits[i])) kept.push_back(i);
  }
  auto by_logit = [&](std::size_t a, std::size_t b) { return scaled[a] != scaled[b] ? scaled[a] > scaled[b] : a < b; };

  // 3. Top-k: a partial selection, O(n), not a full sort.
  if (params.top_k > 0 && static_cast<std::size_t>(params.top_k) < kept.size()) {
    std::nth_element(kept.begin(), kept.begin() + params.top_k - 1, kept.end(), by_logit);
    kept.resize(static_cast<std::size_t>(params.top_k));
  }

  // 4. Stable softmax over the survivors.
  double max_logit = -std::numeric_limits<double>::infinity();
  for (std::size_t i : kept) max_logit = std::max(max_logit, scaled[i]);
  double sum = 0;
  for (std::size_t i : kept) {
    probs[i] = std::exp(scaled[i] - max_logit);
    sum += probs[i];
  }
  for (std::size_t i : kept) probs[i] /= sum;

  // 5. Top-p over what top-k left, ranked by probability.
  if (params.top_p < 1) {
    // Rank only what the nucleus needs: partially sort a prefix (by logit, the same order
    // as by probability), doubling it until its mass reaches top_p. A nucleus is usually
    // a handful of tokens, so this is O(n log m) instead of a full O(n log n) sort.
    std::size_t prefix = std::min<std::size_t>(64, kept.size());
    std::size_t keep = 0;
    while (true) {
      std::partial_sort(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(prefix), kept.end(), by_logit);
      double cumulative = 0;
      keep = 0;
      while (keep < prefix && cumulative < params.top_p) cumulative += probs[kept[keep++]];
      if (cumulative >= params.top_p || prefix == kept.size()) break;
      prefix = std::min(kept.size(), 2 * prefix);
    }
    for (std::size_t j = keep; j < kept.size(); ++j) probs[kept[j]] = 0;
    kept.resize(keep);
    // 6. Renormalize.
    double kept_sum = 0;
    for (std::size_t i : kept) kept_sum += probs[i];
    for (std::size_t i : kept) probs[i] /= kept_sum;
  }
  return probs;
}

int sample(std::span<const float> logits, const SamplingParams& params, std::mt19937_64& rng) {
  if (params.temperature == 0) return argmax(logits);
  const std::vector<double> probs = distribution(logits, params);
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1), 53 random bits
  double cumulative = 0;
  int last_possible = 0;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] == 0) continue;
    cumulative += probs[i];
    last_possible = static_cast<int>(i);
    if (u < cumulative) return last_possible;
  }
  return last_possible;  // rounding left the total a hair under 1 and u above it
}

}  // namespace ridge::lab
