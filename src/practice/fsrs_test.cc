#include "practice/fsrs.h"

#include <gtest/gtest.h>

namespace ridge::practice {
namespace {

TEST(Fsrs, PublishedVectorsGoodGoodAgain) {
  Fsrs fsrs;
  // New card rated Good: S = w2 = 2.3065, D = w4 − e^(w5 × 2) + 1 = 2.1181, due in 2 days.
  Schedule a = fsrs.first(Grade::kGood);
  EXPECT_NEAR(a.memory.stability, 2.3065, 5e-5);
  EXPECT_NEAR(a.memory.difficulty, 2.1181, 5e-5);
  EXPECT_EQ(a.interval_days, 2);
  // Good again on day 2: S = 10.9643, D = 2.1112, due in 11 days.
  Schedule b = fsrs.next(a.memory, 2, Grade::kGood);
  EXPECT_NEAR(b.memory.stability, 10.9643, 5e-4);
  EXPECT_NEAR(b.memory.difficulty, 2.1112, 5e-5);
  EXPECT_EQ(b.interval_days, 11);
  // Again when due (11 days later): S = 1.5383, D = 7.3922.
  Schedule c = fsrs.next(b.memory, 11, Grade::kAgain);
  EXPECT_NEAR(c.memory.stability, 1.5383, 5e-4);
  EXPECT_NEAR(c.memory.difficulty, 7.3922, 5e-4);
}

TEST(Fsrs, HardAndEasyWorkedByHand) {
  Fsrs fsrs;
  // First Hard: S = w1 = 1.2931; D = 6.4133 − e^0.8334 + 1 = 6.4133 − 2.3012 + 1 = 5.1121; 1 day.
  Schedule hard = fsrs.first(Grade::kHard);
  EXPECT_NEAR(hard.memory.stability, 1.2931, 1e-9);
  EXPECT_NEAR(hard.memory.difficulty, 5.1121, 5e-4);
  EXPECT_EQ(hard.interval_days, 1);
  // First Easy: S = w3 = 8.2956, 8 days; D = 6.4133 − e^(3 × 0.8334) + 1 = −4.77, clamped to 1.
  Schedule easy = fsrs.first(Grade::kEasy);
  EXPECT_NEAR(easy.memory.stability, 8.2956, 1e-9);
  EXPECT_DOUBLE_EQ(easy.memory.difficulty, 1.0);
  EXPECT_EQ(easy.interval_days, 8);
  // From the Good card (S 2.3065, D 2.1181) on day 2, Hard multiplies the growth by w15 =
  // 0.6014 and Easy by w16 = 1.8729: growth for Good was 10.9643 / 2.3065 − 1 = 3.7536.
  Schedule good = fsrs.first(Grade::kGood);
  Schedule h = fsrs.next(good.memory, 2, Grade::kHard);
  Schedule e = fsrs.next(good.memory, 2, Grade::kEasy);
  EXPECT_NEAR(h.memory.stability, 2.3065 * (1 + 3.7536 * 0.6014), 2e-3);
  EXPECT_NEAR(e.memory.stability, 2.3065 * (1 + 3.7536 * 1.8729), 2e-3);
  // Hard raises difficulty: 2.1181 + 3.0194 × (10 − 2.1181) / 9 = 4.7624, then 0.1% reversion.
  EXPECT_NEAR(h.memory.difficulty, 0.001 * -4.7717 + 0.999 * 4.7624, 1e-3);
  EXPECT_LT(e.memory.difficulty, good.memory.difficulty);
}

TEST(Fsrs, RetentionChangesTheInterval) {
  // At the desired retention the interval equals the stability; asking for more retention
  // shortens it.
  Fsrs r90(0.9), r95(0.95);
  EXPECT_EQ(r90.interval(30), 30);
  EXPECT_LT(r95.interval(30), 30);
  EXPECT_NEAR(r90.retrievability(30, 30), 0.9, 1e-9);
}

}  // namespace
}  // namespace ridge::practice
