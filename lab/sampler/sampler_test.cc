#include "sampler.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

// Upper critical values of the chi-square distribution at p = 0.001, by degrees of
// freedom (NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.4). A correct
// sampler exceeds them with probability 0.001; at a fixed seed the outcome is fixed.
double chi_square_critical_p001(int df) {
  static const double kTable[] = {0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322};
  return kTable[df];
}

struct ChiSquare {
  double statistic;
  int df;
};

// Pearson's statistic of observed counts against expected probabilities, over the
// categories with non-zero expectation. Categories with zero expectation must be empty.
ChiSquare chi_square(const std::vector<int>& counts, const std::vector<double>& expected, int n) {
  ChiSquare r{0, -1};
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (expected[i] == 0) {
      EXPECT_EQ(counts[i], 0) << "token " << i << " has probability 0 but was sampled";
      continue;
    }
    const double e = expected[i] * n;
    r.statistic += (counts[i] - e) * (counts[i] - e) / e;
    ++r.df;
  }
  return r;
}

std::vector<int> draw(const std::vector<float>& logits, const SamplingParams& p, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> counts(logits.size(), 0);
  for (int i = 0; i < n; ++i) ++counts[static_cast<std::size_t>(sample(logits, p, rng))];
  return counts;
}

TEST(Sampler, SoftmaxIsStableForHugeLogits) {
  // exp(1000) overflows a double: without subtracting the max this is inf / inf = NaN.
  const std::vector<float> logits{1000.0f, 1000.0f, 999.0f};
  const auto p = distribution(logits, {});
  const double e = std::exp(-1.0);
  EXPECT_NEAR(p[0], 1 / (2 + e), 1e-12);
  EXPECT_NEAR(p[1], 1 / (2 + e), 1e-12);
  EXPECT_NEAR(p[2], e / (2 + e), 1e-12);
}

TEST(Sampler, TinyTemperatureStaysFinite) {
  const std::vector<float> logits{1.0f, 0.5f};
  const auto p = distribution(logits, {.temperature = 1e-6});
  EXPECT_DOUBLE_EQ(p[0], 1.0);
  EXPECT_DOUBLE_EQ(p[1], 0.0);
}

TEST(Sampler, TemperatureZeroIsGreedyWithLowestIndexOnTies) {
  const std::vector<float> logits{0.1f, 3.0f, -2.0f, 3.0f};
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sample(logits, {.temperature = 0}, rng), 1);
  EXPECT_EQ(distribution(logits, {.temperature = 0}), (std::vector<double>{0, 1, 0, 0}));
}

TEST(Sampler, TemperatureDividesTheLogits) {
  // T = 0.5 on logits (1, 0): p0 = e^2 / (e^2 + 1).
  const std::vector<float> logits{1.0f, 0.0f};
  const auto p = distribution(logits, {.temperature = 0.5});
  EXPECT_NEAR(p[0], std::exp(2.0) / (std::exp(2.0) + 1), 1e-12);
}

TEST(Sampler, TopKKeepsExactlyKAndBreaksTiesByLowerIndex) {
  const std::vector<float> logits{1.0f, 2.0f, 2.0f, 2.0f, 0.0f};
  const auto p = distribution(logits, {.top_k = 2});
  EXPECT_NEAR(p[1], 0.5, 1e-12);
  EXPECT_NEAR(p[2], 0.5, 1e-12);
  EXPECT_EQ(p[3], 0.0) << "the third tied token falls outside k = 2";
  EXPECT_EQ(p[0], 0.0);
  EXPECT_EQ(p[4], 0.0);
}

TEST(Sampler, TopPKeepsTheShortestPrefixReachingP) {
  // Probabilities 0.5, 0.3, 0.15, 0.05 (logits are their logs).
  const std::vector<float> logits{std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  auto p = distribution(logits, {.top_p = 0.75});  // 0.5 < 0.75 <= 0.8: two tokens
  EXPECT_NEAR(p[0], 0.5 / 0.8, 1e-6);
  EXPECT_NEAR(p[1], 0.3 / 0.8, 1e-6);
  EXPECT_EQ(p[2], 0.0);
  p = distribution(logits, {.top_p = 0.85});  // 0.8 < 0.85 <= 0.95: three tokens
  EXPECT_NEAR(p[2], 0.15 / 0.95, 1e-6);
  EXPECT_EQ(p[3], 0.0);
  p = distribution(logits, {.top_p = 0.01});  // at least one token
  EXPECT_DOUBLE_EQ(p[0], 1.0);
}

TEST(Sampler, TopPAppliesAfterTopKOnTheRenormalizedDistribution) {
  // Probabilities 0.4, 0.3, 0.2, 0.1 with top_k = 2, top_p = 0.5. Documented order:
  // top-k leaves (0.571, 0.429); 0.571 >= 0.5, so one token. The other order (top-p on the
  // original: 0.4, then 0.7 >= 0.5, two tokens) would keep two.
  const std::vector<float> logits{std::log(0.4f), std::log(0.3f), std::log(0.2f), std::log(0.1f)};
  const auto p = distribution(logits, {.top_k = 2, .top_p = 0.5});
  EXPECT_DOUBLE_EQ(p[0], 1.0);
  EXPECT_EQ(p[1], 0.0);
}

TEST(Sampler, MaskedTokensNeverSurvive) {
  const float ninf = -std::numeric_limits<float>::infinity();
  const std::vector<float> logits{ninf, 0.0f, ninf, 0.0f};
  const auto p = distribution(logits, {.temperature = 3.0});
  EXPECT_EQ(p, (std::vector<double>{0, 0.5, 0, 0.5}));
}

TEST(Sampler, InvalidInputIsReportedAsAValue) {
  const std::vector<float> ok{1.0f, 2.0f};
  EXPECT_FALSE(invalid_input(ok, {}).has_value());
  EXPECT_TRUE(invalid_input(ok, {.temperature = -1}).has_value());
  EXPECT_TRUE(invalid_input(ok, {.top_k = -1}).has_value());
  EXPECT_TRUE(invalid_input(ok, {.top_p = 0}).has_value());
  EXPECT_TRUE(invalid_input(ok, {.top_p = 1.5}).has_value());
  EXPECT_TRUE(invalid_input(std::vector<float>{}, {}).has_value());
  EXPECT_TRUE(invalid_input(std::vector<float>{std::nanf("")}, {}).has_value());
  EXPECT_TRUE(invalid_input(std::vector<float>{-std::numeric_limits<float>::infinity()}, {}).has_value());
}

// The frequencies of 100,000 draws at seed 20261130 against the analytic distribution.
// Threshold: the chi-square critical value at p = 0.001 for the test's degrees of freedom.

TEST(SamplerChiSquare, PlainSoftmaxMatchesTheAnalyticDistribution) {
  const std::vector<float> logits{2.0f, 1.0f, 0.5f, 0.0f, -0.5f, -1.0f};
  std::vector<double> expected;
  double z = 0;
  for (float l : logits) z += std::exp(static_cast<double>(l));
  for (float l : logits) expected.push_back(std::exp(static_cast<double>(l)) / z);
  const int n = 100'000;
  const auto r = chi_square(draw(logits, {}, n, 20261130), expected, n);
  ASSERT_EQ(r.df, 5);
  EXPECT_LT(r.statistic, chi_square_critical_p001(r.df));
}

// T = 0.7, top_k = 4, top_p = 0.9 over logits (3, 2.5, 2, 1, 0.5, 0, -1, -2), by hand:
// scaled by 1/0.7, the top 4 have weights exp((l - 3) / 0.7) = 1, 0.4895, 0.2397, 0.0574,
// probabilities 0.5597, 0.2740, 0.1342, 0.0321; cumulative 0.5597, 0.8337, 0.9679 >= 0.9,
// so tokens 0, 1, 2 survive, renormalized to 0.5783, 0.2831, 0.1386.
std::vector<double> filtered_expected(double temperature) {
  const double w0 = 1, w1 = std::exp(-0.5 / temperature), w2 = std::exp(-1.0 / temperature);
  const double z = w0 + w1 + w2;
  return {w0 / z, w1 / z, w2 / z, 0, 0, 0, 0, 0};
}

const std::vector<float> kFilteredLogits{3.0f, 2.5f, 2.0f, 1.0f, 0.5f, 0.0f, -1.0f, -2.0f};
const SamplingParams kFilteredParams{.temperature = 0.7, .top_k = 4, .top_p = 0.9};

TEST(SamplerChiSquare, TemperatureTopKTopPMatchTheAnalyticDistribution) {
  const auto expected = filtered_expected(0.7);
  const auto p = distribution(kFilteredLogits, kFilteredParams);
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i], expected[i], 1e-12) << "token " << i;
  const int n = 100'000;
  const auto r = chi_square(draw(kFilteredLogits, kFilteredParams, n, 20261130), expected, n);
  ASSERT_EQ(r.df, 2);
  EXPECT_LT(r.statistic, chi_square_critical_p001(r.df));
}

TEST(SamplerChiSquare, TheTestHasPowerAgainstAForgottenTemperature) {
  // The same draws against the distribution a sampler that ignored T would produce
  // (for these logits it keeps the same three tokens: 0.5065, 0.3072, 0.1863). The
  // statistic must land far above the threshold, or the test above proves nothing.
  const int n = 100'000;
  const auto r = chi_square(draw(kFilteredLogits, kFilteredParams, n, 20261130), filtered_expected(1.0), n);
  EXPECT_GT(r.statistic, 10 * chi_square_critical_p001(r.df));
}

}  // namespace
}  // namespace ridge::lab
