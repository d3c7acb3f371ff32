#include "segment.h"

#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

TEST(Segment, EncodesToTheDocumentedBytes) {
  const std::vector<Sample> s{{1000, 1.5}, {1010, -2.0}};
  const Segment seg(s);
  // count 2; zigzag(1000) = 2000 = varint d0 0f; delta 0, 1.5; delta 10, -2.0.
  const std::vector<std::uint8_t> expected{0x02, 0xd0, 0x0f,                                    //
                                           0x00, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,                  //
                                           0x0a, 0, 0, 0, 0, 0, 0, 0, 0xc0};
  EXPECT_EQ(seg.bytes(), expected);
  EXPECT_EQ(seg.min_time(), 1000);
  EXPECT_EQ(seg.max_time(), 1010);
  EXPECT_EQ(seg.count(), 2u);
}

TEST(Segment, RoundTripsNegativeTimesEqualTimesAndLargeGaps) {
  const std::vector<Sample> s{{-5'000'000'000, 0.25}, {-1, 1e300}, {-1, -0.0}, {0, 3}, {9'000'000'000'000, 42}};
  const Segment seg(s);
  EXPECT_EQ(seg.decode(), s);
  EXPECT_EQ(seg.min_time(), -5'000'000'000);
  EXPECT_EQ(seg.max_time(), 9'000'000'000'000);
}

TEST(Segment, ScanIsInclusiveAtBothEnds) {
  std::vector<Sample> s;
  for (int t = 0; t < 10; ++t) s.push_back({t * 10, static_cast<double>(t)});
  const Segment seg(s);
  std::vector<Sample> out;
  seg.scan(20, 50, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out.front().time_ms, 20);
  EXPECT_EQ(out.back().time_ms, 50);
  out.clear();
  seg.scan(21, 29, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace ridge::lab
