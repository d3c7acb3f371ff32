#include "credit_scheduler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ridge::lab {

CreditScheduler::CreditScheduler(int cluster_gpus, std::vector<TeamSpec> teams, Mode mode, double half_life_ticks)
    : gpus_(cluster_gpus), mode_(mode) {
  if (cluster_gpus < 1) throw std::invalid_argument("cluster_gpus " + std::to_string(cluster_gpus) + ": must be >= 1");
  if (!(half_life_ticks > 0))
    throw std::invalid_argument("half_life_ticks " + std::to_string(half_life_ticks) + ": must be > 0 (or infinity)");
  d_ = std::isinf(half_life_ticks) ? 1.0 : std::pow(0.5, 1.0 / half_life_ticks);
  double total = 0;
  for (const auto& t : teams) {
    const std::string who = " of team '" + t.name + "' ";
    if (!(t.share >= 0 && t.share <= 1)) throw std::invalid_argument("share" + who + std::to_string(t.share) + ": must be in [0, 1]");
    if (t.job_gpus < 1 || t.job_gpus > cluster_gpus)
      throw std::invalid_argument("job_gpus" + who + std::to_string(t.job_gpus) + ": must be in [1, " +
                                  std::to_string(cluster_gpus) + "]");
    if (t.job_ticks < 1) throw std::invalid_argument("job_ticks" + who + std::to_string(t.job_ticks) + ": must be >= 1");
    total += t.share;
    teams_.push_back({t});
  }
  if (total > 1 + 1e-9) throw std::invalid_argument("shares sum to " + std::to_string(total) + ": must be at most 1");
}

int CreditScheduler::used_gpus() const {
  int used = 0;
  for (const auto& r : running_) used += r.gpus;
  return used;
}

int CreditScheduler::pick(const std::vector<double>& rank, const std::vector<bool>& skipped) const {
  const std::size_t n = teams_.size();
  if (mode_ == Mode::kRoundRobin) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (rr_ + k) % n;
      if (queued(teams_[i]) && !skipped[i]) return static_cast<int>(i);
    }
    return -1;
  }
  int best = -1;
  for (std::size_t i = 0; i < n; ++i) {
    if (!queued(teams_[i]) || skipped[i]) continue;
    const auto b = static_cast<std::size_t>(best);
    if (best < 0 || rank[i] > rank[b] || (rank[i] == rank[b] && teams_[i].spec.name < teams_[b].spec.name))
      best = static_cast<int>(i);
  }
  return best;
}

void CreditScheduler::step() {
  const int t = tick_;
  std::erase_if(running_, [&](const Running& r) { return r.ends == t; });
  int used = used_gpus();
  for (auto& tm : teams_)
    if (queued(tm) && tm.waiting_since < 0) tm.waiting_since = t;

  std::vector<double> rank;
  for (const auto& tm : teams_) rank.push_back(tm.balance);
  std::vector<bool> skipped(teams_.size(), false);
  for (int p; (p = pick(rank, skipped)) >= 0;) {
    const auto i = static_cast<std::size_t>(p);
    Team& tm = teams_[i];
    if (used + tm.spec.job_gpus > gpus_) {
      if (mode_ == Mode::kReserve) break;  // hold the freed GPUs for this team's gang
      skipped[i] = true;
      continue;
    }
    used += tm.spec.job_gpus;
    running_.push_back({i, tm.spec.job_gpus, t + tm.spec.job_ticks});
    const double cost = static_cast<double>(tm.spec.job_gpus) * tm.spec.job_ticks;
    rank[i] -= cost;  // the pick sees what this team started this tick
    tm.wait_sum += t - tm.waiting_since;
    ++tm.starts;
    tm.waiting_since = t;  // the next job in its backlog starts waiting now
    if (mode_ == Mode::kRoundRobin) rr_ = (i + 1) % teams_.size();
  }

  std::vector<int> by_team(teams_.size(), 0);
  for (const auto& r : running_) by_team[r.team] += r.gpus;
  for (std::size_t i = 0; i < teams_.size(); ++i) {
    Team& tm = teams_[i];
    tm.balance = tm.balance * d_ + tm.spec.share * gpus_ - by_team[i];
    tm.gpu_ticks += by_team[i];
  }
  ++tick_;
}

SimResult simulate(Mode mode, double half_life_ticks, int ticks) {
  constexpr int kGpus = 64, kWindowStart = 1000, kBurstEnd = 1100;
  CreditScheduler s(kGpus, {{"A", 0.5, 8, 6}, {"B", 0.3, 32, 12}, {"C", 0.2, 4, 3, 1000}}, mode, half_life_ticks);
  long at_window[3] = {}, at_burst_end[3] = {}, b_starts = 0, b_wait = 0;
  for (int t = 0; t < ticks; ++t) {
    if (t == kWindowStart) {
      for (std::size_t i = 0; i < 3; ++i) at_window[i] = s.gpu_ticks(i);
      b_starts = s.starts(1);
      b_wait = s.wait_ticks(1);
    }
    if (t == kBurstEnd)
      for (std::size_t i = 0; i < 3; ++i) at_burst_end[i] = s.gpu_ticks(i);
    s.step();
  }
  SimResult r{};
  const double window = static_cast<double>(kGpus) * (ticks - kWindowStart);
  const double burst = static_cast<double>(kGpus) * (kBurstEnd - kWindowStart);
  for (std::size_t i = 0; i < 3; ++i) {
    r.share[i] = static_cast<double>(s.gpu_ticks(i) - at_window[i]) / window;
    r.burst_share[i] = static_cast<double>(at_burst_end[i] - at_window[i]) / burst;
    r.busy += r.share[i];
  }
  const long starts = s.starts(1) - b_starts;
  r.b_wait = starts > 0 ? static_cast<double>(s.wait_ticks(1) - b_wait) / static_cast<double>(starts) : -1.0;
  return r;
}

}  // namespace ridge::lab
