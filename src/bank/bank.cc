#include "bank/bank.h"

#include <algorithm>
#include <tuple>
#include <vector>

namespace ridge::bank {

std::string_view difficulty_name(Difficulty d) {
  switch (d) {
    case Difficulty::kEasy: return "easy";
    case Difficulty::kMedium: return "medium";
    case Difficulty::kHard: return "hard";
    case Difficulty::kExpert: return "expert";
  }
  return "?";
}

std::optional<Difficulty> parse_difficulty(std::string_view name) {
  for (Difficulty d : {Difficulty::kEasy, Difficulty::kMedium, Difficulty::kHard, Difficulty::kExpert}) {
    if (difficulty_name(d) == name) return d;
  }
  return std::nullopt;
}

const Question* Bank::find(std::string_view slug) const {
  auto it = slug_index_.find(slug);
  return it == slug_index_.end() ? nullptr : &questions[it->second];
}

const Topic* Bank::find_topic(std::string_view id) const {
  for (const auto& t : topics) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const Track* Bank::find_track(std::string_view id) const {
  for (const auto& t : tracks) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const std::vector<size_t>& Bank::lookup(const Index& index, std::string_view key) const {
  static const std::vector<size_t> kNone;
  auto it = index.find(key);
  return it == index.end() ? kNone : it->second;
}

const std::vector<size_t>& Bank::by_topic(std::string_view id) const { return lookup(topic_index_, id); }
const std::vector<size_t>& Bank::by_track(std::string_view id) const { return lookup(track_index_, id); }
const std::vector<size_t>& Bank::by_difficulty(Difficulty d) const {
  return lookup(difficulty_index_, difficulty_name(d));
}
const std::vector<size_t>& Bank::by_concept(std::string_view id) const { return lookup(concept_index_, id); }
const std::vector<size_t>& Bank::by_company(std::string_view id) const { return lookup(company_index_, id); }

void Bank::build_indexes() {
  auto topic_rank = [&](const std::string& id) {
    for (size_t i = 0; i < topics.size(); ++i) {
      if (topics[i].id == id) return i;
    }
    return topics.size();
  };
  // The order: topic (as topics.toml lists them), difficulty, title. Sorted as indexes with
  // each key computed once, then moved into place once: sorting the questions themselves
  // copied two titles and moved two questions per comparison (issue 30: start-up at 10,000).
  std::vector<size_t> rank(questions.size()), order(questions.size());
  for (size_t i = 0; i < questions.size(); ++i) {
    rank[i] = topic_rank(questions[i].topic);
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::forward_as_tuple(rank[a], static_cast<int>(questions[a].difficulty), questions[a].title) <
           std::forward_as_tuple(rank[b], static_cast<int>(questions[b].difficulty), questions[b].title);
  });
  std::vector<Question> sorted;
  sorted.reserve(questions.size());
  for (size_t i : order) sorted.push_back(std::move(questions[i]));
  questions = std::move(sorted);
  slug_index_.clear();
  topic_index_.clear();
  track_index_.clear();
  difficulty_index_.clear();
  concept_index_.clear();
  company_index_.clear();
  for (size_t i = 0; i < questions.size(); ++i) {
    const Question& q = questions[i];
    slug_index_[q.slug] = i;
    topic_index_[q.topic].push_back(i);
    difficulty_index_[std::string(difficulty_name(q.difficulty))].push_back(i);
    for (const auto& t : q.tracks) track_index_[t].push_back(i);
    for (const auto& c : q.concepts) concept_index_[c].push_back(i);
    for (const auto& c : q.companies) company_index_[c.id].push_back(i);
  }
}

}  // namespace ridge::bank
