#include "segment_store.h"

#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

// Ten sealed segments of 100 samples, times 0, 1, ..., 999 (segment i holds 100i..100i+99).
SegmentStore ten_segments() {
  SegmentStore store(100);
  for (int t = 0; t < 1000; ++t) EXPECT_EQ(store.append({t, t * 0.5}), AppendStatus::kOk);
  return store;
}

std::vector<Sample> brute_force(std::int64_t from, std::int64_t to, std::int64_t n) {
  std::vector<Sample> out;
  for (std::int64_t t = 0; t < n; ++t) {
    if (t >= from && t <= to) out.push_back({t, static_cast<double>(t) * 0.5});
  }
  return out;
}

TEST(SegmentStore, SealsEverySamplesPerSegment) {
  SegmentStore store(100);
  for (int t = 0; t < 250; ++t) store.append({t, 0});
  EXPECT_EQ(store.segments().size(), 2u);
  EXPECT_EQ(store.head_size(), 50u);
  store.seal();
  EXPECT_EQ(store.segments().size(), 3u);
  EXPECT_EQ(store.segments()[2]->min_time(), 200);
  store.seal();  // an empty head seals nothing
  EXPECT_EQ(store.segments().size(), 3u);
}

TEST(SegmentStore, OutOfOrderAppendsAreRejectedEqualTimesAccepted) {
  SegmentStore store(2);
  EXPECT_EQ(store.append({10, 0}), AppendStatus::kOk);
  EXPECT_EQ(store.append({10, 1}), AppendStatus::kOk);  // seals
  EXPECT_EQ(store.append({9, 2}), AppendStatus::kOutOfOrder) << "checked against the sealed segment too";
  EXPECT_EQ(store.append({11, 3}), AppendStatus::kOk);
  EXPECT_EQ(store.append({10, 4}), AppendStatus::kOutOfOrder);
  EXPECT_EQ(store.query(0, 100).samples.size(), 3u);
}

TEST(SegmentStore, QueriesReturnExactlyTheWindow) {
  SegmentStore store = ten_segments();
  for (auto [from, to] : std::vector<std::pair<int, int>>{{0, 999}, {350, 520}, {99, 100}, {999, 2000}, {-50, 0},
                                                          {500, 500}, {1000, 1200}, {600, 400}}) {
    EXPECT_EQ(store.query(from, to).samples, brute_force(from, to, 1000)) << from << ".." << to;
  }
}

TEST(SegmentStore, TheIndexSkipsSegmentsOutsideTheWindow) {
  SegmentStore store = ten_segments();
  const auto r = store.query(350, 520);  // segments 3, 4, 5
  EXPECT_EQ(r.stats.segments_total, 10u);
  EXPECT_EQ(r.stats.segments_scanned, 3u);
  EXPECT_EQ(r.stats.segments_skipped, 7u);
  EXPECT_EQ(store.query(2000, 3000).stats.segments_scanned, 0u);
  EXPECT_EQ(store.query(600, 400).stats.segments_scanned, 0u) << "an empty window reads nothing";
}

TEST(SegmentStore, WindowEdgesOnSegmentBoundariesAreInclusive) {
  SegmentStore store = ten_segments();
  auto r = store.query(199, 199);  // segment 1's max
  EXPECT_EQ(r.stats.segments_scanned, 1u);
  ASSERT_EQ(r.samples.size(), 1u);
  r = store.query(150, 200);  // ends on segment 2's min
  EXPECT_EQ(r.stats.segments_scanned, 2u);
  EXPECT_EQ(r.samples.back().time_ms, 200);
}

TEST(SegmentStore, TheHeadIsQueriedToo) {
  SegmentStore store(100);
  for (int t = 0; t < 150; ++t) store.append({t, t * 0.5});
  const auto r = store.query(90, 120);
  EXPECT_TRUE(r.stats.head_scanned);
  EXPECT_EQ(r.samples, brute_force(90, 120, 150));
}

TEST(SegmentStore, CompactionDropsWholeSegmentsAndLeavesSurvivorsBytesUnchanged) {
  SegmentStore store = ten_segments();
  std::vector<std::vector<std::uint8_t>> bytes_before;
  std::vector<const Segment*> objects_before;
  for (const auto& s : store.segments()) {
    bytes_before.push_back(s->bytes());
    objects_before.push_back(s.get());
  }
  // now 1000, ttl 650: cutoff 350. Segments 0-2 (max 99, 199, 299) expire; segment 3
  // (300..399) straddles the cutoff and survives whole.
  EXPECT_EQ(store.compact(1000, 650), 3u);
  ASSERT_EQ(store.segments().size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(store.segments()[i].get(), objects_before[i + 3]) << "segment " << i + 3 << " was rebuilt";
    EXPECT_EQ(store.segments()[i]->bytes(), bytes_before[i + 3]) << "segment " << i + 3 << " was rewritten";
  }
  const auto r = store.query(0, 999);
  EXPECT_EQ(r.samples.front().time_ms, 300) << "the straddling segment keeps its pre-cutoff samples";
  EXPECT_EQ(r.samples.size(), 700u);
}

TEST(SegmentStore, CompactionAtTheExactCutoffKeepsTheSegment) {
  // max_time < cutoff drops; max_time == cutoff is still within the TTL.
  SegmentStore store = ten_segments();
  EXPECT_EQ(store.compact(1099, 1000), 0u);  // cutoff 99 == segment 0's max
  EXPECT_EQ(store.compact(1100, 1000), 1u);  // cutoff 100
}

TEST(SegmentStore, CompactionNeverTouchesTheHead) {
  SegmentStore store(100);
  for (int t = 0; t < 50; ++t) store.append({t, 0});
  EXPECT_EQ(store.compact(1'000'000, 1), 0u);
  EXPECT_EQ(store.head_size(), 50u);
}

}  // namespace
}  // namespace ridge::lab
