// The weekly question by mail: which free question a subscriber gets in a given ISO week,
// and the message (text and HTML, the TL;DR and a link). Pure over the bank; the send
// record that makes it once per week lives in the store (Store::queue_weekly).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "mail/mail.h"
#include "store/store.h"

namespace ridge::mail {

// "2026-W49" (ISO 8601 week-numbering year and week, UTC).
std::string iso_week(int64_t unix_seconds);
// Weeks since the first ISO week of 1970: the rotation's counter.
int64_t week_index(int64_t unix_seconds);

// The week's free question for a subscriber: topics in rotation (week_index modulo the number
// of topics, then the following ones), the first free question of that topic this
// subscriber was never sent. nullptr when they have had every free question.
const bank::Question* pick_weekly(const bank::Bank& bank, int64_t week, const std::vector<std::string>& already_sent);

Message weekly_message(const bank::Bank& bank, const bank::Question& q, const std::string& to, const std::string& base_url,
                       const std::string& unsubscribe_url, const std::string& week);

// Mock loops (issue 36): the round type (question, numeric, design or coding) a subscriber
// with an account scored lowest over their finished rehearsals, by the mean of every rubric
// score of rounds of that type (ties: the type named first alphabetically), and the loop it
// was last rehearsed in, offered as next week's rehearsal. nullopt without a scored round.
struct WeakestRound {
  std::string kind;
  double mean = 0;   // 1 to 4
  int rounds = 0;    // scored rounds of the type
  std::string source;  // "company:ID" or "track:ID": the latest rehearsal with the type
};
std::optional<WeakestRound> weakest_round_type(const std::vector<store::Rehearsal>& rehearsals);
// Adds the offer to a weekly message, above its footer (text and HTML).
void add_rehearsal_offer(Message& m, const WeakestRound& w, const std::string& base_url);

}  // namespace ridge::mail
