// FSRS-6 scheduling (the Free Spaced Repetition Scheduler, version 6): the 21 default
// weights, desired retention 0.9 by default, no learning steps and no fuzz, so a grade moves
// a card straight to its next review in whole days. Reference: open-spaced-repetition's
// "The Algorithm" page and py-fsrs 6. Pure: the caller passes the time.
#pragma once

#include <array>
#include <cstdint>

namespace ridge::practice {

enum class Grade { kAgain = 1, kHard = 2, kGood = 3, kEasy = 4 };

struct Memory {
  double stability = 0;   // days until retrievability falls to 90%
  double difficulty = 0;  // 1 (easy) to 10 (hard)
};

struct Schedule {
  Memory memory;
  int interval_days = 0;
  double retrievability = 1;  // at the moment of the review (1 for a new card)
};

class Fsrs {
 public:
  using Weights = std::array<double, 21>;
  static const Weights kDefaultWeights;

  explicit Fsrs(double desired_retention = 0.9, const Weights& w = kDefaultWeights);

  // The first review of a new card.
  Schedule first(Grade g) const;
  // A later review, `elapsed_days` after the previous one (fractions allowed; under a day
  // uses FSRS-6's same-day stability update).
  Schedule next(const Memory& m, double elapsed_days, Grade g) const;

  double retrievability(double stability, double elapsed_days) const;
  int interval(double stability) const;

 private:
  double initial_difficulty(Grade g) const;
  double decay() const { return -w_[20]; }
  double factor() const;

  double retention_;
  Weights w_;
};

}  // namespace ridge::practice
