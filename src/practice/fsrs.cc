#include "practice/fsrs.h"

#include <algorithm>
#include <cmath>

namespace ridge::practice {

// FSRS-6 default parameters (py-fsrs 6.x, DEFAULT_PARAMETERS).
const Fsrs::Weights Fsrs::kDefaultWeights = {0.212,  1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194,
                                             0.001,  1.8722, 0.1666, 0.796,  1.4835, 0.0614, 0.2629,
                                             1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542};

namespace {
constexpr double kMinStability = 0.001;
constexpr int kMaxInterval = 36500;
double clamp_difficulty(double d) { return std::clamp(d, 1.0, 10.0); }
}  // namespace

Fsrs::Fsrs(double desired_retention, const Weights& w) : retention_(desired_retention), w_(w) {}

double Fsrs::factor() const { return std::pow(0.9, 1.0 / decay()) - 1; }

double Fsrs::retrievability(double stability, double elapsed_days) const {
  return std::pow(1 + factor() * std::max(0.0, elapsed_days) / stability, decay());
}

int Fsrs::interval(double stability) const {
  double days = stability / factor() * (std::pow(retention_, 1.0 / decay()) - 1);
  return std::clamp(static_cast<int>(std::lround(days)), 1, kMaxInterval);
}

double Fsrs::initial_difficulty(Grade g) const {
  return w_[4] - std::exp(w_[5] * (static_cast<double>(g) - 1)) + 1;
}

Schedule Fsrs::first(Grade g) const {
  Schedule s;
  s.memory.stability = std::max(kMinStability, w_[static_cast<int>(g) - 1]);
  s.memory.difficulty = clamp_difficulty(initial_difficulty(g));
  s.interval_days = interval(s.memory.stability);
  return s;
}

Schedule Fsrs::next(const Memory& m, double elapsed_days, Grade g) const {
  const double G = static_cast<double>(g);
  const double D = m.difficulty, S = m.stability;
  Schedule out;
  double r = retrievability(S, elapsed_days);
  out.retrievability = r;
  double s_new;
  if (elapsed_days < 1) {
    // Same-day review: short-term stability.
    double inc = std::exp(w_[17] * (G - 3 + w_[18])) * std::pow(S, -w_[19]);
    if (g >= Grade::kGood) inc = std::max(inc, 1.0);
    s_new = S * inc;
  } else if (g == Grade::kAgain) {
    double forget = w_[11] * std::pow(D, -w_[12]) * (std::pow(S + 1, w_[13]) - 1) * std::exp(w_[14] * (1 - r));
    s_new = std::min(forget, S / std::exp(w_[17] * w_[18]));
  } else {
    double hard = g == Grade::kHard ? w_[15] : 1.0;
    double easy = g == Grade::kEasy ? w_[16] : 1.0;
    s_new = S * (1 + std::exp(w_[8]) * (11 - D) * std::pow(S, -w_[9]) * (std::exp(w_[10] * (1 - r)) - 1) * hard * easy);
  }
  // Difficulty: linear damping toward 10, then mean reversion toward D0(Easy).
  double delta = -w_[6] * (G - 3);
  double damped = D + delta * (10 - D) / 9;
  double reverted = w_[7] * initial_difficulty(Grade::kEasy) + (1 - w_[7]) * damped;
  out.memory.difficulty = clamp_difficulty(reverted);
  out.memory.stability = std::max(kMinStability, s_new);
  out.interval_days = interval(out.memory.stability);
  return out;
}

}  // namespace ridge::practice
