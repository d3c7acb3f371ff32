// CreditScheduler: hands a GPU cluster to teams by credit balance, one tick at a time.
//
// Contract:
// - Each tick, team i earns share_i x cluster_gpus credits (GPU-ticks), pays one credit per
//   GPU it runs, and its balance decays by d = 0.5^(1 / half_life): savings from idle time
//   and debt from borrowed GPUs both fade. half_life = infinity banks forever (d = 1).
//   Order within the tick's accounting: balance = balance x d + earned - paid.
// - A team has work queued from tick active_from on, and then always (a backlog of
//   identical gang jobs of job_gpus GPUs for job_ticks ticks).
// - Each tick, after the jobs ending at this tick free their GPUs, repeatedly pick the team
//   with the highest ranking balance that has queued work; ties go to the smaller name
//   (not the container's order), so a replay is identical. The ranking balance is the
//   balance minus the full cost (GPUs x ticks) of jobs the team started this tick, so one
//   pick does not win the whole tick. kRoundRobin ignores balances and cycles through teams.
// - If the picked team's job fits, start it (all its GPUs at once, never part of a gang).
//   If not: kReserve starts nothing more this tick, so GPUs drain toward the big gang;
//   kBackfill (and kRoundRobin) skip that team for the rest of the tick and fill the holes.
// - Jobs are never preempted. A job larger than the cluster is rejected at construction
//   (under kReserve it would block the cluster forever).
//
// Bad configuration throws std::invalid_argument naming the field and the value.
// Not thread-safe: one scheduler loop owns it.
#pragma once

#include <string>
#include <vector>

namespace ridge::lab {

enum class Mode { kRoundRobin, kReserve, kBackfill };

struct TeamSpec {
  std::string name;
  double share;  // in [0, 1]; the shares sum to at most 1
  int job_gpus;  // in [1, cluster_gpus]
  int job_ticks; // >= 1
  int active_from = 0;
};

class CreditScheduler {
 public:
  CreditScheduler(int cluster_gpus, std::vector<TeamSpec> teams, Mode mode, double half_life_ticks);

  void step();  // runs one tick: free, pick and start, account

  int now() const { return tick_; }  // ticks completed
  int used_gpus() const;
  double balance(std::size_t team) const { return teams_[team].balance; }
  long gpu_ticks(std::size_t team) const { return teams_[team].gpu_ticks; }  // cumulative
  long starts(std::size_t team) const { return teams_[team].starts; }
  long wait_ticks(std::size_t team) const { return teams_[team].wait_sum; }  // sum over starts
  double decay() const { return d_; }

 private:
  struct Team {
    TeamSpec spec;
    double balance = 0;
    long gpu_ticks = 0, starts = 0, wait_sum = 0;
    int waiting_since = -1;
  };
  struct Running {
    std::size_t team;
    int gpus, ends;
  };
  bool queued(const Team& t) const { return tick_ >= t.spec.active_from; }
  int pick(const std::vector<double>& rank, const std::vector<bool>& skipped) const;

  const int gpus_;
  const Mode mode_;
  double d_;
  std::vector<Team> teams_;
  std::vector<Running> running_;
  std::size_t rr_ = 0;
  int tick_ = 0;
};

// The question's simulation: 64 GPUs; A (share 0.5) runs 8-GPU jobs of 6 ticks, B (0.3)
// 32-GPU gangs of 12 ticks, C (0.2) 4-GPU jobs of 3 ticks from tick 1,000. Shares of the
// cluster's GPU-ticks from tick 1,000 on and in [1,000, 1,100), the busy share from 1,000,
// and B's mean wait between gang starts (starts from tick 1,000).
struct SimResult {
  double share[3], burst_share[3], busy, b_wait;
};
SimResult simulate(Mode mode, double half_life_ticks, int ticks = 3000);

}  // namespace ridge::lab
