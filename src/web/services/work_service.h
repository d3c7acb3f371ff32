// Work it on the site (issue 34): an exercise drawn for a user, its steps graded once each,
// and at the end the question scheduled by FSRS from the outcome. The exercise is the
// question's slug and a seed; the seed travels with an HMAC over (user id, slug, seed), so a
// changed seed, or another user's exercise, is refused (the inputs follow from the seed, so
// signing the seed signs them). The store's key (user, slug, seed, step) grades a step once,
// on every server.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "account/clock.h"
#include "bank/bank.h"
#include "calc/registry.h"
#include "mail/mail.h"
#include "practice/misconceptions.h"
#include "practice/workit.h"
#include "store/store.h"
#include "common/result.h"
#include "web/services/random_source.h"
#include "web/services/review_service.h"

namespace ridge::web::services {

// An exercise as the user holds it: the seed and its signature.
struct WorkTicket {
  practice::Exercise exercise;
  std::string signature;  // hex HMAC over (user id, slug, seed)
};

// The state of a user's exercise: the steps graded so far (by step; at most one each).
struct WorkState {
  WorkTicket ticket;
  std::vector<store::WorkAttempt> graded;
  bool finished() const { return graded.size() >= ticket.exercise.steps.size(); }
};

// One step's grade, and when it was the last one, the schedule it gave the question.
struct WorkGrade {
  size_t step = 0;
  practice::StepGrade grade;
  bool finished = false;
  int fsrs_grade = 0;                // 1 Again or 3 Good, when finished
  std::optional<GradedCard> scheduled;  // when finished and the review was stored
};

// A named mistake as the dashboard shows it.
struct MistakeSummary {
  const practice::Misconception* misconception = nullptr;
  int64_t count = 0;
  int64_t last_at = 0;
  std::string practice_slug;  // a workable question where the user made it (it exercises it)
};

// Thread-safe: the plan cache is locked, the rest is read-only or the store's.
class WorkService {
 public:
  WorkService(const bank::Bank& bank, const calc::Registry& registry, const calc::Catalog& catalog, store::Store& store,
              const account::Clock& clock, RandomSource& random, const ReviewService& reviews, const mail::LinkSigner& signer)
      : bank_(bank), registry_(registry), catalog_(catalog), store_(store), clock_(clock), random_(random), reviews_(reviews),
        signer_(signer) {}

  // The question's plan (computed once, then cached); nullptr for a slug not in the bank.
  std::shared_ptr<const practice::WorkPlan> plan(const std::string& slug) const;
  bool workable(const std::string& slug) const;

  // A new exercise of `slug` for the user: a fresh seed (1..2^31-1). Invalid "slug" for a
  // question that is not workable (or not in the bank).
  Result<WorkTicket> start(int64_t user_id, const std::string& slug) const;
  // The user's exercise `seed` of `slug` with its signature checked, and its graded steps.
  // Invalid "seed" (not a whole number); forbidden "signature" (forged, or another user's).
  Result<WorkState> open(int64_t user_id, const std::string& slug, const std::string& seed, const std::string& signature) const;
  // Grades step `step` of the exercise with `answer`, once: conflict "step" when it was graded
  // before. An answer that cannot be read is invalid "answer" and not recorded (ask again).
  // The last step schedules the question: every step right, Good; otherwise Again.
  Result<WorkGrade> grade(int64_t user_id, double retention, const std::string& slug, const std::string& seed,
                           const std::string& signature, const std::string& step, const std::string& answer) const;
  // The user's named mistakes, the most frequent first, each with a question to practise it.
  Result<std::vector<MistakeSummary>> mistakes(int64_t user_id) const;

  std::string sign(int64_t user_id, const std::string& slug, uint64_t seed) const;

  // Up to `limit` workable questions (bank order) whose chain, at the author's inputs, has a
  // step where the misconception `id` gives a value told apart from the right one: the
  // exercises that train it (the drills page's set for a user's most frequent mistake).
  // Computed once per misconception (at most one exercise and one transform per step of each
  // workable question: a few hundred chain evaluations) and cached; empty for an unknown id.
  std::vector<std::string> trains(const std::string& id, size_t limit) const;

  // The exercise of `slug` for `seed` (no user, no signature): what a rehearsal's numeric
  // round, whose seed is kept in the user's own plan, is graded against (issue 36).
  Result<practice::Exercise> exercise_for(const std::string& slug, uint64_t seed) const { return exercise(slug, seed); }
  // Grades step `step` (< ex.steps.size()) of such an exercise with the engine, recording nothing.
  practice::StepGrade grade_step(const practice::Exercise& ex, size_t step, const std::string& answer) const {
    return practice::grade_step(ex, step, answer, registry_, catalog_);
  }

 private:
  Result<practice::Exercise> exercise(const std::string& slug, uint64_t seed) const;

  const bank::Bank& bank_;
  const calc::Registry& registry_;
  const calc::Catalog& catalog_;
  store::Store& store_;
  const account::Clock& clock_;
  RandomSource& random_;
  const ReviewService& reviews_;
  const mail::LinkSigner& signer_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<const practice::WorkPlan>, std::less<>> plans_;
  mutable std::map<std::string, std::vector<std::string>, std::less<>> trains_;  // by misconception id, every match
};

}  // namespace ridge::web::services
