#include "spec_decode.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

constexpr int kSteps = 200'000;
constexpr std::uint64_t kSeed = 20261201;

TEST(SpecDecode, DroppedTargetTokenBugBoundariesEmitOneAndKPlusOne) {
  // a = 0: every first draft is rejected, the target still emits one token per step.
  EXPECT_DOUBLE_EQ(simulate(0.0, 4, 1000, 1).mean_emitted, 1.0);
  EXPECT_DOUBLE_EQ(expected_tokens(0.0, 4), 1.0);
  // a = 1: every draft passes, plus the bonus token.
  EXPECT_DOUBLE_EQ(simulate(1.0, 4, 1000, 1).mean_emitted, 5.0);
  // k = 0 is plain decoding.
  EXPECT_DOUBLE_EQ(simulate(0.7, 0, 1000, 1).mean_emitted, 1.0);
}

TEST(SpecDecode, DivideByZeroBugAtAcceptanceOne) {
  for (int k : {0, 1, 4, 16}) {
    const double e = expected_tokens(1.0, k);
    EXPECT_FALSE(std::isnan(e));
    EXPECT_DOUBLE_EQ(e, k + 1.0);
  }
  // Continuous as a approaches 1.
  EXPECT_NEAR(expected_tokens(1.0 - 1e-9, 4), 5.0, 1e-6);
}

TEST(SpecDecode, SimulationLandsWithinFourStandardErrorsOfTheClosedForm) {
  for (double a : {0.5, 0.7, 0.8, 0.9}) {
    for (int k : {1, 4, 8}) {
      const Sim s = simulate(a, k, kSteps, kSeed);
      const double z = std::fabs(s.mean_emitted - expected_tokens(a, k)) / s.stderr_emitted;
      EXPECT_LT(z, 4.0) << "a=" << a << " k=" << k;
    }
  }
}

TEST(SpecDecode, BinomialModelBugIsFarFromTheSimulation) {
  // k × a + 1 counts drafts after a rejection as accepted: dozens of standard errors away.
  const Sim s = simulate(0.8, 4, kSteps, kSeed);
  EXPECT_GT(std::fabs(s.mean_emitted - (4 * 0.8 + 1)) / s.stderr_emitted, 50.0);
  EXPECT_NEAR(expected_tokens(0.8, 4), 3.3616, 1e-12);
}

TEST(SpecDecode, NaiveEstimatorBugReadsAcceptanceLow) {
  const Sim s = simulate(0.8, 4, kSteps, kSeed);
  // Accepted over judged recovers a; its standard error is about sqrt(a(1-a)/judged) < 0.001.
  EXPECT_NEAR(s.a_from_trials, 0.8, 0.004);
  // Accepted over proposed estimates (E - 1) / k, not a.
  EXPECT_NEAR(s.a_naive, (expected_tokens(0.8, 4) - 1) / 4, 0.004);
  EXPECT_LT(s.a_naive, 0.6);
  // At k = 1 the two agree.
  const Sim one = simulate(0.8, 1, kSteps, kSeed);
  EXPECT_DOUBLE_EQ(one.a_naive, one.a_from_trials);
}

TEST(SpecDecodeChiSquare, EmittedDistributionMatchesTheGeometricPmf) {
  // Critical values of chi-square at p = 0.001 for k degrees of freedom (k + 1 bins).
  const std::vector<std::pair<int, double>> critical{{1, 10.828}, {4, 18.467}, {8, 26.124}};
  for (double a : {0.5, 0.8}) {
    for (const auto& [k, crit] : critical) {
      const Sim s = simulate(a, k, kSteps, kSeed);
      const auto p = emitted_pmf(a, k);
      double chi2 = 0;
      for (int j = 0; j <= k; ++j) {
        const double want = p[j] * kSteps;
        const double d = static_cast<double>(s.emitted_counts[j]) - want;
        chi2 += d * d / want;
      }
      EXPECT_LT(chi2, crit) << "a=" << a << " k=" << k;
    }
  }
}

TEST(SpecDecodeChiSquare, PmfSumsToOneAndItsMeanIsTheClosedForm) {
  for (double a : {0.0, 0.3, 0.8, 1.0}) {
    const auto p = emitted_pmf(a, 6);
    double total = 0, mean = 0;
    for (std::size_t j = 0; j < p.size(); ++j) {
      total += p[j];
      mean += (j + 1) * p[j];
    }
    EXPECT_NEAR(total, 1.0, 1e-12);
    EXPECT_NEAR(mean, expected_tokens(a, 6), 1e-12);
  }
}

TEST(SpecDecode, SameSeedSameResultAndUniformStaysBelowOne) {
  const Sim x = simulate(0.7, 4, 10'000, 42), y = simulate(0.7, 4, 10'000, 42);
  EXPECT_EQ(x.emitted_counts, y.emitted_counts);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100'000; ++i) {
    const double u = uniform01(rng);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(SpecDecode, SpeedupIsTokensPerStepOverTheStepCost) {
  EXPECT_NEAR(speedup(0.8, 4, 0.05), 3.3616 / 1.2, 1e-12);
  EXPECT_EQ(best_k(0.8, 0.05, 16), 8);
  EXPECT_EQ(best_k(0.8, 0.0, 16), 16);  // free drafts: always longer
  EXPECT_EQ(best_k(0.0, 0.05, 16), 1);  // nothing accepted: the shortest
}

TEST(SpecDecode, BadInputIsRefused) {
  EXPECT_THROW(expected_tokens(1.5, 4), std::invalid_argument);
  EXPECT_THROW(expected_tokens(-0.1, 4), std::invalid_argument);
  EXPECT_THROW(expected_tokens(std::numeric_limits<double>::quiet_NaN(), 4), std::invalid_argument);
  EXPECT_THROW(expected_tokens(0.5, -1), std::invalid_argument);
  EXPECT_THROW(simulate(0.5, 4, 0, 1), std::invalid_argument);
  EXPECT_THROW(speedup(0.5, 4, -0.1), std::invalid_argument);
  EXPECT_THROW(best_k(0.5, 0.05, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ridge::lab
