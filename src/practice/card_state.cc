#include "practice/card_state.h"

#include <algorithm>
#include <map>
#include <set>

namespace ridge::practice {

const char* state_name(CardState s) {
  switch (s) {
    case CardState::kNew: return "new";
    case CardState::kDue: return "due";
    case CardState::kSeen: return "seen";
    case CardState::kMastered: return "mastered";
  }
  return "new";
}

CardState card_state(const store::Card* card, int64_t now) {
  if (card == nullptr) return CardState::kNew;
  if (card->due <= now) return CardState::kDue;
  return card->stability >= kMasteredStabilityDays ? CardState::kMastered : CardState::kSeen;
}

int64_t utc_day_start(int64_t now) {
  int64_t day = now >= 0 ? now / 86400 : (now - 86399) / 86400;
  return day * 86400;
}

int new_cards_today(const std::vector<store::ReviewLog>& reviews, int64_t now) {
  std::map<std::string, int64_t> first;
  for (const auto& r : reviews) {
    auto [it, fresh] = first.emplace(r.slug, r.reviewed_at);
    if (!fresh) it->second = std::min(it->second, r.reviewed_at);
  }
  int64_t start = utc_day_start(now);
  return static_cast<int>(std::count_if(first.begin(), first.end(), [&](const auto& f) { return f.second >= start; }));
}

std::vector<std::string> new_for_today(const std::vector<std::string>& candidates, const std::vector<store::Card>& cards,
                                       int limit, int introduced) {
  std::set<std::string> carded;
  for (const auto& c : cards) carded.insert(c.slug);
  std::vector<std::string> out;
  for (const auto& slug : candidates) {
    if (static_cast<int>(out.size()) >= limit - introduced) break;
    if (!carded.count(slug)) out.push_back(slug);
  }
  return out;
}

}  // namespace ridge::practice
