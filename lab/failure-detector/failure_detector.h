// FailureDetector: is a node that heartbeats periodically suspected down?
//
// Contract:
// - The clock is injected: every call takes the receiver's monotonic time in milliseconds
//   (the arrival time, never the sender's timestamp). Tests run in simulated time and never
//   sleep. A heartbeat earlier than the last one (a wall clock stepped back) is refused:
//   heartbeat() returns false and records nothing.
// - Before the first heartbeat nothing is known: suspect() is false.
// - Fixed timeout: suspect when now - last > timeout_ms (exactly timeout_ms: not yet).
// - Phi accrual (Hayashibara et al.): keep the last `window` completed inter-arrival times,
//   model them as normal(mean, max(sd, min_sd)), and suspect when
//   phi = -log10(P(interval > now - last - pause_ms)) > threshold. pause_ms is an acceptable
//   pause added to the mean, for the tails a normal model does not have. Solving for the
//   elapsed time gives deadline() = mean + pause_ms + z x sd with P(Z > z) = 10^-threshold;
//   z is computed once, so each check is O(1). Mean and variance are running sums: O(1) per
//   heartbeat, O(window) memory. Before the first interval, the mean is initial_interval_ms.
// - Only completed intervals enter the window: asking suspect() during a long silence
//   changes nothing; the silence counts once the next heartbeat ends it.
// - Bad parameters throw std::invalid_argument naming the field and the value.
//
// Not thread-safe: one detector per node, owned by the thread that receives its heartbeats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>

namespace ridge::lab {

class FailureDetector {
 public:
  static FailureDetector fixed(double timeout_ms);
  static FailureDetector phi(double threshold, double pause_ms, std::size_t window = 1000, double min_sd_ms = 10,
                             double initial_interval_ms = 1000);

  bool heartbeat(double now_ms);
  double deadline() const;  // elapsed time after the last heartbeat at which suspicion starts
  bool suspect(double now_ms) const;
  double phi_at(double elapsed_ms) const;  // phi after `elapsed_ms` of silence (phi detectors)
  std::size_t intervals() const { return iv_.size(); }

  // P(Z > z) = 10^-threshold for a standard normal Z, by bisection on erfc.
  static double z_for(double threshold);

 private:
  FailureDetector() = default;
  double mean() const;
  double sd() const;

  double timeout_ = 0, threshold_ = 0, z_ = 0, pause_ = 0, min_sd_ = 10, initial_ = 1000;
  std::size_t window_ = 1000;
  bool started_ = false;
  double last_ = 0, sum_ = 0, sum2_ = 0;
  std::deque<double> iv_;
};

// The question's simulation: one healthy node for `intervals` heartbeats, calm (mean
// 1,000 ms, sd 20 ms) for the first half, congested (1,100 ms, sd 150 ms) for the second, and
// once in 1,000 intervals an extra pause of 1 to 3 s; std::mt19937_64(seed), Box-Muller
// normals. A false suspicion is an interval longer than the deadline in force when it began;
// detection time is the mean deadline over each half.
struct DetectorResult {
  double false_per_day, detect_calm_s, detect_congested_s;
};
DetectorResult simulate(FailureDetector d, std::uint64_t seed = 20261201, int intervals = 1'000'000);

}  // namespace ridge::lab
