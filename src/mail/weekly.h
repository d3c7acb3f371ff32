// The weekly question by mail: which free question a subscriber gets in a given ISO week,
// and the message (text and HTML, the TL;DR and a link). Pure over the bank; the send
// record that makes it once per week lives in the store (Store::queue_weekly).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "mail/mail.h"

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

}  // namespace ridge::mail
