#include "credit_scheduler.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/invalid_argument_message.h"

namespace ridge::lab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kAgreed[3] = {0.5, 0.3, 0.2};

TEST(Simulation, RoundRobinByJobIsFairPerJobNotPerGpu) {
  const SimResult r = simulate(Mode::kRoundRobin, kInf);
  EXPECT_NEAR(r.share[1], 0.50, 0.005);  // B's 32-GPU gangs take half the cluster
  EXPECT_NEAR(r.share[2], 0.13, 0.005);  // C gets well under its 0.2
}

TEST(Simulation, BankingForeverLetsAReturningTeamTakeTheCluster) {
  // The no-decay row: C returns with 1,000 ticks of savings; A and B are deep in debt.
  const SimResult r = simulate(Mode::kReserve, kInf);
  EXPECT_GT(r.burst_share[2], 0.9);
  EXPECT_LT(r.burst_share[0], 0.05);
}

TEST(Simulation, DecayBoundsTheBurstOfATeamReturningFromIdle) {
  const SimResult r = simulate(Mode::kReserve, 144);
  EXPECT_LT(r.burst_share[2], 0.6);
  EXPECT_GT(r.burst_share[0], 0.2);
}

TEST(Simulation, LongRunSharesStayNearTheAgreedSharesWhenAllAreBacklogged) {
  // The property test: with a one-day half-life every team ends within 0.03 of its share.
  for (Mode mode : {Mode::kBackfill, Mode::kReserve}) {
    const SimResult r = simulate(mode, 144);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.share[i], kAgreed[i], 0.03) << "team " << i << " mode " << int(mode);
  }
}

TEST(Simulation, ReserveIdlesGpusThatBackfillFills) {
  const SimResult reserve = simulate(Mode::kReserve, 144);
  const SimResult backfill = simulate(Mode::kBackfill, 144);
  EXPECT_DOUBLE_EQ(backfill.busy, 1.0);
  EXPECT_LT(reserve.busy, 0.97);
  EXPECT_GT(reserve.busy, 0.9);
}

TEST(CreditScheduler, IdleSavingsSaturateAtEarnOverOneMinusD) {
  // C earns 0.2 x 64 = 12.8 a tick and runs nothing until tick 1,000.
  CreditScheduler s(64, {{"A", 0.8, 8, 6}, {"C", 0.2, 4, 3, 1000}}, Mode::kBackfill, 144);
  for (int t = 0; t < 999; ++t) s.step();
  const double bound = 12.8 / (1 - s.decay());
  EXPECT_NEAR(s.decay(), std::pow(0.5, 1.0 / 144), 1e-12);
  EXPECT_LE(s.balance(1), bound);
  EXPECT_GT(s.balance(1), 0.99 * bound);  // 999 ticks is about 7 half-lives
}

TEST(CreditScheduler, DebtFromBorrowedIdleCapacityFades) {
  // A alone (share 0.5) keeps all 64 GPUs busy: it pays 32 more than it earns every tick.
  // Without decay the debt grows without limit and would starve A once others return.
  CreditScheduler s(64, {{"A", 0.5, 8, 6}, {"B", 0.5, 8, 6, 1'000'000}}, Mode::kBackfill, 144);
  for (int t = 0; t < 2000; ++t) s.step();
  const double floor = -32 / (1 - s.decay());
  EXPECT_GE(s.balance(0), floor - 1e-6);
  EXPECT_LT(s.balance(0), 0.9 * floor);  // it did borrow
}

TEST(CreditScheduler, RankingOnAStaleBalanceLetsOnePickWinTheWholeTick) {
  // Equal shares, equal balances, 8 one-tick 8-GPU jobs fit in the first tick: the picks
  // must spread over the teams (3, 3, 2), not all go to the first-ranked team.
  CreditScheduler s(64, {{"A", 0.3, 8, 1}, {"B", 0.3, 8, 1}, {"C", 0.3, 8, 1}}, Mode::kBackfill, 144);
  s.step();
  EXPECT_EQ(s.starts(0), 3);
  EXPECT_EQ(s.starts(1), 3);
  EXPECT_EQ(s.starts(2), 2);
}

TEST(CreditScheduler, TiesGoToTheSmallerNameNotTheContainerOrder) {
  CreditScheduler s(8, {{"B", 0.5, 8, 4}, {"A", 0.5, 8, 4}}, Mode::kBackfill, 144);
  s.step();
  EXPECT_EQ(s.starts(1), 1);  // "A", listed second
  EXPECT_EQ(s.starts(0), 0);
}

TEST(CreditScheduler, GangStartsWholeOrNotAtAllAndNeverOverfills) {
  CreditScheduler s(40, {{"A", 0.5, 8, 3}, {"B", 0.5, 32, 5}}, Mode::kBackfill, 144);
  long b_before = 0;
  for (int t = 0; t < 500; ++t) {
    s.step();
    ASSERT_LE(s.used_gpus(), 40) << "tick " << t;
    const long b_now = s.gpu_ticks(1);
    ASSERT_EQ((b_now - b_before) % 32, 0) << "tick " << t << ": part of B's gang is running";
    b_before = b_now;
  }
  EXPECT_GT(s.starts(1), 0);
}

TEST(CreditScheduler, BadConfigurationNamesTheFieldAndTheValue) {
  EXPECT_EQ(invalid_argument_message([] { CreditScheduler(64, {{"B", 0.3, 80, 12}}, Mode::kReserve, 144); }),
            "job_gpus of team 'B' 80: must be in [1, 64]");
  EXPECT_EQ(invalid_argument_message([] { CreditScheduler(64, {{"A", 0.7, 8, 6}, {"B", 0.5, 8, 6}}, Mode::kReserve, 144); }),
            "shares sum to 1.200000: must be at most 1");
  EXPECT_EQ(invalid_argument_message([] { CreditScheduler(64, {{"A", 0.5, 8, 6}}, Mode::kReserve, 0); }),
            "half_life_ticks 0.000000: must be > 0 (or infinity)");
  EXPECT_EQ(invalid_argument_message([] { CreditScheduler(0, {}, Mode::kReserve, 144); }), "cluster_gpus 0: must be >= 1");
}

}  // namespace
}  // namespace ridge::lab
