// The loaded bank and its indexes. Built once at start-up by the loader (loader.h), then
// read-only: safe to share between threads.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bank/question.h"

namespace ridge::bank {

class Bank {
 public:
  std::vector<Topic> topics;
  std::vector<Track> tracks;
  std::map<std::string, Concept, std::less<>> concepts;
  std::map<std::string, Company, std::less<>> companies;
  std::map<std::string, Course, std::less<>> courses;
  // Sorted by topic (in topics.toml order), then difficulty, then title.
  std::vector<Question> questions;

  const Question* find(std::string_view slug) const;
  const Topic* find_topic(std::string_view id) const;
  const Track* find_track(std::string_view id) const;

  // Indexes into `questions`, each in the same order as `questions`.
  const std::vector<size_t>& by_topic(std::string_view id) const;
  const std::vector<size_t>& by_track(std::string_view id) const;
  const std::vector<size_t>& by_difficulty(Difficulty d) const;
  const std::vector<size_t>& by_concept(std::string_view id) const;
  const std::vector<size_t>& by_company(std::string_view id) const;

  // Sorts the questions and builds every index. Called by the loader.
  void build_indexes();

 private:
  using Index = std::map<std::string, std::vector<size_t>, std::less<>>;
  const std::vector<size_t>& lookup(const Index& index, std::string_view key) const;
  std::map<std::string, size_t, std::less<>> slug_index_;
  Index topic_index_, track_index_, difficulty_index_, concept_index_, company_index_;
};

}  // namespace ridge::bank
