// Figures for the failure detectors: the question's simulation of one healthy node over
// 1,000,000 heartbeats, false suspicions per day and detection time for seven detectors
// (exact: fixed seed, simulated time).
#include <string>

#include "common/report.h"
#include "failure_detector.h"

int main(int argc, char** argv) {
  using ridge::lab::FailureDetector;
  ridge::lab::Report report("failure-detector", "heartbeat failure detectors: false suspicions against detection time");
  report.section("1,000,000 intervals: calm (1,000 ms, sd 20) then congested (1,100 ms, sd 150); 1 in 1,000 stalls 1-3 s");
  const std::pair<const char*, FailureDetector> rows[] = {
      {"fixed_1500ms", FailureDetector::fixed(1500)},      {"fixed_3000ms", FailureDetector::fixed(3000)},
      {"fixed_4500ms", FailureDetector::fixed(4500)},      {"fixed_5000ms", FailureDetector::fixed(5000)},
      {"phi_8", FailureDetector::phi(8, 0)},               {"phi_8_pause_3000ms", FailureDetector::phi(8, 3000)},
      {"phi_3_pause_3000ms", FailureDetector::phi(3, 3000)}};
  for (const auto& [key, d] : rows) {
    const auto r = ridge::lab::simulate(d);
    const std::string k = key;
    report.add(k + "/false_per_day", r.false_per_day, "/day", k + ": false suspicions per day", 2);
    report.add(k + "/detect_calm_s", r.detect_calm_s, "s", k + ": detection time, calm network", 2);
    report.add(k + "/detect_congested_s", r.detect_congested_s, "s", k + ": detection time, congested network", 2);
  }
  FailureDetector d = FailureDetector::phi(8, 0);
  for (int i = 0; i <= 100; ++i) d.heartbeat(1000.0 * i);
  report.section("phi after silence on perfectly regular 1 s beats (min_sd 10 ms)");
  report.add("regular/phi_at_1000ms", d.phi_at(1000), "", "phi at 1,000 ms", 2);
  report.add("regular/phi_at_1030ms", d.phi_at(1030), "", "phi at 1,030 ms", 2);
  report.add("regular/phi_at_1060ms", d.phi_at(1060), "", "phi at 1,060 ms", 2);
  report.note("exact: the same on every run and machine");
  return report.print(argc, argv);
}
