// Figures for the DAG runner: the question's eval pipeline (3 checkpoints, 30 tasks) under
// FIFO and critical-path priority on 4 and 8 workers, the lower bound, and the failure case
// (exact: simulated minutes).
#include <algorithm>
#include <string>

#include "common/report.h"
#include "dag_runner.h"

int main(int argc, char** argv) {
  using ridge::lab::Policy;
  ridge::lab::Report report("dag-runner", "DAG runner: makespan by priority policy, failures that skip only descendants");
  const auto ts = ridge::lab::eval_pipeline();
  double work = 0;
  for (const auto& t : ts) work += t.dur;
  const auto level = ridge::lab::bottom_levels(ts);
  const double critical = *std::max_element(level.begin(), level.end());
  report.section("3 checkpoints: fetch, convert, 6 shards (30, 12, 8, 8, 5, 5 min), aggregate, report");
  report.add("tasks", static_cast<std::int64_t>(ts.size()), "tasks", "tasks");
  report.add("work_min", work, "min", "total work", 0);
  report.add("critical_path_min", critical, "min", "critical path", 0);
  for (int w : {4, 8}) {
    const std::string k = "workers_" + std::to_string(w);
    report.add(k + "/fifo_makespan_min", ridge::lab::run(ts, w, Policy::kFifo, 1).makespan, "min",
               std::to_string(w) + " workers, FIFO by id", 0);
    report.add(k + "/critical_path_makespan_min", ridge::lab::run(ts, w, Policy::kCriticalPath, 1).makespan, "min",
               std::to_string(w) + " workers, critical path", 0);
    report.add(k + "/lower_bound_min", std::max(critical, work / w), "min", std::to_string(w) + " workers, lower bound", 2);
  }
  report.section("ckpt1.eval2 fails twice, ckpt2.eval0 once; one retry; 4 workers, critical path");
  auto failing = ts;
  failing[14].fail_times = 2;
  failing[22].fail_times = 1;
  const auto f = ridge::lab::run(failing, 4, Policy::kCriticalPath, 1);
  report.add("failures/done", static_cast<std::int64_t>(f.done), "tasks", "done");
  report.add("failures/failed", static_cast<std::int64_t>(f.failed), "tasks", "failed");
  report.add("failures/skipped", static_cast<std::int64_t>(f.skipped), "tasks", "skipped");
  report.add("failures/makespan_min", f.makespan, "min", "makespan", 0);
  report.note("exact: simulated time, the same on every run and machine");
  return report.print(argc, argv);
}
