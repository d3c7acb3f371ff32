#include "tenant_limiter.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/invalid_argument_message.h"

namespace ridge::lab {
namespace {

// The question's load: fleet 10,000 tokens/s; weights 1, 1, 2 (guarantees 2,500, 2,500,
// 5,000); demand 8,000, 1,000, 4,000.
const std::vector<TenantLoad> kLoad = {{{"A", 1}, 8'000}, {{"B", 1}, 1'000}, {{"C", 2}, 4'000}};

TEST(Simulation, OneGlobalBucketFollowsTheHeaviestSender) {
  const auto r = simulate(kLoad, 10'000, Policy::kGlobal);
  EXPECT_DOUBLE_EQ(r[0], 6'000);  // A: more than twice its guarantee
  EXPECT_DOUBLE_EQ(r[1], 1'000);
  EXPECT_DOUBLE_EQ(r[2], 3'000);  // C: below its demand, under its guarantee
}

TEST(Simulation, StaticQuotasLeaveTheUnusedShareIdle) {
  const auto r = simulate(kLoad, 10'000, Policy::kStaticQuota);
  EXPECT_DOUBLE_EQ(r[0], 2'500);
  EXPECT_DOUBLE_EQ(r[1], 1'000);
  EXPECT_DOUBLE_EQ(r[2], 4'000);
  EXPECT_DOUBLE_EQ(r[0] + r[1] + r[2], 7'500);
}

TEST(Simulation, GuaranteeAndBorrowIsMaxMinFairAndFillsTheFleet) {
  const auto r = simulate(kLoad, 10'000, Policy::kGuaranteeAndBorrow);
  EXPECT_DOUBLE_EQ(r[0], 5'000);  // its guarantee plus what B and C left
  EXPECT_DOUBLE_EQ(r[1], 1'000);
  EXPECT_DOUBLE_EQ(r[2], 4'000);
  EXPECT_DOUBLE_EQ(r[0] + r[1] + r[2], 10'000);
}

TEST(Simulation, FixedServiceOrderHandsTheSharedPoolToTheFirstTenant) {
  // A and B (weight 1 each) both want far more than their guarantee; C (weight 2) is idle,
  // so its 5,000/s spills into the shared pool. Equal weights must split it evenly: with the
  // same tenant first on every tick, A wins the odd request of every tick.
  const std::vector<TenantLoad> load = {{{"A", 1}, 8'000}, {{"B", 1}, 8'000}, {{"C", 2}, 0}};
  const auto r = simulate(load, 10'000, Policy::kGuaranteeAndBorrow);
  EXPECT_DOUBLE_EQ(r[0], r[1]);
  EXPECT_DOUBLE_EQ(r[0] + r[1], 10'000);
}

TEST(TenantLimiter, BorrowingNeverSpendsAnotherTenantsGuarantee) {
  // A shared pool alone is the global bucket again: B's own tokens must stay B's.
  TenantLimiter lim(1'000, 10, {{"A", 1}, {"B", 1}}, Policy::kGuaranteeAndBorrow);
  while (lim.reserve("A", 10).admitted()) {
  }
  EXPECT_EQ(lim.own("A").tokens, 0);
  EXPECT_EQ(lim.own("B").tokens, 500);
  EXPECT_TRUE(lim.reserve("B", 500).admitted());
}

TEST(TenantLimiter, SpillFromAFullBucketIsBorrowable) {
  TenantLimiter lim(1'000, 10, {{"A", 1}, {"B", 1}}, Policy::kGuaranteeAndBorrow);
  EXPECT_EQ(lim.shared().tokens, 0);
  ASSERT_TRUE(lim.reserve("A", 500).admitted());  // A empty; B stays full
  lim.tick();                                      // B's 50 spill; A keeps its 50
  EXPECT_EQ(lim.own("A").tokens, 50);
  EXPECT_EQ(lim.shared().tokens, 50);
  const Reservation r = lim.reserve("A", 100);  // paid whole from one bucket: neither holds 100
  EXPECT_FALSE(r.admitted());
  const Reservation s = lim.reserve("A", 50);
  EXPECT_EQ(s.payer, Payer::kOwn);
  const Reservation t = lim.reserve("A", 50);
  EXPECT_EQ(t.payer, Payer::kShared);
}

TEST(TenantLimiter, ReserveThenSettleRefundsTheUnusedOutput) {
  // The question's numbers: a 2,000-token bucket, a 300-token prompt with max_tokens 1,024,
  // an answer of 180 tokens.
  TenantLimiter lim(2'000, 1, {{"A", 1}}, Policy::kStaticQuota);
  Reservation r = lim.reserve("A", 300 + 1'024);
  ASSERT_TRUE(r.admitted());
  EXPECT_EQ(lim.own("A").tokens, 676);
  lim.settle(r, 300 + 180);
  EXPECT_EQ(lim.own("A").tokens, 1'520);
}

TEST(TenantLimiter, ChargingTheWorstCaseUpFrontHoldsBackABurst) {
  // Charged after the fact only, both long requests would pass admission on a full bucket.
  TenantLimiter lim(2'000, 1, {{"A", 1}}, Policy::kStaticQuota);
  EXPECT_TRUE(lim.reserve("A", 1'324).admitted());
  const Reservation second = lim.reserve("A", 1'324);
  EXPECT_FALSE(second.admitted());
  EXPECT_GT(second.retry_after_ticks, 0);
}

TEST(TenantLimiter, RefundIsCappedAtCapacity) {
  TenantLimiter lim(1'000, 10, {{"A", 1}}, Policy::kStaticQuota);
  Reservation r = lim.reserve("A", 100);
  ASSERT_TRUE(r.admitted());
  lim.tick();
  lim.tick();  // refilled to capacity while the request ran
  ASSERT_EQ(lim.own("A").tokens, 1'000);
  lim.settle(r, 0);  // cancelled: the whole reservation comes back, but not past capacity
  EXPECT_EQ(lim.own("A").tokens, 1'000);
}

TEST(TenantLimiter, RefundGoesBackToTheBucketThatPaid) {
  TenantLimiter lim(1'000, 10, {{"A", 1}, {"B", 1}}, Policy::kGuaranteeAndBorrow);
  ASSERT_TRUE(lim.reserve("A", 500).admitted());
  for (int i = 0; i < 2; ++i) lim.tick();  // A: 100 own; shared: 100 from B's spill
  ASSERT_TRUE(lim.reserve("A", 100).admitted());
  Reservation borrowed = lim.reserve("A", 100);
  ASSERT_EQ(borrowed.payer, Payer::kShared);
  EXPECT_EQ(lim.shared().tokens, 0);
  lim.settle(borrowed, 40);
  EXPECT_EQ(lim.shared().tokens, 60);
  EXPECT_EQ(lim.own("A").tokens, 0);
}

TEST(TenantLimiter, RetryAfterIsRoundedUp) {
  TenantLimiter lim(1'000, 100, {{"A", 1}}, Policy::kStaticQuota);  // 10 tokens per tick
  ASSERT_TRUE(lim.reserve("A", 1'000).admitted());
  const Reservation r = lim.reserve("A", 25);
  ASSERT_FALSE(r.admitted());
  EXPECT_EQ(r.retry_after_ticks, 3);  // 25 / 10 per tick: 2 ticks is 5 short
  lim.tick();
  lim.tick();
  EXPECT_FALSE(lim.reserve("A", 25).admitted());
  lim.tick();
  EXPECT_TRUE(lim.reserve("A", 25).admitted());
  EXPECT_EQ(lim.reserve("A", 1'001).retry_after_ticks, -1);  // above capacity: never fits
}

TEST(TenantLimiter, BadInputNamesTheFieldAndTheValue) {
  TenantLimiter lim(1'000, 10, {{"A", 1}}, Policy::kGuaranteeAndBorrow);
  EXPECT_EQ(invalid_argument_message([&] { lim.reserve("zed", 1); }), "tenant 'zed': not configured");
  EXPECT_EQ(invalid_argument_message([&] { lim.reserve("A", 0); }), "reserve n 0: must be >= 1");
  Reservation r = lim.reserve("A", 10);
  EXPECT_EQ(invalid_argument_message([&] { lim.settle(r, 11); }), "settle used 11: must be in [0, 10]");
  lim.settle(r, 10);
  EXPECT_EQ(invalid_argument_message([&] { lim.settle(r, 10); }), "settle: the reservation is already settled");
  EXPECT_EQ(invalid_argument_message([] { TenantLimiter bad(1'000, 10, {{"A", 0}}, Policy::kGlobal); }),
            "weight of tenant 'A' 0: must be >= 1");
}

}  // namespace
}  // namespace ridge::lab
