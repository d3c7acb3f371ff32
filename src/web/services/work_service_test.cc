// WorkService over a real SQLite store and a fake clock: an exercise is the user's own and
// signed, a step is graded once, a named mistake is recorded and the last step schedules the
// question by FSRS.
#include "web/services/work_service.h"

#include <cmath>

#include "calc/test_catalog.h"
#include "web/services/test_fixture.h"

namespace ridge::web::services {
namespace {

using calc::testing::real_catalog;
using calc::testing::registry;

bank::Question chain_question() { return testing::work_chain_question(); }

class Work : public testing::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    bank_.questions.push_back(chain_question());
    bank_.build_indexes();
    reviews_ = std::make_unique<ReviewService>(bank_, *store_, clock_);
    service_ = std::make_unique<WorkService>(bank_, registry(), real_catalog(), *store_, clock_, random_, *reviews_, signer_);
  }
  // The answer that names a misconception for step `step`, if the exercise has one.
  std::optional<std::string> mistaken_answer(const practice::Exercise& ex, size_t step) {
    practice::MistakeContext ctx{ex, step, registry(), real_catalog()};
    for (const auto& m : practice::misconceptions()) {
      auto wrong = m.wrong(ctx);
      if (!wrong || !std::isfinite(*wrong)) continue;
      if (practice::match_misconception(ctx, *wrong, ex.tolerance) == &m) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", *wrong);
        return std::string(text);
      }
    }
    return std::nullopt;
  }
  static std::string exact(double v) { return testing::exact(v); }

  mail::LinkSigner signer_{"work test secret"};
  std::unique_ptr<ReviewService> reviews_;
  std::unique_ptr<WorkService> service_;
};

TEST_F(Work, AQuestionWithoutACalcChainIsNotWorkable) {
  EXPECT_TRUE(service_->workable("work-chain"));
  EXPECT_FALSE(service_->workable("free-a"));  // no calc blocks
  EXPECT_FALSE(service_->workable("no-such-question"));
  auto refused = service_->start(new_user(), "free-a");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, Failure::Kind::kInvalid);
  EXPECT_EQ(refused.error().errors[0].field, "slug");
}

TEST_F(Work, AForgedSeedOrAnotherUsersExerciseIsRefused) {
  int64_t a = new_user("a@example.com"), b = new_user("b@example.com");
  auto t = service_->start(a, "work-chain");
  ASSERT_TRUE(t.ok()) << t.error().message();
  const std::string seed = std::to_string(t->exercise.seed);
  ASSERT_TRUE(service_->open(a, "work-chain", seed, t->signature).ok());
  // Another seed under the same signature: the inputs changed.
  auto forged = service_->open(a, "work-chain", std::to_string(t->exercise.seed + 1), t->signature);
  ASSERT_FALSE(forged.ok());
  EXPECT_EQ(forged.error().kind, Failure::Kind::kForbidden);
  // Another user presenting a's exercise.
  auto other = service_->grade(b, 0.9, "work-chain", seed, t->signature, "0", "1");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().kind, Failure::Kind::kForbidden);
  // A tampered signature.
  std::string bad = t->signature;
  bad[0] = bad[0] == 'a' ? 'b' : 'a';
  EXPECT_EQ(service_->open(a, "work-chain", seed, bad).error().kind, Failure::Kind::kForbidden);
  // Not a seed at all.
  auto junk = service_->open(a, "work-chain", "12x", t->signature);
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().errors[0].field, "seed");
  // Nothing was recorded by the refused attempts.
  EXPECT_TRUE(store_->work_attempts(b, "work-chain", static_cast<int64_t>(t->exercise.seed))->empty());
}

TEST_F(Work, AStepIsGradedOnceAndAnUnreadableAnswerIsAskedAgain) {
  int64_t a = new_user();
  auto t = service_->start(a, "work-chain");
  ASSERT_TRUE(t.ok());
  const std::string seed = std::to_string(t->exercise.seed);
  auto unreadable = service_->grade(a, 0.9, "work-chain", seed, t->signature, "0", "lots");
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(unreadable.error().errors[0].field, "answer");
  auto out_of_range = service_->grade(a, 0.9, "work-chain", seed, t->signature, "2", "1");
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.error().errors[0].field, "step");  // two steps: 0 and 1
  auto first = service_->grade(a, 0.9, "work-chain", seed, t->signature, "0", exact(t->exercise.steps[0].value));
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_TRUE(first->grade.correct);
  EXPECT_FALSE(first->finished);
  // The replay, even with another answer, is refused; the first grade stands.
  auto replay = service_->grade(a, 0.9, "work-chain", seed, t->signature, "0", "1");
  ASSERT_FALSE(replay.ok());
  EXPECT_EQ(replay.error().kind, Failure::Kind::kConflict);
  auto state = service_->open(a, "work-chain", seed, t->signature);
  ASSERT_EQ(state->graded.size(), 1u);
  EXPECT_TRUE(state->graded[0].right);
}

TEST_F(Work, AllRightSchedulesGoodAndTheQuestionComesBackLater) {
  int64_t a = new_user();
  auto t = service_->start(a, "work-chain");
  ASSERT_TRUE(t.ok());
  const std::string seed = std::to_string(t->exercise.seed);
  ASSERT_EQ(t->exercise.steps.size(), 2u);
  ASSERT_TRUE(service_->grade(a, 0.9, "work-chain", seed, t->signature, "0", exact(t->exercise.steps[0].value)).ok());
  auto last = service_->grade(a, 0.9, "work-chain", seed, t->signature, "1", exact(t->exercise.steps[1].value));
  ASSERT_TRUE(last.ok()) << last.error().message();
  EXPECT_TRUE(last->finished);
  EXPECT_EQ(last->fsrs_grade, 3);
  ASSERT_TRUE(last->scheduled.has_value());
  // A new card graded Good is due in the future (review_service_test: ten minutes first).
  EXPECT_GT(last->scheduled->due, clock_.now());
  auto card = store_->get_card(a, "work-chain");
  ASSERT_TRUE(card.ok() && card->has_value());
  EXPECT_EQ((*card)->reps, 1);
  EXPECT_EQ((*card)->lapses, 0);
  auto log = store_->reviews(a);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].grade, 3);
  EXPECT_TRUE(service_->mistakes(a)->empty());
}

TEST_F(Work, ANamedMistakeIsRecordedSchedulesAgainAndCountsByKind) {
  int64_t a = new_user();
  // Find a draw whose first step has a named mistake (the fit step: KV heads, TP split, ...);
  // at most 20 starts, each a fresh seed.
  std::optional<WorkTicket> ticket;
  std::optional<std::string> wrong;
  for (int i = 0; i < 20 && !wrong; ++i) {
    auto t = service_->start(a, "work-chain");
    ASSERT_TRUE(t.ok());
    wrong = mistaken_answer(t->exercise, 0);
    if (wrong) ticket = *t;
  }
  ASSERT_TRUE(wrong.has_value()) << "no draw of the fit step had a named mistake";
  const std::string seed = std::to_string(ticket->exercise.seed);
  auto g = service_->grade(a, 0.9, "work-chain", seed, ticket->signature, "0", *wrong);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_FALSE(g->grade.correct);
  ASSERT_NE(g->grade.misconception, nullptr);
  const std::string id = g->grade.misconception->id;
  auto last = service_->grade(a, 0.9, "work-chain", seed, ticket->signature, "1", exact(ticket->exercise.steps[1].value));
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->finished);
  EXPECT_EQ(last->fsrs_grade, 1);  // Again: one step was a named mistake
  EXPECT_EQ((*store_->reviews(a))[0].grade, 1);
  auto mistakes = service_->mistakes(a);
  ASSERT_TRUE(mistakes.ok());
  ASSERT_EQ(mistakes->size(), 1u);
  EXPECT_EQ((*mistakes)[0].misconception->id, id);
  EXPECT_EQ((*mistakes)[0].count, 1);
  EXPECT_EQ((*mistakes)[0].last_at, clock_.now());
  EXPECT_EQ((*mistakes)[0].practice_slug, "work-chain");
}

// The drills page's set for a mistake: the questions whose chain it applies to. The one chain
// here sizes Llama 3.1 70B (64 query heads, 8 KV heads): counting the query heads as KV heads
// gives 8 times the KV per token and fewer sequences, so it is told apart and the question
// trains it. No block has a pue parameter, so forgetting the PUE changes nothing: not trained.
TEST_F(Work, TrainsListsTheQuestionsAMistakeAppliesTo) {
  EXPECT_EQ(service_->trains("kv-heads-as-attention-heads", 5), std::vector<std::string>{"work-chain"});
  EXPECT_EQ(service_->trains("kv-heads-as-attention-heads", 5), std::vector<std::string>{"work-chain"});  // cached
  EXPECT_TRUE(service_->trains("kv-heads-as-attention-heads", 0).empty());  // the limit holds
  EXPECT_TRUE(service_->trains("pue-forgotten", 5).empty());
  EXPECT_TRUE(service_->trains("no-such-mistake", 5).empty());
}

}  // namespace
}  // namespace ridge::web::services
