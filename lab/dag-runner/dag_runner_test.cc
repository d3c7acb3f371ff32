#include "dag_runner.h"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/invalid_argument_message.h"

namespace ridge::lab {
namespace {

int id_of(const std::vector<Task>& ts, const std::string& name) {
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (ts[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << "no task " << name;
  return 0;
}

TEST(DagRunner, CycleIsReportedBeforeAnythingRuns) {
  auto ts = eval_pipeline();
  ts[0].deps.push_back(id_of(ts, "ckpt0.report"));  // the fetch depends on its own report
  const RunReport r = run(ts, 4, Policy::kCriticalPath, 1);
  ASSERT_EQ(r.cycle.size(), 10u);  // checkpoint 0's ten tasks; the other checkpoints are fine
  EXPECT_EQ(ts[static_cast<std::size_t>(r.cycle.front())].name, "ckpt0.fetch");
  EXPECT_EQ(ts[static_cast<std::size_t>(r.cycle.back())].name, "ckpt0.report");
  EXPECT_EQ(r.done, 0);  // nothing ran, not even the independent checkpoints
  EXPECT_EQ(r.makespan, 0);
  EXPECT_TRUE(cycle_members(eval_pipeline()).empty());
}

TEST(DagRunner, PriorityByIdLosesToCriticalPathWithFourWorkers) {
  const auto ts = eval_pipeline();
  const RunReport fifo = run(ts, 4, Policy::kFifo, 1);
  const RunReport cp = run(ts, 4, Policy::kCriticalPath, 1);
  EXPECT_EQ(fifo.makespan, 76);
  EXPECT_EQ(cp.makespan, 69);
  EXPECT_EQ(cp.done, 30);
  // The 30-minute shard of the slow-fetch checkpoint starts as soon as it is ready.
  const int long_shard = id_of(ts, "ckpt0.eval0");
  EXPECT_EQ(cp.first_start[static_cast<std::size_t>(long_shard)], 24);
}

TEST(DagRunner, EightWorkersReachTheCriticalPathWhateverThePolicy) {
  const auto ts = eval_pipeline();
  EXPECT_EQ(run(ts, 8, Policy::kFifo, 1).makespan, 57);
  EXPECT_EQ(run(ts, 8, Policy::kCriticalPath, 1).makespan, 57);
  const auto level = bottom_levels(ts);
  EXPECT_EQ(level[0], 57);  // ckpt0: 20 + 4 + 30 + 2 + 1
}

TEST(DagRunner, OneFailureSkipsOnlyItsDescendantsNotTheWholeRun) {
  auto ts = eval_pipeline();
  ts[static_cast<std::size_t>(id_of(ts, "ckpt1.eval2"))].fail_times = 2;  // one retry is not enough
  ts[static_cast<std::size_t>(id_of(ts, "ckpt2.eval0"))].fail_times = 1;  // the retry passes
  const RunReport r = run(ts, 4, Policy::kCriticalPath, 1);
  EXPECT_EQ(r.done, 27);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.skipped, 2);
  EXPECT_EQ(r.state[static_cast<std::size_t>(id_of(ts, "ckpt1.eval2"))], State::kFailed);
  EXPECT_EQ(r.state[static_cast<std::size_t>(id_of(ts, "ckpt1.aggregate"))], State::kSkipped);
  EXPECT_EQ(r.state[static_cast<std::size_t>(id_of(ts, "ckpt1.report"))], State::kSkipped);
  EXPECT_EQ(r.state[static_cast<std::size_t>(id_of(ts, "ckpt1.eval3"))], State::kDone);  // a sibling
  EXPECT_EQ(r.state[static_cast<std::size_t>(id_of(ts, "ckpt2.report"))], State::kDone);
  EXPECT_EQ(r.makespan, 78);
}

TEST(DagRunner, RetriesAreCountedPerTask) {
  std::vector<Task> ts = {{"a", 5, {}, 1}, {"b", 1, {0}}};
  const RunReport once = run(ts, 1, Policy::kFifo, 1);
  EXPECT_EQ(once.state[0], State::kDone);
  EXPECT_EQ(once.attempts[0], 2);
  EXPECT_EQ(once.makespan, 11);
  const RunReport none = run(ts, 1, Policy::kFifo, 0);
  EXPECT_EQ(none.state[0], State::kFailed);
  EXPECT_EQ(none.state[1], State::kSkipped);
}

TEST(DagRunner, TaskWithTwoDepsFinishingTogetherBecomesReadyOnce) {
  // Diamond: b and c end at the same instant; d must run exactly once.
  std::vector<Task> ts = {{"a", 1, {}}, {"b", 2, {0}}, {"c", 2, {0}}, {"d", 3, {1, 2}}};
  const RunReport r = run(ts, 4, Policy::kCriticalPath, 0);
  EXPECT_EQ(r.attempts[3], 1);
  EXPECT_EQ(r.first_start[3], 3);
  EXPECT_EQ(r.makespan, 6);
  EXPECT_EQ(r.done, 4);
}

TEST(DagRunner, SameInputsGiveTheSameSchedule) {
  auto ts = eval_pipeline();
  ts[5].fail_times = 1;
  const RunReport a = run(ts, 3, Policy::kCriticalPath, 2);
  const RunReport b = run(ts, 3, Policy::kCriticalPath, 2);
  EXPECT_EQ(a.first_start, b.first_start);
  EXPECT_EQ(a.makespan, b.makespan);
}

TEST(DagRunner, BadInputNamesTheTaskAndTheValue) {
  EXPECT_EQ(invalid_argument_message([] { (void)run({{"a", 1, {3}}}, 1, Policy::kFifo, 0); }),
            "task 'a' dependency 3: must be in [0, 1)");
  EXPECT_EQ(invalid_argument_message([] { (void)run({{"a", -1, {}}}, 1, Policy::kFifo, 0); }), "task 'a' dur -1.000000: must be >= 0");
  EXPECT_EQ(invalid_argument_message([] { (void)run({{"a", 1, {}}}, 0, Policy::kFifo, 0); }), "workers 0: must be >= 1");
  EXPECT_EQ(invalid_argument_message([] { (void)run({{"a", 1, {}}}, 1, Policy::kFifo, -1); }), "retries -1: must be >= 0");
  const RunReport self = run({{"a", 1, {0}}}, 1, Policy::kFifo, 0);  // a self-dependency is a cycle
  EXPECT_EQ(self.cycle, std::vector<int>{0});
}

}  // namespace
}  // namespace ridge::lab
