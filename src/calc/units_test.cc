#include "calc/units.h"

#include <gtest/gtest.h>

namespace ridge::calc {
namespace {

TEST(Units, BytesBelowAMegabyteAreExact) {
  EXPECT_EQ(format_quantity(327680, Unit::kBytes), "327,680 B");
}

TEST(Units, BytesUseDecimalPrefixes) {
  EXPECT_EQ(format_quantity(10737418240.0, Unit::kBytes), "10.7 GB");
  EXPECT_EQ(format_quantity(141107412992.0, Unit::kBytes), "141 GB");
  EXPECT_EQ(format_quantity(80e9, Unit::kBytes), "80 GB");
}

TEST(Units, ExplicitTargetsPickUnitAndDecimals) {
  EXPECT_EQ(*format_as(10737418240.0, Unit::kBytes, "GB", 1), "10.7 GB");
  EXPECT_EQ(*format_as(10737418240.0, Unit::kBytes, "GiB", 1), "10.0 GiB");
  EXPECT_EQ(*format_as(0.4, Unit::kRatio, "%", 0), "40%");
  EXPECT_EQ(*format_as(327680, Unit::kBytes, "int", 0), "327,680");
  EXPECT_FALSE(format_as(1.0, Unit::kSeconds, "GB", 1).has_value());
  EXPECT_EQ(*format_as(3.7908e25, Unit::kFlop, "sci", 2), "3.79e25");
  EXPECT_EQ(*format_as(0.104346, Unit::kNone, "%", 1), "10.4%");
  EXPECT_EQ(*format_as(1.39776e6, Unit::kWatts, "MW", 2), "1.40 MW");
  EXPECT_EQ(*format_as(250e6, Unit::kBytesPerSecond, "MB/s", 0), "250 MB/s");
}

TEST(Units, OtherUnits) {
  EXPECT_EQ(format_quantity(989.4e12, Unit::kFlopPerSecond), "989 TFLOP/s");
  EXPECT_EQ(format_quantity(3.35e12, Unit::kBytesPerSecond), "3.35 TB/s");
  EXPECT_EQ(format_quantity(0.005266, Unit::kSeconds), "5.27 ms");
  EXPECT_EQ(format_quantity(3 * 86400.0, Unit::kSeconds), "3 days");
  EXPECT_EQ(format_quantity(0.4, Unit::kRatio), "40%");
  EXPECT_EQ(format_quantity(70.6e9, Unit::kCount), "70.6B");
  EXPECT_EQ(format_quantity(32768, Unit::kTokens), "32,768 tokens");
  EXPECT_EQ(format_quantity(3.79e25, Unit::kFlop), "3.79e25 FLOP");
  EXPECT_EQ(format_quantity(0.6944, Unit::kUsd), "$0.694");
  EXPECT_EQ(format_quantity(1, Unit::kBool), "yes");
}

TEST(Units, GroupThousands) {
  EXPECT_EQ(group_thousands(0), "0");
  EXPECT_EQ(group_thousands(999), "999");
  EXPECT_EQ(group_thousands(1000), "1,000");
  EXPECT_EQ(group_thousands(-70553706496.0), "-70,553,706,496");
}

}  // namespace
}  // namespace ridge::calc
