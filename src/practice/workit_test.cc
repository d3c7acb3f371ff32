// Work it: draws are deterministic per (slug, seed), change inputs within their ranges, keep
// references between blocks working, and the bank offers 300 or more workable questions.
#include "practice/workit.h"

#include <gtest/gtest.h>

#include <set>

#include "bank/loader.h"
#include "calc/test_catalog.h"
#include "practice/drills.h"

namespace ridge::practice {
namespace {

using calc::testing::real_catalog;
using calc::testing::registry;

bank::Question chain_question() {
  bank::Question q;
  q.slug = "chain";
  q.title = "How many sequences fit, and how long does one sequence's KV take to move?";
  q.body_markdown =
      "Prose.\n\n```calc id=fit\nfit model=llama-3.1-70b gpu=h100-sxm gpus=8 context=32768\n```\n\n"
      "```calc id=move\ntransfer bytes={{fit.kv_bytes_per_sequence}} bandwidth=50GB/s\n```\n";
  q.tldr_markdown = "{{fit.max_sequences:int}} sequences fit; moving one takes {{move.seconds:s:1}}.";
  return q;
}

TEST(WorkIt, PlanAsksWhatTheTldrQuotesInOrder) {
  WorkPlan plan = plan_question(chain_question(), registry(), real_catalog());
  ASSERT_TRUE(plan.workable) << plan.reason;
  ASSERT_EQ(plan.blocks.size(), 2u);
  EXPECT_EQ(plan.asked, (std::vector<std::string>{"fit.max_sequences", "move.seconds"}));
}

TEST(WorkIt, AuthorsAskedListAndNotWorkableWin) {
  bank::Question q = chain_question();
  q.work.asked = {"fit.kv_bytes_per_token"};
  EXPECT_EQ(plan_question(q, registry(), real_catalog()).asked, (std::vector<std::string>{"fit.kv_bytes_per_token"}));
  q.work.workable = false;
  q.work.reason = "the figures are a vendor's";
  WorkPlan plan = plan_question(q, registry(), real_catalog());
  EXPECT_FALSE(plan.workable);
  EXPECT_EQ(plan.reason, "the figures are a vendor's");
  std::string error;
  EXPECT_FALSE(make_exercise(plan, q.title, 1, registry(), real_catalog(), &error));
  EXPECT_NE(error.find("not workable"), std::string::npos) << error;
}

TEST(WorkIt, SameSeedSameExerciseAndSeedsDiffer) {
  WorkPlan plan = plan_question(chain_question(), registry(), real_catalog());
  std::string error;
  auto a = make_exercise(plan, "t", 7, registry(), real_catalog(), &error);
  auto b = make_exercise(plan, "t", 7, registry(), real_catalog(), &error);
  ASSERT_TRUE(a && b) << error;
  ASSERT_EQ(a->inputs.size(), b->inputs.size());
  for (size_t i = 0; i < a->inputs.size(); ++i) EXPECT_EQ(a->inputs[i].drawn, b->inputs[i].drawn);
  EXPECT_FALSE(a->inputs.empty());
  // Across ten seeds at least two different sets of inputs (a draw is not a constant).
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    auto ex = make_exercise(plan, "t", seed, registry(), real_catalog(), &error);
    ASSERT_TRUE(ex) << error;
    std::string key;
    for (const auto& in : ex->inputs) key += in.param + "=" + in.drawn + ";";
    seen.insert(key);
    EXPECT_LE(ex->attempts, kMaxDraws);
  }
  EXPECT_GE(seen.size(), 2u);
}

TEST(WorkIt, ReferencesFollowTheDrawnInputs) {
  WorkPlan plan = plan_question(chain_question(), registry(), real_catalog());
  std::string error;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto ex = make_exercise(plan, "t", seed, registry(), real_catalog(), &error);
    ASSERT_TRUE(ex) << error;
    // move.seconds = fit.kv_bytes_per_sequence / the drawn bandwidth: the transfer read the
    // drawn chain's KV, not the original 10.7 GB.
    auto kv = ex->chain.value("fit.kv_bytes_per_sequence");
    auto secs = ex->chain.value("move.seconds");
    ASSERT_TRUE(kv && secs);
    double bandwidth = 50e9;
    for (const auto& in : ex->inputs) {
      if (in.param == "bandwidth") bandwidth = std::stod(in.drawn);
    }
    EXPECT_NEAR(*secs, *kv / bandwidth, *secs * 1e-9);
    // Drawn numbers stay in the declared range: gpus 1 to 65,536.
    for (const auto& in : ex->inputs) {
      if (in.param == "gpus") {
        double g = std::stod(in.drawn);
        EXPECT_GE(g, 1);
        EXPECT_LE(g, 65536);
      }
    }
  }
}

TEST(WorkIt, SeedZeroIsTheQuestionAsWritten) {
  WorkPlan plan = plan_question(chain_question(), registry(), real_catalog());
  std::string error;
  auto ex = make_exercise(plan, "t", 0, registry(), real_catalog(), &error);
  ASSERT_TRUE(ex) << error;
  EXPECT_TRUE(ex->inputs.empty());
  // 10,737,418,240 B (see misconceptions_test) at 50e9 B/s = 0.2147 s.
  EXPECT_NEAR(ex->steps[1].value, 0.2147, 0.0001);
  EXPECT_TRUE(grade_step(*ex, 1, "215ms", registry(), real_catalog()).correct);
  EXPECT_FALSE(grade_step(*ex, 1, "0.3", registry(), real_catalog()).correct);
}

TEST(WorkIt, NothingToVaryIsNotWorkable) {
  bank::Question q;
  q.slug = "x";
  q.body_markdown = "```calc id=e\nexpr\nx = 2 * 3\n```\n";
  q.tldr_markdown = "{{e.x}}";
  WorkPlan plan = plan_question(q, registry(), real_catalog());
  EXPECT_FALSE(plan.workable);
  EXPECT_NE(plan.reason.find("no calc input can vary"), std::string::npos) << plan.reason;
}

// The bank: 300 or more questions workable, each valid at three seeds (ridge check runs 20).
TEST(WorkIt, BankCoverage) {
  bank::LoadResult loaded = bank::load_bank(RIDGE_CONTENT_DIR, registry(), real_catalog(), {/*lint=*/false});
  int workable = 0;
  for (const auto& q : loaded.bank.questions) {
    WorkPlan plan = plan_question(q, registry(), real_catalog());
    if (!plan.workable) continue;
    ++workable;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      std::string error;
      EXPECT_TRUE(make_exercise(plan, q.title, seed, registry(), real_catalog(), &error)) << error;
    }
  }
  EXPECT_GE(workable, 300);
}

}  // namespace
}  // namespace ridge::practice
