// Where a question stands for one user, as the lists show it, and how many new questions the
// review page offers today. Pure: the caller passes the time and the store's rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace ridge::practice {

enum class CardState { kNew, kDue, kSeen, kMastered };

// Mastered: FSRS stability of 21 days or more (what Anki calls a mature card: at the default
// 90% retention it next comes back in three weeks or later) and not due now.
constexpr double kMasteredStabilityDays = 21;

// "new", "due", "seen", "mastered".
const char* state_name(CardState s);

// nullptr: never graded (new). Due wins over mastered: what needs a review now says so.
CardState card_state(const store::Card* card, int64_t now);

// The start of the UTC day holding `now`: the daily limit counts from there.
int64_t utc_day_start(int64_t now);

// How many questions had their first review today (UTC), from the review log.
int new_cards_today(const std::vector<store::ReviewLog>& reviews, int64_t now);

// Up to `limit - introduced` of `candidates` (in order) that have no card: what the review
// page offers as new today.
std::vector<std::string> new_for_today(const std::vector<std::string>& candidates, const std::vector<store::Card>& cards,
                                       int limit, int introduced);

// The accepted range of the setting.
constexpr int kMaxNewPerDay = 200;

}  // namespace ridge::practice
