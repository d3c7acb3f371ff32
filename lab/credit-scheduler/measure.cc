// Figures for the credit scheduler: the question's five policies on one 64-GPU cluster,
// 3,000 ticks (exact: no clock, no randomness).
#include <cmath>
#include <limits>
#include <string>

#include "common/report.h"
#include "credit_scheduler.h"

int main(int argc, char** argv) {
  using ridge::lab::Mode;
  ridge::lab::Report report("credit-scheduler", "credit scheduler: shares after a team returns from idle, busy share, gang wait");
  report.section("64 GPUs; A 0.5 (8 GPUs x 6 ticks), B 0.3 (32 x 12), C 0.2 (4 x 3, idle until tick 1,000)");
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    const char* key;
    Mode mode;
    double half_life;
  } rows[] = {{"round_robin", Mode::kRoundRobin, inf},
              {"no_decay_reserve", Mode::kReserve, inf},
              {"day_decay_backfill", Mode::kBackfill, 144},
              {"day_decay_reserve", Mode::kReserve, 144},
              {"hour_decay_reserve", Mode::kReserve, 6}};
  const char* names[] = {"A", "B", "C"};
  for (const auto& row : rows) {
    const auto r = ridge::lab::simulate(row.mode, row.half_life);
    const std::string k = row.key;
    for (int i = 0; i < 3; ++i)
      report.add(k + "/share_" + names[i], r.share[i], "", k + ": share of GPU-ticks from tick 1,000, " + names[i], 2);
    for (int i = 0; i < 3; ++i)
      report.add(k + "/burst_share_" + names[i], r.burst_share[i], "", k + ": share in ticks 1,000-1,100, " + names[i], 2);
    report.add(k + "/busy", r.busy, "", k + ": busy share of the cluster", 2);
    report.add(k + "/b_wait_ticks", r.b_wait, "ticks", k + ": B's mean wait between gang starts", 1);
  }
  report.note("exact: the same on every run and machine");
  return report.print(argc, argv);
}
