#include "trace_summary.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

std::string sample_trace() {
  std::ifstream in(std::string(RIDGE_SOURCE_DIR) + "/lab/trace-parse/sample_trace.json");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Worked by hand from sample_trace.json:
// GPU 0: stream 7 runs gemm [100, 150), gemm [160, 210), softmax [210, 220),
//        gemm [400.5, 450); stream 8 runs nccl [140, 240) and a memcpy [300, 320).
//        Busy union: [100, 240), [300, 320), [400.5, 450) = 209.5 us of a 350 us span;
//        gaps [240, 300) and [320, 400.5).
// GPU 1: gemm [100, 160), softmax [170, 180): busy 70 of 80, one 10 us gap.
// One kernel event has no dur: skipped. CPU ops, metadata and the instant are ignored.
TEST(TraceSummary, SampleTraceKernelTotals) {
  const auto r = summarize_trace(sample_trace());
  ASSERT_TRUE(r.summary.has_value()) << r.error;
  const auto& s = *r.summary;
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].name, "gemm_bf16");
  EXPECT_EQ(s.kernels[0].count, 4u);
  EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 209.5);
  EXPECT_EQ(s.kernels[1].name, "nccl_allreduce");
  EXPECT_DOUBLE_EQ(s.kernels[1].total_us, 100);
  EXPECT_EQ(s.kernels[2].name, "softmax");
  EXPECT_EQ(s.kernels[2].count, 2u);
  EXPECT_DOUBLE_EQ(s.kernels[2].total_us, 20);
  EXPECT_EQ(s.events_total, 15u);
  EXPECT_EQ(s.events_gpu, 8u);
  EXPECT_EQ(s.events_skipped, 1u);
}

TEST(TraceSummary, SampleTraceIdleGapsUseTheUnionOfStreams) {
  const auto r = summarize_trace(sample_trace());
  ASSERT_TRUE(r.summary.has_value()) << r.error;
  const auto& devices = r.summary->devices;
  ASSERT_EQ(devices.size(), 2u);
  const auto& gpu0 = devices[0];
  EXPECT_EQ(gpu0.device, "0");
  EXPECT_DOUBLE_EQ(gpu0.busy_us, 209.5);
  EXPECT_DOUBLE_EQ(gpu0.span_us, 350);
  ASSERT_EQ(gpu0.gaps.size(), 2u) << "nccl on stream 8 covers stream 7's gap at [150, 160)";
  EXPECT_DOUBLE_EQ(gpu0.gaps[0].start_us, 240);
  EXPECT_DOUBLE_EQ(gpu0.gaps[0].end_us, 300);
  EXPECT_DOUBLE_EQ(gpu0.gaps[1].start_us, 320);
  EXPECT_DOUBLE_EQ(gpu0.gaps[1].end_us, 400.5);
  EXPECT_EQ(devices[1].device, "1");
  EXPECT_DOUBLE_EQ(devices[1].busy_us, 70);
  ASSERT_EQ(devices[1].gaps.size(), 1u);
}

TEST(TraceSummary, MinGapFiltersShortGaps) {
  const auto r = summarize_trace(sample_trace(), 20);
  ASSERT_TRUE(r.summary.has_value());
  EXPECT_EQ(r.summary->devices[0].gaps.size(), 2u);
  EXPECT_TRUE(r.summary->devices[1].gaps.empty()) << "a 10 us gap is not > 20 us";
}

TEST(TraceSummary, ABareArrayIsATraceToo) {
  const auto r = summarize_trace(R"([{"name":"k","ph":"X","cat":"kernel","pid":"gpu-a","tid":1,"ts":0,"dur":5},
                                     {"name":"k","ph":"X","cat":"kernel","pid":"gpu-a","tid":1,"ts":10,"dur":5}])");
  ASSERT_TRUE(r.summary.has_value()) << r.error;
  EXPECT_EQ(r.summary->devices[0].device, "gpu-a");
  EXPECT_DOUBLE_EQ(r.summary->kernels[0].total_us, 10);
  ASSERT_EQ(r.summary->devices[0].gaps.size(), 1u);
}

TEST(TraceSummary, MalformedInputIsAnErrorValue) {
  auto r = summarize_trace("{\"traceEvents\": [");
  EXPECT_FALSE(r.summary.has_value());
  EXPECT_NE(r.error.find("not valid JSON"), std::string::npos) << r.error;
  r = summarize_trace("{\"events\": []}");
  EXPECT_FALSE(r.summary.has_value());
  EXPECT_NE(r.error.find("traceEvents"), std::string::npos) << r.error;
  r = summarize_trace("42");
  EXPECT_FALSE(r.summary.has_value());
}

TEST(TraceSummary, BadEventsAreSkippedAndCounted) {
  const auto r = summarize_trace(R"({"traceEvents": [
      7,
      {"name":"k","ph":"X","cat":"kernel","pid":0,"ts":"0","dur":5},
      {"name":"k","ph":"X","cat":"kernel","pid":0,"ts":0,"dur":-1},
      {"name":42,"ph":"X","cat":"kernel","pid":0,"ts":0,"dur":1},
      {"name":"ok","ph":"X","cat":"kernel","pid":0,"ts":0,"dur":1}]})");
  ASSERT_TRUE(r.summary.has_value());
  EXPECT_EQ(r.summary->events_skipped, 4u);
  EXPECT_EQ(r.summary->events_gpu, 1u);
}

TEST(TraceSummary, AnEmptyTraceHasNothingToReport) {
  const auto r = summarize_trace(R"({"traceEvents": []})");
  ASSERT_TRUE(r.summary.has_value());
  EXPECT_TRUE(r.summary->kernels.empty());
  EXPECT_TRUE(r.summary->devices.empty());
}

}  // namespace
}  // namespace ridge::lab
