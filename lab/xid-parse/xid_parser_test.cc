#include "xid_parser.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

std::string sample_log() {
  std::ifstream in(std::string(RIDGE_SOURCE_DIR) + "/lab/xid-parse/testdata/sample.log");
  EXPECT_TRUE(in.good()) << "lab/xid-parse/testdata/sample.log missing";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count(const XidParse& p, const std::string& bus, int xid) {
  int n = 0;
  for (const auto& e : p.events) n += e.bus == bus && e.xid == xid;
  return n;
}

TEST(XidParse, BusIdsFromDmesgAndNvidiaSmiJoin) {
  EXPECT_EQ(normalize_bus("PCI:0000:3B:00"), "0000:3b:00");
  EXPECT_EQ(normalize_bus("00000000:3B:00.0"), "0000:3b:00");  // nvidia-smi --query-gpu=pci.bus_id
  EXPECT_EQ(normalize_bus("0000:3b:00.1"), "0000:3b:00");
  EXPECT_EQ(normalize_bus("00010000:3b:00.0"), "00010000:3b:00");  // a real second domain stays distinct
  EXPECT_EQ(normalize_bus("3b:00"), "");
  EXPECT_EQ(normalize_bus("not a bus"), "");
}

TEST(XidParse, OlderDriverLineWithoutPciPrefixIsParsed) {
  const auto p = parse_xids(sample_log());
  EXPECT_EQ(count(p, "0000:18:00", 119), 1);  // "(0000:18:00)", journalctl short-monotonic
}

TEST(XidParse, MultiLineFaultIsOneEventNotTwo) {
  const auto p = parse_xids(sample_log());
  EXPECT_EQ(count(p, "0000:3b:00", 13), 2);  // two faults two hours apart; the first printed two lines
  ASSERT_FALSE(p.events.empty());
  EXPECT_EQ(p.events[0].lines, 2);
  EXPECT_EQ(p.events[0].line, 1);
}

TEST(XidParse, TheSampleLogGivesEightEventsFromNineLines) {
  const auto p = parse_xids(sample_log());
  EXPECT_EQ(p.xid_lines, 9);
  EXPECT_EQ(p.events.size(), 8u);
  EXPECT_EQ(count(p, "0000:18:00", 31), 1);  // syslog prefix before the monotonic time
  EXPECT_EQ(count(p, "0000:86:00", 79), 1);  // the driver's follow-up line is not an XID
}

TEST(XidParse, UnparseableXidLinesAreReportedNotGuessedOrFatal) {
  const auto p = parse_xids(sample_log());
  ASSERT_EQ(p.skipped.size(), 2u);
  EXPECT_EQ(p.skipped[0], "line 11: an XID line without a monotonic [seconds.micros] timestamp (dmesg -T?)");
  EXPECT_EQ(p.skipped[1], "line 12: an XID line in an unrecognized format");
  EXPECT_EQ(count(p, "0000:18:00", 13), 0);
  // Truncated and garbage input: no crash, nothing invented.
  for (const char* bad : {"", "\n\n", "NVRM: Xid", "[ 1.0] NVRM: Xid (PCI:0000:3b:00): ", "[ 1.0] NVRM: Xid (PCI:zz:3b:00): 13, x"}) {
    const auto q = parse_xids(bad);
    EXPECT_TRUE(q.events.empty()) << bad;
  }
}

TEST(XidParse, FoldingWindowIsUnderOneSecond) {
  const auto p = parse_xids(
      "[ 10.000000] NVRM: Xid (PCI:0000:3b:00): 13, a\n"
      "[ 10.999999] NVRM: Xid (PCI:0000:3b:00): 13, b\n"
      "[ 12.000000] NVRM: Xid (PCI:0000:3b:00): 13, c\n"   // 1.000001 s after b: a new event
      "[ 12.500000] NVRM: Xid (PCI:0000:3b:00): 43, d\n"   // another XID: a new event
      "[ 12.600000] NVRM: Xid (PCI:0000:86:00): 13, e\n");  // another GPU: a new event
  ASSERT_EQ(p.events.size(), 4u);
  EXPECT_EQ(p.events[0].lines, 2);
  EXPECT_EQ(p.events[1].detail, "c");
}

TEST(XidParse, BurstCauseIsTheFirstXidAndTheGapIsUnderTenSeconds) {
  const auto b = bursts(parse_xids(sample_log()).events);
  // gpu 0000:b7:00: 94, then 43, then 63 within 2 s: one burst caused by 94.
  const XidBurst* b7 = nullptr;
  for (const auto& x : b)
    if (x.bus == "0000:b7:00") b7 = &x;
  ASSERT_NE(b7, nullptr);
  EXPECT_EQ(b7->cause, 94);
  EXPECT_EQ(b7->then, (std::vector<int>{43, 63}));
  const auto edge = bursts(parse_xids("[ 100.000000] NVRM: Xid (PCI:0000:3b:00): 94, a\n"
                                      "[ 110.000000] NVRM: Xid (PCI:0000:3b:00): 43, b\n")
                               .events);
  EXPECT_EQ(edge.size(), 2u);  // exactly 10 s apart: two bursts
}

TEST(XidParse, ApplicationXidsDoNotDrainTheNode) {
  for (int x : {13, 31, 43, 45}) EXPECT_EQ(action_for(x), XidAction::kRestartJob) << x;
  EXPECT_EQ(action_for(94), XidAction::kRestartApp);
  EXPECT_EQ(action_for(63), XidAction::kResetAtNextDrain);
  EXPECT_EQ(action_for(64), XidAction::kDrainAndRma);
  for (int x : {74, 79}) EXPECT_EQ(action_for(x), XidAction::kDrainNode) << x;
  for (int x : {48, 95, 109, 119, 120}) EXPECT_EQ(action_for(x), XidAction::kResetGpu) << x;
  EXPECT_EQ(action_for(12345), XidAction::kUnclassified);
}

}  // namespace
}  // namespace ridge::lab
