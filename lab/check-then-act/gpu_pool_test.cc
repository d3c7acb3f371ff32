#include "gpu_pool.h"

#include <atomic>
#include <barrier>
#include <future>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/bounded_wait.h"

namespace ridge::lab {
namespace {

struct Outcome {
  int granted;
  int free;
};

// Two threads each ask `pool` for `n` GPUs. Each one's seam waits, once, on a barrier of
// two, so neither acts until both have reached the seam: the interleaving that loses an
// update under load happens here on every run, decided by the barrier, not by timing.
template <typename Pool>
Outcome forced_interleaving(Pool& pool, int n) {
  std::barrier both(2);
  std::atomic<int> granted{0};
  auto worker = [&] {
    bool first = true;
    auto seam = [&] {
      if (first) {
        first = false;
        both.arrive_and_wait();
      }
    };
    if (pool.acquire(n, seam)) ++granted;
  };
  auto a = std::async(std::launch::async, worker);
  auto b = std::async(std::launch::async, worker);
  expect_ready(a, "first acquire");
  expect_ready(b, "second acquire");
  return {granted.load(), pool.free()};
}

// The forced interleaving, 20 runs on fresh pools: the barrier decides the order, so every
// run must give the same grants and the same free count.
template <typename Pool>
void expect_every_run(int n, int granted, int free_after) {
  for (int run = 0; run < 20; ++run) {
    Pool pool(8);
    const Outcome o = forced_interleaving(pool, n);
    ASSERT_EQ(o.granted, granted) << "run " << run;
    ASSERT_EQ(o.free, free_after) << "run " << run;
  }
}

TEST(RacyPool, CheckThenActAsTwoAtomicsOversubscribesEveryRun) {
  // The bug on purpose: if this ever passed as "one granted", the seam would not be
  // between the check and the act, and the tests below would prove nothing.
  expect_every_run<RacyPool>(6, 2, -4);
}

TEST(CasPool, CheckAndActAsOneStepGrantsExactlyOne) {
  expect_every_run<CasPool>(6, 1, 2);
}

TEST(CasPool, CasWithoutALoopRefusesARequestThatStillFits) {
  // Both want 4 of 8. One CAS wins (8 -> 4); the loser's CAS fails, it must re-check the
  // new count (4), see that 4 still fit, and take them. A single CAS attempt refuses it.
  expect_every_run<CasPool>(4, 2, 0);
}

TEST(LockedPool, LockOnTheActButNotTheCheckIsCaughtBySeamBeforeTheLock) {
  // The seam runs before the lock. With check and act both inside the lock, the second
  // thread to lock sees 2 free and is refused. A check moved off the lock passes both.
  expect_every_run<LockedPool>(6, 1, 2);
  LockedPool pool(8);
  (void)forced_interleaving(pool, 6);
  EXPECT_EQ(pool.min_free(), 2);  // never went below 2, not even for a moment
}

TEST(LockedPool, CallbackReenteringThePoolDoesNotDeadlock) {
  // A lock held while calling out: if the seam ran under the pool's (non-recursive) mutex,
  // this callback would block forever, and the bounded wait would end the test.
  LockedPool pool(8);
  int seen_in_callback = -1;
  auto done = std::async(std::launch::async, [&] { return pool.acquire(3, [&] { seen_in_callback = pool.free(); }); });
  expect_ready(done, "acquire whose callback calls free()");
  EXPECT_TRUE(done.get());
  EXPECT_EQ(seen_in_callback, 8);
  EXPECT_EQ(pool.free(), 5);
}

template <typename Pool>
void stress(Pool& pool, int gpus, std::atomic<int>& lowest) {
  constexpr int kThreads = 4, kCycles = 20'000;
  std::vector<std::future<void>> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.push_back(std::async(std::launch::async, [&, t] {
      const int n = 1 + t % 4;  // requests of 1 to 4 GPUs
      for (int i = 0; i < kCycles; ++i) {
        if (!pool.acquire(n)) continue;
        const int f = pool.free();
        int low = lowest.load();
        while (f < low && !lowest.compare_exchange_weak(low, f)) {
        }
        EXPECT_TRUE(pool.release(n));
      }
    }));
  }
  for (auto& f : ts) expect_ready(f, "stress worker");
  EXPECT_EQ(pool.free(), gpus) << "every acquire released once: the count is back where it started";
}

TEST(LockedPool, StressFreeNeverBelowZeroAndEveryGpuReturned) {
  LockedPool pool(8);
  std::atomic<int> lowest{8};
  stress(pool, 8, lowest);
  EXPECT_GE(pool.min_free(), 0);
  EXPECT_GE(lowest.load(), 0);
}

TEST(CasPool, StressFreeNeverBelowZeroAndEveryGpuReturned) {
  CasPool pool(8);
  std::atomic<int> lowest{8};
  stress(pool, 8, lowest);
  EXPECT_GE(lowest.load(), 0);
}

TEST(LockedPool, DoubleReleaseIsRefusedAndChangesNothing) {
  LockedPool pool(8);
  ASSERT_TRUE(pool.acquire(6));
  EXPECT_TRUE(pool.release(6));
  EXPECT_FALSE(pool.release(6));  // a retry releasing again
  EXPECT_EQ(pool.free(), 8);
  EXPECT_FALSE(pool.release(0));
}

TEST(CasPool, DoubleReleaseIsRefusedAndChangesNothing) {
  CasPool pool(8);
  ASSERT_TRUE(pool.acquire(6));
  EXPECT_TRUE(pool.release(6));
  EXPECT_FALSE(pool.release(6));
  EXPECT_EQ(pool.free(), 8);
}

TEST(Pools, RequestsBelowOneOrAboveFreeAreRefused) {
  LockedPool locked(8);
  CasPool cas(8);
  EXPECT_FALSE(locked.acquire(0));
  EXPECT_FALSE(locked.acquire(-2));
  EXPECT_FALSE(locked.acquire(9));
  EXPECT_FALSE(cas.acquire(0));
  EXPECT_FALSE(cas.acquire(9));
  EXPECT_TRUE(cas.acquire(8));
  EXPECT_FALSE(cas.acquire(1));
  EXPECT_EQ(locked.free(), 8);
  EXPECT_EQ(cas.free(), 0);
}

}  // namespace
}  // namespace ridge::lab
