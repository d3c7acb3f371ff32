#include "burn_rate.h"

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

using Rule = BurnRateAlert::Rule;

const Rule kPage{"page 1h/5m > 14.4", 60, 5, 14.4};
const Rule kSingle{"single 1h > 14.4", 60, 60, 14.4};
const Rule kNaive{"naive 5m > 1", 5, 5, 1.0};
const Rule kTicket{"ticket 3d/6h > 1", 4320, 360, 1.0};

// 10,000 requests a minute at `rate` errors.
void minute(BurnRateAlert& a, int m, double rate) {
  const std::int64_t total = 10'000, bad = static_cast<std::int64_t>(rate * total + 0.5);
  a.record(m, total - bad, total);
}

struct Episode {
  int first = -1;  // minutes from the incident's start to the first firing
  int after = -1;  // minutes it kept firing after the incident ended
};

// Two hours of clean traffic, then `minutes` at `rate`, then two clean hours.
Episode replay(const Rule& rule, int minutes, double rate) {
  BurnRateAlert a(0.999, {rule});
  const int start = 120;
  Episode e;
  for (int m = 0; m < start + minutes + 120; ++m) {
    minute(a, m, m >= start && m < start + minutes ? rate : 0.0002);
    if (a.fires(rule)) {
      if (e.first < 0) e.first = m - start;
      e.after = m - (start + minutes) + 1;
    }
  }
  return e;
}

TEST(BurnRate, LongWindowAloneBugKeepsPagingAfterTheFix) {
  const Episode paired = replay(kPage, 20, 0.10);
  const Episode single = replay(kSingle, 20, 0.10);
  EXPECT_EQ(paired.first, 8);
  EXPECT_EQ(single.first, 8);
  EXPECT_EQ(paired.after, 4);    // the 5-minute window clears it
  EXPECT_EQ(single.after, 51);   // an hour of history keeps the ratio up
}

TEST(BurnRate, ShortWindowAloneBugPagesOnABlip) {
  EXPECT_EQ(replay(kPage, 1, 0.5).first, -1);
  EXPECT_EQ(replay(kNaive, 1, 0.5).first, 0);
}

TEST(BurnRate, AveragedRatiosBugSumsBadAndTotalBeforeDividing) {
  BurnRateAlert a(0.5, {{"r", 2, 1, 1.0}});
  a.record(0, 50, 100);     // half of a quiet minute failed
  a.record(1, 10'000, 10'000);  // a busy minute, all good
  // (50 / 10,100) / 0.5, not the mean of the ratios (0.25 / 0.5).
  EXPECT_DOUBLE_EQ(a.burn(2), (50.0 / 10'100.0) / 0.5);
}

TEST(BurnRate, PartialWindowBugNoFiringUntilTheLongWindowIsFull) {
  const Rule r{"page", 60, 5, 14.4};
  BurnRateAlert a(0.999, {r});
  for (int m = 0; m < 59; ++m) {
    minute(a, m, 1.0);  // a total outage from the first minute after a restart
    EXPECT_FALSE(a.fires(r)) << "minute " << m;
  }
  minute(a, 59, 1.0);
  EXPECT_TRUE(a.fires(r));
}

TEST(BurnRate, ThresholdIsStrictlyAbove) {
  const Rule r{"r", 1, 1, 1.0};
  BurnRateAlert a(0.5, {r});
  a.record(0, 1, 2);  // ratio 0.5 over a budget of 0.5: burn exactly 1
  EXPECT_DOUBLE_EQ(a.burn(1), 1.0);
  EXPECT_FALSE(a.fires(r));
  a.record(1, 1, 3);
  EXPECT_TRUE(a.fires(r));
}

TEST(BurnRate, RunningSumsMatchAFullSum) {
  BurnRateAlert a(0.999, {kPage, kTicket, {"odd", 97, 13, 2.0}});
  std::mt19937_64 rng(20261201);
  std::vector<std::int64_t> bad, total;
  int m = 0;
  for (int i = 0; i < 6000; ++i) {
    m += 1 + (rng() % 50 == 0 ? static_cast<int>(rng() % 5) : 0);  // a few gaps
    while (static_cast<int>(total.size()) < m - 1) {  // skipped minutes: no traffic
      bad.push_back(0);
      total.push_back(0);
    }
    const std::int64_t t = static_cast<std::int64_t>(rng() % 20'000), b = t == 0 ? 0 : static_cast<std::int64_t>(rng() % (t / 50 + 1));
    a.record(m, t - b, t);
    bad.push_back(b);
    total.push_back(t);
    if (i % 37 != 0) continue;
    for (int w : {60, 5, 4320, 360, 97, 13, 7}) {
      std::int64_t sb = 0, st = 0;
      for (int k = 0; k < w && k < static_cast<int>(total.size()); ++k) {
        sb += bad[bad.size() - 1 - k];
        st += total[total.size() - 1 - k];
      }
      const double want = st == 0 ? 0.0 : (static_cast<double>(sb) / static_cast<double>(st)) / (1.0 - 0.999);
      ASSERT_DOUBLE_EQ(a.burn(w), want) << "minute " << m << " window " << w;
    }
  }
}

TEST(BurnRate, SlowBurnTicketsAndTheSixHourPageWaits) {
  // The question's timeline: a fast burn at minute 5,000 (10% for 20 min), then the slow
  // burn at 7,000 (0.8% for 12 h); the 3-day window still holds the fast burn.
  const Rule page6{"page 6h/30m > 6", 360, 30, 6.0};
  BurnRateAlert a(0.999, {kPage, page6, kTicket});
  int first_page = -1, first_ticket = -1;
  for (int m = 0; m < 7000 + 720; ++m) {
    minute(a, m, m >= 7000 ? 0.008 : (m >= 5000 && m < 5020 ? 0.10 : 0.0002));
    if (m < 7000) continue;
    if (first_page < 0 && a.fires(page6)) first_page = m - 7000;
    if (first_ticket < 0 && a.fires(kTicket)) first_ticket = m - 7000;
    EXPECT_FALSE(a.fires(kPage)) << "minute " << m;  // the fast page is not for a slow burn
  }
  EXPECT_EQ(first_ticket, 187);
  EXPECT_EQ(first_page, 267);
}

TEST(BurnRate, BadInputIsRefusedAndChangesNothing) {
  EXPECT_THROW(BurnRateAlert(1.0, {kPage}), std::invalid_argument);
  EXPECT_THROW(BurnRateAlert(0.999, {}), std::invalid_argument);
  EXPECT_THROW(BurnRateAlert(0.999, {{"bad", 5, 60, 1.0}}), std::invalid_argument);
  EXPECT_THROW(BurnRateAlert(0.999, {{"bad", 60, 5, 0.0}}), std::invalid_argument);
  BurnRateAlert a(0.999, {kPage});
  a.record(10, 90, 100);
  EXPECT_THROW(a.record(10, 90, 100), std::invalid_argument);
  EXPECT_THROW(a.record(11, 101, 100), std::invalid_argument);
  EXPECT_THROW(a.record(11, -1, 100), std::invalid_argument);
  EXPECT_EQ(a.minutes_recorded(), 1);
  EXPECT_THROW(a.burn(61), std::invalid_argument);
  EXPECT_THROW(a.burn(0), std::invalid_argument);
}

}  // namespace
}  // namespace ridge::lab
