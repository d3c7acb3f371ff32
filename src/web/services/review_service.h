// Reviews: grading a question with FSRS and storing the new schedule, the review queue (what
// is due, what comes up, the new questions of the day under the daily limit) and progress
// by topic and track. No HTTP here: inputs are ids and values, results are plain structs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "account/clock.h"
#include "bank/bank.h"
#include "store/store.h"
#include "common/result.h"

namespace ridge::web::services {

// A graded card's new schedule.
struct GradedCard {
  std::string slug;
  int64_t due = 0;             // unix seconds
  int64_t due_in_seconds = 0;  // from the review
  double stability = 0, difficulty = 0;
};

struct UpcomingCard {
  const bank::Question* question = nullptr;
  int64_t seconds_left = 0;
};

// What the review page shows, in the store's card order.
struct ReviewQueue {
  std::vector<const bank::Question*> due;      // due now
  std::vector<UpcomingCard> upcoming;          // scheduled later
  std::vector<const bank::Question*> fresh;    // new today, must-know first, readable only
  int introduced_today = 0;                    // questions first graded today (UTC)
  int new_per_day = 0;                         // the account's daily limit
};

// Counts behind one row of the progress tables.
struct ProgressCounts {
  int seen = 0, due = 0, drills = 0, correct = 0, reviews = 0, passed = 0;
  double recall_sum = 0;  // FSRS retrievability summed over seen cards
  // The share of reviews graded above Again; nullopt without reviews.
  std::optional<double> retention() const;
  // The mean FSRS retrievability now; nullopt with nothing seen.
  std::optional<double> predicted_recall() const;
  std::optional<double> drill_accuracy() const;
  void add(const ProgressCounts& other);
};

struct Progress {
  std::map<std::string, ProgressCounts> topics;  // every bank topic, and any a drill names
  std::map<std::string, ProgressCounts> tracks;  // every track: the sum of its topics
};

// Thread-safe: holds references only; the store is thread-safe by its contract. The bank,
// the store and the clock must outlive the service.
class ReviewService {
 public:
  ReviewService(const bank::Bank& bank, store::Store& store, const account::Clock& clock)
      : bank_(bank), store_(store), clock_(clock) {}

  // Grades `slug` (1 Again .. 4 Easy) at the account's desired retention and stores it. The
  // card is written only if unchanged since it was read (the store's optimistic check); a
  // lost race reads and schedules again, up to 20 times. Invalid: "slug" or "grade".
  Result<GradedCard> grade(int64_t user_id, double retention, const std::string& slug, int grade) const;

  // The review queue. `paid`: whether paid questions may be offered as new.
  Result<ReviewQueue> queue(int64_t user_id, int new_per_day, bool paid) const;

  // Progress by topic and track. A store read that fails leaves its part at zero (the page
  // still shows what could be read), as the dashboard always did.
  Progress progress(int64_t user_id, double retention) const;

  // The number of attempts grade() makes before it gives up on a card others keep changing.
  static constexpr int kMaxAttempts = 21;

 private:
  const bank::Bank& bank_;
  store::Store& store_;
  const account::Clock& clock_;
};

}  // namespace ridge::web::services
