#include "normal_quantile.h"

#include <cmath>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

TEST(NormalQuantile, MatchesReferenceValues) {
  // Reference values: Python's statistics.NormalDist().inv_cdf (Wichura's AS241, double precision).
  EXPECT_NEAR(*normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(*normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(*normal_quantile(0.999), 3.090232306167813, 1e-12);
  EXPECT_NEAR(*normal_quantile(0.9999), 3.719016485455709, 1e-12);
  EXPECT_NEAR(*normal_quantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(*normal_quantile(1e-9), -5.997807015007688, 1e-10);
  EXPECT_NEAR(*normal_quantile(0.75), 0.6744897501960817, 1e-12);
}

TEST(NormalQuantile, IsSymmetric) {
  for (double p : {0.01, 0.1, 0.3, 0.49}) EXPECT_NEAR(*normal_quantile(p), -*normal_quantile(1 - p), 1e-12) << p;
}

TEST(NormalQuantile, OutsideTheOpenUnitIntervalIsAnError) {
  EXPECT_FALSE(normal_quantile(0).has_value());
  EXPECT_FALSE(normal_quantile(1).has_value());
  EXPECT_FALSE(normal_quantile(-0.1).has_value());
  EXPECT_FALSE(normal_quantile(std::nan("")).has_value());
}

}  // namespace
}  // namespace ridge::lab
