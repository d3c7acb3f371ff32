#include "dag_runner.h"

#include <algorithm>
#include <queue>
#include <stdexcept>

namespace ridge::lab {

namespace {

void check(const std::vector<Task>& ts) {
  const auto n = static_cast<int>(ts.size());
  for (const auto& t : ts) {
    if (!(t.dur >= 0)) throw std::invalid_argument("task '" + t.name + "' dur " + std::to_string(t.dur) + ": must be >= 0");
    for (int d : t.deps)
      if (d < 0 || d >= n)
        throw std::invalid_argument("task '" + t.name + "' dependency " + std::to_string(d) + ": must be in [0, " +
                                    std::to_string(n) + ")");
  }
}

std::vector<std::vector<int>> children(const std::vector<Task>& ts) {
  std::vector<std::vector<int>> out(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i)
    for (int d : ts[i].deps) out[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
  return out;
}

}  // namespace

std::vector<int> cycle_members(const std::vector<Task>& ts) {
  check(ts);
  const auto out = children(ts);
  std::vector<int> indeg(ts.size(), 0);
  for (std::size_t i = 0; i < ts.size(); ++i) indeg[i] = static_cast<int>(ts[i].deps.size());
  std::queue<int> q;
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (indeg[i] == 0) q.push(static_cast<int>(i));
  while (!q.empty()) {
    const int t = q.front();
    q.pop();
    for (int c : out[static_cast<std::size_t>(t)])
      if (--indeg[static_cast<std::size_t>(c)] == 0) q.push(c);
  }
  std::vector<int> left;
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (indeg[i] > 0) left.push_back(static_cast<int>(i));
  return left;
}

std::vector<double> bottom_levels(const std::vector<Task>& ts) {
  // Reverse topological order (Kahn on the reversed graph), then level = dur + max child level.
  const auto out = children(ts);
  std::vector<int> pending(ts.size());
  std::vector<int> order;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    pending[i] = static_cast<int>(out[i].size());
    if (pending[i] == 0) order.push_back(static_cast<int>(i));
  }
  std::vector<double> level(ts.size(), 0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto t = static_cast<std::size_t>(order[k]);
    double best = 0;
    for (int c : out[t]) best = std::max(best, level[static_cast<std::size_t>(c)]);
    level[t] = ts[t].dur + best;
    for (int d : ts[t].deps)
      if (--pending[static_cast<std::size_t>(d)] == 0) order.push_back(d);
  }
  return level;
}

RunReport run(const std::vector<Task>& ts, int workers, Policy policy, int retries) {
  if (workers < 1) throw std::invalid_argument("workers " + std::to_string(workers) + ": must be >= 1");
  if (retries < 0) throw std::invalid_argument("retries " + std::to_string(retries) + ": must be >= 0");
  RunReport rep;
  rep.cycle = cycle_members(ts);
  const std::size_t n = ts.size();
  rep.state.assign(n, State::kPending);
  rep.first_start.assign(n, -1);
  rep.attempts.assign(n, 0);
  if (!rep.cycle.empty()) return rep;  // validated before anything runs

  const auto out = children(ts);
  const std::vector<double> level = bottom_levels(ts);
  auto runs_after = [&](int a, int b) {  // priority_queue: true when a has LOWER priority than b
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (policy == Policy::kCriticalPath && level[ua] != level[ub]) return level[ua] < level[ub];
    return a > b;
  };
  std::priority_queue<int, std::vector<int>, decltype(runs_after)> ready(runs_after);
  std::vector<int> waiting(n);
  for (std::size_t i = 0; i < n; ++i) {
    waiting[i] = static_cast<int>(ts[i].deps.size());
    if (waiting[i] == 0) ready.push(static_cast<int>(i));
  }
  struct Running {
    double end;
    int task;
    bool operator>(const Running& o) const { return end != o.end ? end > o.end : task > o.task; }
  };
  std::priority_queue<Running, std::vector<Running>, std::greater<>> running;
  std::vector<State>& st = rep.state;
  auto skip_descendants = [&](int root) {
    std::vector<int> stack{root};
    while (!stack.empty()) {
      const int t = stack.back();
      stack.pop_back();
      for (int c : out[static_cast<std::size_t>(t)])
        if (st[static_cast<std::size_t>(c)] == State::kPending) {
          st[static_cast<std::size_t>(c)] = State::kSkipped;
          stack.push_back(c);
        }
    }
  };
  double now = 0;
  for (;;) {
    while (static_cast<int>(running.size()) < workers && !ready.empty()) {
      const int t = ready.top();
      ready.pop();
      const auto u = static_cast<std::size_t>(t);
      if (rep.first_start[u] < 0) rep.first_start[u] = now;
      running.push({now + ts[u].dur, t});
    }
    if (running.empty()) break;
    const Running r = running.top();
    running.pop();
    now = r.end;
    const auto u = static_cast<std::size_t>(r.task);
    if (rep.attempts[u]++ < ts[u].fail_times) {  // this attempt failed
      if (rep.attempts[u] <= retries) {
        ready.push(r.task);
        continue;
      }
      st[u] = State::kFailed;
      skip_descendants(r.task);  // only what depends on it; independent branches go on
      continue;
    }
    st[u] = State::kDone;
    for (int c : out[u]) {
      const auto uc = static_cast<std::size_t>(c);
      if (st[uc] == State::kPending && --waiting[uc] == 0) ready.push(c);
    }
  }
  rep.makespan = now;
  for (State s : st) {
    rep.done += s == State::kDone;
    rep.failed += s == State::kFailed;
    rep.skipped += s == State::kSkipped;
  }
  return rep;
}

std::vector<Task> eval_pipeline() {
  std::vector<Task> ts;
  const double shard[] = {30, 12, 8, 8, 5, 5};
  for (int c = 0; c < 3; ++c) {
    const std::string p = "ckpt" + std::to_string(c) + ".";
    const int fetch = static_cast<int>(ts.size());
    ts.push_back({p + "fetch", c == 0 ? 20.0 : 6.0, {}});
    const int conv = static_cast<int>(ts.size());
    ts.push_back({p + "convert", 4, {fetch}});
    std::vector<int> shards;
    for (int s = 0; s < 6; ++s) {
      shards.push_back(static_cast<int>(ts.size()));
      ts.push_back({p + "eval" + std::to_string(s), shard[s], {conv}});
    }
    const int agg = static_cast<int>(ts.size());
    ts.push_back({p + "aggregate", 2, shards});
    ts.push_back({p + "report", 1, {agg}});
  }
  return ts;
}

}  // namespace ridge::lab
