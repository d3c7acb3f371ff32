#include "job_service.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/bounded_wait.h"

namespace ridge::lab {
namespace {

TEST(JobService, CreateQueuesJobsWithIncreasingIds) {
  JobService s;
  const auto a = s.create("k1", "train");
  const auto b = s.create("k2", "eval");
  EXPECT_EQ(a.status, CreateStatus::kCreated);
  EXPECT_EQ(a.job.id, 1u);
  EXPECT_EQ(b.job.id, 2u);
  EXPECT_EQ(s.get(1)->state, JobState::kQueued);
  EXPECT_FALSE(s.get(3).has_value());
}

TEST(JobService, ARepeatedKeyReturnsTheFirstResultAndCreatesNothing) {
  JobService s;
  const auto first = s.create("retry-me", "train");
  ASSERT_EQ(s.claim_next()->id, first.job.id);  // the job moves on; a replay still names it
  const auto again = s.create("retry-me", "train");
  EXPECT_EQ(again.status, CreateStatus::kReplayed);
  EXPECT_EQ(again.job.id, first.job.id);
  EXPECT_EQ(again.job.state, JobState::kRunning) << "a replay returns the job as it is now";
  EXPECT_EQ(s.create("other", "train").job.id, 2u) << "the replay must not have used an id";
}

TEST(JobService, TheSameKeyWithADifferentSpecIsAConflict) {
  JobService s;
  s.create("k", "train");
  const auto r = s.create("k", "eval");
  EXPECT_EQ(r.status, CreateStatus::kKeyConflict);
  EXPECT_EQ(r.job.spec, "train");
  EXPECT_EQ(s.list("", 10).jobs.size(), 1u);
}

TEST(JobService, AnEmptyKeyAlwaysCreates) {
  JobService s;
  EXPECT_EQ(s.create("", "x").status, CreateStatus::kCreated);
  EXPECT_EQ(s.create("", "x").status, CreateStatus::kCreated);
  EXPECT_EQ(s.list("", 10).jobs.size(), 2u);
}

TEST(JobService, ConcurrentCreatesWithOneKeyCreateOneJob) {
  // Check-then-insert without one lock around both lets two callers create.
  constexpr int kThreads = 8, kRounds = 200;
  for (int round = 0; round < kRounds; ++round) {
    JobService s;
    std::latch start(kThreads);
    std::vector<std::future<CreateResult>> calls;
    for (int t = 0; t < kThreads; ++t) {
      calls.push_back(std::async(std::launch::async, [&] {
        start.arrive_and_wait();
        return s.create("same-key", "train");
      }));
    }
    int created = 0;
    for (auto& c : calls) {
      expect_ready(c, "a concurrent create");
      const auto r = c.get();
      created += r.status == CreateStatus::kCreated;
      ASSERT_EQ(r.job.id, 1u);
    }
    ASSERT_EQ(created, 1) << "round " << round;
  }
}

TEST(JobService, CancellingAQueuedJobIsAcceptedAndImmediate) {
  JobService s;
  const auto id = s.create("k", "train").job.id;
  EXPECT_EQ(s.cancel(id), CancelStatus::kAccepted);
  EXPECT_EQ(s.get(id)->state, JobState::kCancelled);
  EXPECT_FALSE(s.claim_next().has_value()) << "a cancelled job must not be run";
}

TEST(JobService, CancellingARunningJobIsAcceptedAndFinishesLater) {
  JobService s;
  const auto id = s.create("k", "train").job.id;
  ASSERT_EQ(s.claim_next()->id, id);
  EXPECT_EQ(s.cancel(id), CancelStatus::kAccepted);
  auto job = *s.get(id);
  EXPECT_EQ(job.state, JobState::kRunning) << "202: accepted, not done";
  EXPECT_TRUE(job.cancel_requested);
  EXPECT_EQ(s.cancel(id), CancelStatus::kAccepted) << "a repeated cancel is accepted again";
  EXPECT_EQ(s.complete(id, JobState::kCancelled), TransitionStatus::kOk);  // the executor stopped it
  EXPECT_EQ(s.get(id)->state, JobState::kCancelled);
  EXPECT_EQ(s.cancel(id), CancelStatus::kAccepted);
}

TEST(JobService, ACancelCanLoseTheRaceToCompletion) {
  JobService s;
  const auto id = s.create("k", "train").job.id;
  s.claim_next();
  s.cancel(id);
  EXPECT_EQ(s.complete(id, JobState::kSucceeded), TransitionStatus::kOk);
  EXPECT_EQ(s.get(id)->state, JobState::kSucceeded);
  EXPECT_EQ(s.cancel(id), CancelStatus::kAlreadyFinished);
}

TEST(JobService, CancelAnswersNotFoundAndAlreadyFinished) {
  JobService s;
  EXPECT_EQ(s.cancel(42), CancelStatus::kNotFound);
  const auto id = s.create("k", "train").job.id;
  s.claim_next();
  s.complete(id, JobState::kFailed);
  EXPECT_EQ(s.cancel(id), CancelStatus::kAlreadyFinished);
  EXPECT_EQ(s.get(id)->state, JobState::kFailed);
}

TEST(JobService, IllegalTransitionsChangeNothing) {
  JobService s;
  const auto id = s.create("k", "train").job.id;
  EXPECT_EQ(s.complete(id, JobState::kSucceeded), TransitionStatus::kIllegal) << "queued cannot succeed";
  EXPECT_EQ(s.get(id)->state, JobState::kQueued);
  s.claim_next();
  EXPECT_EQ(s.complete(id, JobState::kCancelled), TransitionStatus::kIllegal) << "no cancel was requested";
  EXPECT_EQ(s.complete(id, JobState::kQueued), TransitionStatus::kIllegal);
  EXPECT_EQ(s.complete(id, JobState::kSucceeded), TransitionStatus::kOk);
  EXPECT_EQ(s.complete(id, JobState::kFailed), TransitionStatus::kIllegal) << "terminal states are final";
  EXPECT_EQ(s.get(id)->state, JobState::kSucceeded);
  EXPECT_EQ(s.complete(99, JobState::kFailed), TransitionStatus::kNotFound);
}

TEST(JobService, ClaimNextTakesTheOldestQueuedJob) {
  JobService s;
  for (const char* key : {"k0", "k1", "k2"}) s.create(key, "x");
  s.cancel(1);
  EXPECT_EQ(s.claim_next()->id, 2u);
  EXPECT_EQ(s.claim_next()->id, 3u);
  EXPECT_FALSE(s.claim_next().has_value());
}

TEST(JobService, ListPagesInIdOrderAndRejectsBadInput) {
  JobService s;
  for (int i = 0; i < 5; ++i) s.create("", "x");
  auto p1 = s.list("", 2);
  ASSERT_EQ(p1.status, ListStatus::kOk);
  ASSERT_EQ(p1.jobs.size(), 2u);
  EXPECT_EQ(p1.jobs[0].id, 1u);
  ASSERT_FALSE(p1.next_cursor.empty());
  auto p2 = s.list(p1.next_cursor, 2);
  EXPECT_EQ(p2.jobs[0].id, 3u);
  auto p3 = s.list(p2.next_cursor, 2);
  ASSERT_EQ(p3.jobs.size(), 1u);
  EXPECT_EQ(p3.jobs[0].id, 5u);
  EXPECT_TRUE(p3.next_cursor.empty()) << "the last page has no cursor";

  EXPECT_EQ(s.list("garbage", 2).status, ListStatus::kBadCursor);
  EXPECT_EQ(s.list("v1.", 2).status, ListStatus::kBadCursor);
  EXPECT_EQ(s.list("v1.12zz", 2).status, ListStatus::kBadCursor);
  EXPECT_EQ(s.list("", 0).status, ListStatus::kBadLimit);
  EXPECT_EQ(s.list("", JobService::kMaxPageSize + 1).status, ListStatus::kBadLimit);
}

TEST(JobService, PaginationUnderConcurrentInsertsHasNoDuplicatesAndNoSkips) {
  // 500 jobs exist when the walk begins. While it pages (7 at a time), another thread
  // keeps creating jobs, and the walker itself creates one between pages. Every one of
  // the 500 must appear exactly once; jobs created during the walk may or may not.
  JobService s;
  for (int i = 0; i < 500; ++i) s.create("", "initial");
  std::atomic<bool> walking{true};
  auto inserter = std::async(std::launch::async, [&] {
    int n = 0;
    while (walking.load()) {
      s.create("", "concurrent");
      ++n;
      std::this_thread::yield();
    }
    return n;
  });

  std::vector<std::uint64_t> seen;
  std::string cursor;
  int pages = 0;
  do {
    auto page = s.list(cursor, 7);
    ASSERT_EQ(page.status, ListStatus::kOk);
    for (const auto& j : page.jobs) seen.push_back(j.id);
    cursor = page.next_cursor;
    s.create("", "between pages");
    ++pages;
  } while (!cursor.empty() && pages < 2000);  // if the inserter stays ahead, stop after 2000 pages
  walking = false;
  expect_ready(inserter, "the inserting thread");

  std::set<std::uint64_t> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), seen.size()) << "a job was returned twice";
  for (std::uint64_t id = 1; id <= 500; ++id) EXPECT_TRUE(unique.count(id)) << "job " << id << " was skipped";
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
}

}  // namespace
}  // namespace ridge::lab
