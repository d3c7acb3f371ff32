// BurnRateAlert: multiwindow, multi-burn-rate alerting on an availability SLO (the SRE
// workbook's rules), on per-minute counts with a running sum per window.
//
// Contract:
// - record(minute, good, total): one minute of counts. Minutes strictly increase; a skipped
//   minute counts as no traffic (0 of 0). A minute at or before the last one, good < 0,
//   total < good throws std::invalid_argument and changes nothing.
// - burn(w) = (bad / total summed over the last w minutes) / (1 - slo). Sums, then divides: a
//   quiet minute weighs less than a busy one. 0 when the window holds no traffic. Windows
//   longer than the minutes recorded cover what there is.
// - fires(rule): BOTH burn(long) > threshold AND burn(short) > threshold (strictly above), and
//   the long window is full (at least long_min minutes recorded): a window that holds ten
//   minutes after a restart says nothing about an hour. The long window says enough budget
//   went; the short one says it is still going, so the alert clears minutes after the fix.
// - Storage: a ring of per-minute counts as long as the longest rule window, and a running
//   (bad, total) sum for each distinct rule window, updated as each minute enters and leaves:
//   O(windows) per record, O(1) per burn of a rule window (other windows are summed, O(w)).
// - Not thread-safe: one evaluator loop owns it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge::lab {

class BurnRateAlert {
 public:
  struct Rule {
    std::string name;
    int long_min;
    int short_min;
    double threshold;
  };

  // Throws std::invalid_argument for slo outside (0, 1), no rules, a window < 1, a short
  // window longer than its long one, or a threshold <= 0.
  BurnRateAlert(double slo, std::vector<Rule> rules);

  void record(int minute, std::int64_t good, std::int64_t total);
  // Throws std::invalid_argument unless 1 <= window <= the longest rule window.
  double burn(int window_minutes) const;
  bool fires(const Rule& r) const;
  std::vector<std::string> firing() const;  // names of the rules firing now, in rule order

  const std::vector<Rule>& rules() const { return rules_; }
  std::int64_t minutes_recorded() const { return recorded_; }

 private:
  struct Window {
    int minutes;
    std::int64_t bad = 0;
    std::int64_t total = 0;
  };
  void push(std::int64_t bad, std::int64_t total);

  double slo_;
  std::vector<Rule> rules_;
  int horizon_ = 1;
  std::vector<std::int64_t> bad_, total_;  // ring, indexed by minute count % horizon_
  std::vector<Window> windows_;            // one per distinct rule window
  std::int64_t recorded_ = 0;              // minutes pushed (skipped ones included)
  int last_minute_ = -1;
  bool any_ = false;
};

}  // namespace ridge::lab
