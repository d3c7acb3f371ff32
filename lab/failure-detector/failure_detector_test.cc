#include "failure_detector.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/invalid_argument_message.h"

namespace ridge::lab {
namespace {

// The tests own time: each detector is fed arrival times by hand, nothing sleeps.
FailureDetector regular(FailureDetector d, int beats, double period_ms) {
  for (int i = 0; i <= beats; ++i) d.heartbeat(period_ms * i);
  return d;
}

TEST(FailureDetector, FixedTimeoutSuspectsOnlyPastTheTimeout) {
  FailureDetector d = FailureDetector::fixed(3000);
  EXPECT_FALSE(d.suspect(1e9));  // before the first heartbeat nothing is known
  d.heartbeat(10'000);
  EXPECT_FALSE(d.suspect(13'000));  // exactly the timeout: not yet
  EXPECT_TRUE(d.suspect(13'000.5));
}

TEST(FailureDetector, TheNormalQuantileMatchesTheThreshold) {
  EXPECT_NEAR(FailureDetector::z_for(3), 3.0902, 1e-4);  // P(Z > z) = 1e-3
  EXPECT_NEAR(FailureDetector::z_for(8), 5.6120, 1e-4);  // 1e-8
  FailureDetector d = regular(FailureDetector::phi(8, 500), 200, 1000);
  EXPECT_NEAR(d.phi_at(d.deadline()), 8.0, 1e-6);  // the deadline is where phi crosses
  EXPECT_LT(d.phi_at(d.deadline() - 1), 8.0);
}

TEST(FailureDetector, MinSdFloorKeepsASmallDelayOnRegularBeatsBelowThreshold) {
  // Perfectly regular beats fit a standard deviation of ~0: without the floor any lateness
  // at all is a one-in-a-hundred-million event and a 30 ms delay kills the node.
  FailureDetector d = regular(FailureDetector::phi(8, 0), 100, 1000);
  EXPECT_FALSE(d.suspect(100'000 + 1030));
  EXPECT_NEAR(d.phi_at(1030), 2.87, 0.01);
  EXPECT_NEAR(d.deadline(), 1000 + FailureDetector::z_for(8) * 10, 1e-6);
}

TEST(FailureDetector, OnlyCompletedIntervalsEnterTheWindow) {
  FailureDetector d = regular(FailureDetector::phi(8, 0), 100, 1000);
  const double before = d.deadline();
  for (double now = 100'000; now < 200'000; now += 500) (void)d.suspect(now);  // a long silence, asked often
  EXPECT_EQ(d.deadline(), before);
  EXPECT_EQ(d.intervals(), 100u);
  d.heartbeat(200'000);  // the silence ends: now it is one completed interval
  EXPECT_EQ(d.intervals(), 101u);
  EXPECT_GT(d.deadline(), before);
}

TEST(FailureDetector, WindowSlidesSoOldBehaviourIsForgotten) {
  FailureDetector d = regular(FailureDetector::phi(8, 0, /*window=*/50), 200, 1000);
  double t = 200'000;
  for (int i = 0; i < 50; ++i) d.heartbeat(t += 2000);  // the node now beats every 2 s
  EXPECT_EQ(d.intervals(), 50u);
  EXPECT_NEAR(d.deadline(), 2000 + FailureDetector::z_for(8) * 10, 1e-6);
}

TEST(FailureDetector, ClockSteppedBackIsRefusedNotLearned) {
  FailureDetector d = regular(FailureDetector::phi(8, 0), 10, 1000);
  const double before = d.deadline();
  EXPECT_FALSE(d.heartbeat(5000));  // a wall clock stepped back by NTP
  EXPECT_EQ(d.intervals(), 10u);
  EXPECT_EQ(d.deadline(), before);
  EXPECT_TRUE(d.suspect(10'000 + before + 1));  // still measured from the real last beat
}

TEST(FailureDetector, PhiWithoutAPauseTermAlarmsOnStallsAndWithOneIsQuiet) {
  const DetectorResult bare = simulate(FailureDetector::phi(8, 0), 20261201, 200'000);
  const DetectorResult paused = simulate(FailureDetector::phi(8, 3000), 20261201, 200'000);
  const DetectorResult fixed3 = simulate(FailureDetector::fixed(3000), 20261201, 200'000);
  EXPECT_GT(bare.false_per_day, fixed3.false_per_day);  // worse than a fixed 3 s timeout
  EXPECT_EQ(paused.false_per_day, 0.0);
  EXPECT_LT(bare.detect_calm_s, 1.5);
}

TEST(FailureDetector, PhiDeadlineFollowsCongestionAFixedOneDoesNot) {
  const DetectorResult phi = simulate(FailureDetector::phi(3, 3000), 20261201, 200'000);
  const DetectorResult fixed = simulate(FailureDetector::fixed(4500), 20261201, 200'000);
  EXPECT_GT(phi.detect_congested_s, phi.detect_calm_s + 0.2);
  EXPECT_EQ(fixed.detect_calm_s, 4.5);
  EXPECT_EQ(fixed.detect_congested_s, 4.5);
}

TEST(FailureDetector, BadParametersNameTheFieldAndTheValue) {
  EXPECT_EQ(invalid_argument_message([] { (void)FailureDetector::fixed(0); }), "timeout_ms 0.000000: must be > 0");
  EXPECT_EQ(invalid_argument_message([] { (void)FailureDetector::phi(-1, 0); }), "threshold -1.000000: must be in (0, 300]");
  EXPECT_EQ(invalid_argument_message([] { (void)FailureDetector::phi(8, 0, 1); }), "window 1: must be >= 2");
  EXPECT_EQ(invalid_argument_message([] { (void)FailureDetector::phi(8, 0, 100, 0); }), "min_sd_ms 0.000000: must be > 0");
}

}  // namespace
}  // namespace ridge::lab
