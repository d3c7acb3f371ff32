#include "burn_rate.h"

#include <algorithm>
#include <stdexcept>

namespace ridge::lab {

BurnRateAlert::BurnRateAlert(double slo, std::vector<Rule> rules) : slo_(slo), rules_(std::move(rules)) {
  if (!(slo > 0.0 && slo < 1.0)) throw std::invalid_argument("slo = " + std::to_string(slo) + ": must be in (0, 1)");
  if (rules_.empty()) throw std::invalid_argument("rules: at least one rule is needed");
  for (const Rule& r : rules_) {
    if (r.long_min < 1 || r.short_min < 1 || r.short_min > r.long_min) {
      throw std::invalid_argument("rule '" + r.name + "': windows " + std::to_string(r.long_min) + "/" +
                                  std::to_string(r.short_min) + ": need 1 <= short <= long minutes");
    }
    if (!(r.threshold > 0.0)) {
      throw std::invalid_argument("rule '" + r.name + "': threshold " + std::to_string(r.threshold) + ": must be > 0");
    }
    horizon_ = std::max(horizon_, r.long_min);
    for (int w : {r.long_min, r.short_min}) {
      if (std::none_of(windows_.begin(), windows_.end(), [w](const Window& x) { return x.minutes == w; })) {
        windows_.push_back({w});
      }
    }
  }
  bad_.assign(static_cast<std::size_t>(horizon_), 0);
  total_.assign(static_cast<std::size_t>(horizon_), 0);
}

void BurnRateAlert::push(std::int64_t bad, std::int64_t total) {
  const std::size_t slot = static_cast<std::size_t>(recorded_ % horizon_);
  for (Window& w : windows_) {
    if (recorded_ >= w.minutes) {  // the minute leaving this window
      const std::size_t out = static_cast<std::size_t>((recorded_ - w.minutes) % horizon_);
      w.bad -= bad_[out];
      w.total -= total_[out];
    }
    w.bad += bad;
    w.total += total;
  }
  bad_[slot] = bad;  // after the windows read the slot it replaces (the longest window's leaver)
  total_[slot] = total;
  ++recorded_;
}

void BurnRateAlert::record(int minute, std::int64_t good, std::int64_t total) {
  if (any_ && minute <= last_minute_) {
    throw std::invalid_argument("minute " + std::to_string(minute) + ": must come after minute " +
                                std::to_string(last_minute_));
  }
  if (good < 0 || total < good) {
    throw std::invalid_argument("minute " + std::to_string(minute) + ": good " + std::to_string(good) + " of total " +
                                std::to_string(total) + ": need 0 <= good <= total");
  }
  if (any_) {
    for (int m = last_minute_ + 1; m < minute && m - last_minute_ <= horizon_; ++m) push(0, 0);  // no traffic
  }
  push(total - good, total);
  last_minute_ = minute;
  any_ = true;
}

double BurnRateAlert::burn(int window) const {
  if (window < 1 || window > horizon_) {
    throw std::invalid_argument("window " + std::to_string(window) + ": must be in [1, " + std::to_string(horizon_) +
                                "] minutes");
  }
  std::int64_t bad = 0, total = 0;
  const auto it = std::find_if(windows_.begin(), windows_.end(), [window](const Window& w) { return w.minutes == window; });
  if (it != windows_.end()) {
    bad = it->bad;
    total = it->total;
  } else {
    for (std::int64_t k = 1; k <= std::min<std::int64_t>(window, recorded_); ++k) {
      const std::size_t slot = static_cast<std::size_t>((recorded_ - k) % horizon_);
      bad += bad_[slot];
      total += total_[slot];
    }
  }
  if (total == 0) return 0.0;
  return (static_cast<double>(bad) / static_cast<double>(total)) / (1.0 - slo_);
}

bool BurnRateAlert::fires(const Rule& r) const {
  if (recorded_ < r.long_min) return false;  // the long window is not full yet
  return burn(r.long_min) > r.threshold && burn(r.short_min) > r.threshold;
}

std::vector<std::string> BurnRateAlert::firing() const {
  std::vector<std::string> names;
  for (const Rule& r : rules_) {
    if (fires(r)) names.push_back(r.name);
  }
  return names;
}

}  // namespace ridge::lab
