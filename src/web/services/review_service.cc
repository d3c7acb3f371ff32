#include "web/services/review_service.h"

#include <algorithm>

#include "practice/card_state.h"
#include "practice/fsrs.h"

namespace ridge::web::services {

std::optional<double> ProgressCounts::retention() const {
  if (reviews == 0) return std::nullopt;
  return static_cast<double>(passed) / reviews;
}

std::optional<double> ProgressCounts::predicted_recall() const {
  if (seen == 0) return std::nullopt;
  return recall_sum / seen;
}

std::optional<double> ProgressCounts::drill_accuracy() const {
  if (drills == 0) return std::nullopt;
  return static_cast<double>(correct) / drills;
}

void ProgressCounts::add(const ProgressCounts& o) {
  seen += o.seen;
  due += o.due;
  drills += o.drills;
  correct += o.correct;
  reviews += o.reviews;
  passed += o.passed;
  recall_sum += o.recall_sum;
}

Result<GradedCard> ReviewService::grade(int64_t user_id, double retention, const std::string& slug, int grade_value) const {
  if (bank_.find(slug) == nullptr) {
    return Failure::invalid({"slug", slug, "slug '" + slug + "' is not a question", "a slug from /api/questions"});
  }
  if (grade_value < 1 || grade_value > 4) {
    return Failure::invalid({"grade", std::to_string(grade_value), "grade must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy)", "1, 2, 3, 4"});
  }
  practice::Fsrs fsrs(retention);
  auto g = static_cast<practice::Grade>(grade_value);
  // Read, schedule, write if unchanged; on a lost race, read again.
  for (int attempt = 1;; ++attempt) {
    const int64_t now = clock_.now();
    auto existing = store_.get_card(user_id, slug);
    if (!existing.ok()) return existing.error();
    practice::Schedule s;
    store::Card card{slug, 0, 0, 0, now, 1, 0};
    const store::Card* before = existing->has_value() ? &**existing : nullptr;
    if (before) {
      double elapsed = static_cast<double>(now - before->last_review) / 86400.0;
      s = fsrs.next({before->stability, before->difficulty}, elapsed, g);
      card.reps = before->reps + 1;
      card.lapses = before->lapses + (g == practice::Grade::kAgain ? 1 : 0);
    } else {
      s = fsrs.first(g);
    }
    card.stability = s.memory.stability;
    card.difficulty = s.memory.difficulty;
    // Learning steps (Anki's defaults, 1 min and 10 min): a new card, or one in learning
    // (its last interval under a day), comes back the same day until it is graded Good on
    // a step or Easy; a lapse (Again on a review card) relearns at 10 min. Then FSRS.
    bool in_learning = before == nullptr || (before->due - before->last_review) < 86400;
    int64_t step_seconds = 0;
    if (g == practice::Grade::kAgain) {
      step_seconds = in_learning ? 60 : 600;
    } else if (in_learning && g == practice::Grade::kHard) {
      step_seconds = before ? std::max<int64_t>(60, before->due - before->last_review) : 360;
    } else if (before == nullptr && g == practice::Grade::kGood) {
      step_seconds = 600;
    }
    int64_t due_in = step_seconds > 0 ? step_seconds : static_cast<int64_t>(s.interval_days) * 86400;
    card.due = now + due_in;
    auto saved = store_.record_review(user_id, card, grade_value, now);
    if (saved.ok()) return GradedCard{slug, card.due, due_in, s.memory.stability, s.memory.difficulty};
    if (!saved.error().conflict()) return Failure::unavailable(saved.error().detail);
    if (attempt >= kMaxAttempts) {
      return Failure::unavailable("card " + slug + " changed under " + std::to_string(attempt) + " attempts to grade it");
    }
  }
}

Result<ReviewQueue> ReviewService::queue(int64_t user_id, int new_per_day, bool paid) const {
  auto cards = store_.cards(user_id);
  if (!cards.ok()) return cards.error();
  auto history = store_.reviews(user_id);
  if (!history.ok()) return history.error();
  const int64_t now = clock_.now();
  ReviewQueue q;
  q.new_per_day = new_per_day;
  for (const auto& c : *cards) {
    const bank::Question* question = bank_.find(c.slug);
    if (!question) continue;
    if (c.due <= now) {
      q.due.push_back(question);
    } else {
      q.upcoming.push_back({question, c.due - now});
    }
  }
  // New questions for today, up to the daily limit: the must-know ones first, then the
  // bank's order, among those the account can read.
  std::vector<std::string> candidates;
  for (bool must : {true, false}) {
    for (const auto& question : bank_.questions) {
      if (question.must_know == must && (question.free || paid)) candidates.push_back(question.slug);
    }
  }
  q.introduced_today = practice::new_cards_today(*history, now);
  for (const auto& slug : practice::new_for_today(candidates, *cards, new_per_day, q.introduced_today)) {
    if (const bank::Question* question = bank_.find(slug)) q.fresh.push_back(question);
  }
  return q;
}

Progress ReviewService::progress(int64_t user_id, double retention) const {
  const int64_t now = clock_.now();
  practice::Fsrs fsrs(retention);
  Progress p;
  for (const auto& t : bank_.topics) p.topics[t.id];
  if (auto cards = store_.cards(user_id); cards.ok()) {
    for (const auto& c : *cards) {
      const bank::Question* q = bank_.find(c.slug);
      if (!q) continue;
      ProgressCounts& a = p.topics[q->topic];
      ++a.seen;
      a.due += c.due <= now;
      a.recall_sum += fsrs.retrievability(c.stability, static_cast<double>(now - c.last_review) / 86400.0);
    }
  }
  // Retention as measured: the share of reviews graded above Again (the FSRS prediction,
  // which is 100% right after any review, is kept apart as predicted_recall).
  if (auto reviews = store_.reviews(user_id); reviews.ok()) {
    for (const auto& r : *reviews) {
      const bank::Question* q = bank_.find(r.slug);
      if (!q) continue;
      ProgressCounts& a = p.topics[q->topic];
      ++a.reviews;
      a.passed += r.grade > 1;
    }
  }
  if (auto drills = store_.drills(user_id); drills.ok()) {
    for (const auto& d : *drills) {
      ProgressCounts& a = p.topics[d.topic];
      ++a.drills;
      a.correct += d.correct;
    }
  }
  for (const auto& track : bank_.tracks) {
    ProgressCounts& sum = p.tracks[track.id];
    for (const auto& [topic, weight] : track.weights) {
      if (auto it = p.topics.find(topic); it != p.topics.end()) sum.add(it->second);
    }
  }
  return p;
}

}  // namespace ridge::web::services
