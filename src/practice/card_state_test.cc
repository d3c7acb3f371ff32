#include "practice/card_state.h"

#include <gtest/gtest.h>

namespace ridge::practice {
namespace {

constexpr int64_t kDay = 86400;
constexpr int64_t kNoon = 20000 * kDay + 12 * 3600;  // noon UTC on some day

store::Card card(const std::string& slug, double stability, int64_t due) { return {slug, stability, 5, due, kNoon - 60, 1, 0}; }

TEST(CardState, NewDueSeenMastered) {
  EXPECT_EQ(card_state(nullptr, kNoon), CardState::kNew);
  auto learning = card("a", 0.5, kNoon + 600);
  EXPECT_EQ(card_state(&learning, kNoon), CardState::kSeen);
  EXPECT_EQ(card_state(&learning, kNoon + 600), CardState::kDue);  // due at its time, not after
  auto strong = card("b", kMasteredStabilityDays, kNoon + 30 * kDay);
  EXPECT_EQ(card_state(&strong, kNoon), CardState::kMastered);
  auto almost = card("c", kMasteredStabilityDays - 0.1, kNoon + 20 * kDay);
  EXPECT_EQ(card_state(&almost, kNoon), CardState::kSeen);
  // A mastered card that is due says due: it needs the review now.
  EXPECT_EQ(card_state(&strong, kNoon + 31 * kDay), CardState::kDue);
  EXPECT_STREQ(state_name(CardState::kMastered), "mastered");
  EXPECT_STREQ(state_name(CardState::kNew), "new");
}

TEST(CardState, DaysStartAtMidnightUtc) {
  EXPECT_EQ(utc_day_start(kNoon), 20000 * kDay);
  EXPECT_EQ(utc_day_start(20000 * kDay), 20000 * kDay);
  EXPECT_EQ(utc_day_start(20000 * kDay - 1), 19999 * kDay);
}

TEST(CardState, NewCardsTodayCountsFirstReviewsSinceMidnight) {
  std::vector<store::ReviewLog> history = {
      {"old", 3, kNoon - 2 * kDay},  // first seen two days ago
      {"old", 3, kNoon - 100},       // reviewed again today: not new today
      {"fresh", 1, kNoon - 3000},    // first seen today, then its learning steps
      {"fresh", 3, kNoon - 2900},
      {"fresh", 3, kNoon - 2000},
      {"also", 4, 20000 * kDay},     // at midnight exactly: today
      {"yesterday", 3, 20000 * kDay - 1},
  };
  EXPECT_EQ(new_cards_today(history, kNoon), 2);
  EXPECT_EQ(new_cards_today({}, kNoon), 0);
  // The next day nothing of this log is new.
  EXPECT_EQ(new_cards_today(history, kNoon + kDay), 0);
}

TEST(CardState, NewForTodayStopsAtTheLimitAndSkipsSeenQuestions) {
  std::vector<std::string> candidates = {"a", "b", "c", "d", "e"};
  std::vector<store::Card> cards = {card("b", 1, kNoon)};
  EXPECT_EQ(new_for_today(candidates, cards, 3, 0), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(new_for_today(candidates, cards, 3, 2), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(new_for_today(candidates, cards, 3, 3).empty());
  EXPECT_TRUE(new_for_today(candidates, cards, 3, 7).empty());  // over the limit: none, not negative
  EXPECT_TRUE(new_for_today(candidates, cards, 0, 0).empty());
}

}  // namespace
}  // namespace ridge::practice
