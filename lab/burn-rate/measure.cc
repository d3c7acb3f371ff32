// Figures for the burn-rate alert: the question's three incidents replayed against five rules
// (minutes to fire, minutes still firing after the incident ended) and the budget each spent.
#include <cstdint>
#include <string>
#include <vector>

#include "burn_rate.h"
#include "common/report.h"

int main(int argc, char** argv) {
  using ridge::lab::BurnRateAlert;
  ridge::lab::Report report("burn-rate", "multiwindow burn-rate alerts: three incidents, five rules");
  struct Incident {
    const char* key;
    int start, minutes;
    double error_rate;
  };
  const Incident incidents[] = {{"fast_burn_10pct_20min", 5'000, 20, 0.10},
                                {"slow_burn_0p8pct_12h", 7'000, 720, 0.008},
                                {"blip_50pct_1min", 10'000, 1, 0.50}};
  const std::vector<BurnRateAlert::Rule> rules = {{"page_1h_5m", 60, 5, 14.4},
                                                  {"page_6h_30m", 360, 30, 6.0},
                                                  {"ticket_3d_6h", 4'320, 360, 1.0},
                                                  {"naive_5m", 5, 5, 1.0},
                                                  {"single_1h", 60, 60, 14.4}};
  BurnRateAlert alert(0.999, rules);
  std::vector<std::vector<int>> first(rules.size(), std::vector<int>(3, -1)), last(rules.size(), std::vector<int>(3, -1));
  std::int64_t spent[3] = {0, 0, 0};
  for (int m = 0; m < 12'000; ++m) {
    double rate = 0.0002;
    for (int i = 0; i < 3; ++i) {
      if (m >= incidents[i].start && m < incidents[i].start + incidents[i].minutes) rate = incidents[i].error_rate;
    }
    const std::int64_t total = 10'000, bad = static_cast<std::int64_t>(rate * total + 0.5);
    alert.record(m, total - bad, total);
    for (int i = 0; i < 3; ++i) {
      if (m >= incidents[i].start && m < incidents[i].start + incidents[i].minutes) spent[i] += bad;
    }
    for (std::size_t r = 0; r < rules.size(); ++r) {
      if (!alert.fires(rules[r])) continue;
      for (int i = 0; i < 3; ++i) {  // a firing minute belongs to the incident whose 12 h after-window holds it
        if (m >= incidents[i].start && m < incidents[i].start + incidents[i].minutes + 720) {
          if (first[r][i] < 0) first[r][i] = m - incidents[i].start;
          last[r][i] = m - (incidents[i].start + incidents[i].minutes);
        }
      }
    }
  }
  report.section("99.9% over 30 days; 10,000 requests a minute; 0.02% baseline errors; 3 days of history first");
  report.note("-1 = never fired; after = minutes still firing after the incident ended");
  for (std::size_t r = 0; r < rules.size(); ++r) {
    for (int i = 0; i < 3; ++i) {
      const std::string k = rules[r].name + "/" + incidents[i].key + "/";
      report.add(k + "minutes_to_fire", static_cast<std::int64_t>(first[r][i]), "min", rules[r].name + ", " + incidents[i].key + ": to fire");
      report.add(k + "minutes_after", static_cast<std::int64_t>(first[r][i] < 0 ? -1 : last[r][i] + 1), "min", "still firing after");
    }
  }
  const double budget = 0.001 * 10'000 * 60 * 24 * 30;
  report.add("budget_bad_requests", static_cast<std::int64_t>(budget + 0.5), "requests", "error budget per 30 days");
  for (int i = 0; i < 3; ++i) {
    report.add(std::string("budget_share/") + incidents[i].key, static_cast<double>(spent[i]) / budget, "",
               std::string(incidents[i].key) + ": share of the budget spent", 4);
  }
  return report.print(argc, argv);
}
