// DagRunner: runs tasks with dependencies on a fixed number of workers, in simulated time.
//
// Contract:
// - Tasks are nodes with a duration (minutes, >= 0) and edges dep -> task. run() first
//   validates with Kahn's algorithm: tasks that never reach in-degree 0 are on or downstream
//   of a cycle; they are reported in RunReport::cycle (ascending ids) and nothing runs.
// - A task is ready when all its dependencies succeeded. Ready tasks start on free workers by
//   priority: kFifo takes the lowest id; kCriticalPath the longest remaining path to a sink
//   (its duration plus the longest chain after it, computed once per graph), ties by id.
// - Time advances to the next completion; completions at the same instant are handled in id
//   order. A task becomes ready exactly once: its counter of unfinished dependencies is
//   decremented once per edge and tested for zero after each decrement.
// - A failed attempt is retried (back to the ready set) up to `retries` times; a task that
//   still fails is kFailed and every task depending on it, directly or not, is kSkipped.
//   Independent branches keep running. (Task::fail_times is how many attempts fail.)
// - Deterministic: the same graph, failures and policy give the same schedule.
// - Bad input throws std::invalid_argument naming the task and the value: a dependency id
//   out of range, a negative duration, workers < 1, retries < 0.
//
// Not thread-safe; run() is a pure function of its arguments. O(V + E) validation and
// levels, O((V + E) log V) scheduling with a priority queue of ready tasks.
#pragma once

#include <string>
#include <vector>

namespace ridge::lab {

struct Task {
  std::string name;
  double dur;
  std::vector<int> deps;
  int fail_times = 0;
};

enum class Policy { kFifo, kCriticalPath };
enum class State { kPending, kDone, kFailed, kSkipped };

struct RunReport {
  double makespan = 0;
  int done = 0, failed = 0, skipped = 0;
  std::vector<int> cycle;          // non-empty: nothing ran
  std::vector<State> state;        // per task
  std::vector<double> first_start; // per task, -1 if never started
  std::vector<int> attempts;       // per task
};

std::vector<int> cycle_members(const std::vector<Task>& tasks);
std::vector<double> bottom_levels(const std::vector<Task>& tasks);  // requires an acyclic graph
RunReport run(const std::vector<Task>& tasks, int workers, Policy policy, int retries);

// The question's pipeline: 3 checkpoints x (fetch, convert, 6 eval shards, aggregate, report);
// shards of 30, 12, 8, 8, 5, 5 minutes; checkpoint 0's fetch 20 minutes, the others 6.
std::vector<Task> eval_pipeline();

}  // namespace ridge::lab
