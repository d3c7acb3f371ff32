// The store suite (store_test_fixture.h), the practice tables: bookmarks, notes, drills,
// readiness checks, Work it steps, design attempts and rehearsals, each kept per user.
#include "store/store_test_fixture.h"

#include <string>
#include <vector>

namespace ridge::store {
namespace {

TEST_P(StoreSuite, BookmarksNotesDrillsReadiness) {
  int64_t a = user("n@example.com");
  ASSERT_TRUE(store_->set_bookmark(a, "q1", true, 1).ok());
  ASSERT_TRUE(store_->set_bookmark(a, "q1", true, 2).ok());  // idempotent
  ASSERT_TRUE(store_->set_bookmark(a, "q2", true, 3).ok());
  ASSERT_TRUE(store_->set_bookmark(a, "q1", false, 4).ok());
  EXPECT_EQ(*store_->bookmarks(a), std::vector<std::string>{"q2"});
  ASSERT_TRUE(store_->put_note(a, "q2", "remember 8 KV heads", 5).ok());
  ASSERT_TRUE(store_->put_note(a, "q2", "remember 8 KV heads, not 64", 6).ok());
  EXPECT_EQ(**store_->get_note(a, "q2"), "remember 8 KV heads, not 64");
  ASSERT_TRUE(store_->put_note(a, "q2", "", 7).ok());
  EXPECT_FALSE(store_->get_note(a, "q2")->has_value());
  ASSERT_TRUE(store_->record_drill(a, {"fit", "napkin-math", true, 8}).ok());
  ASSERT_TRUE(store_->record_drill(a, {"roofline", "gpu-architecture", false, 9}).ok());
  auto drills = store_->drills(a);
  ASSERT_EQ(drills->size(), 2u);
  EXPECT_TRUE((*drills)[0].correct);
  EXPECT_FALSE((*drills)[1].correct);
  auto id = store_->save_readiness(a, {0, "serving", 10, 910, 0.75, "{\"topics\":{}}"});
  ASSERT_TRUE(id.ok());
  auto history = store_->readiness_history(a);
  ASSERT_EQ(history->size(), 1u);
  EXPECT_DOUBLE_EQ((*history)[0].score, 0.75);
  EXPECT_EQ((*history)[0].detail_json, "{\"topics\":{}}");
  // Deleting the account deletes all of it.
  ASSERT_TRUE(store_->delete_user(a).ok());
  EXPECT_TRUE(store_->drills(a)->empty());
  EXPECT_TRUE(store_->readiness_history(a)->empty());
  EXPECT_TRUE(store_->bookmarks(a)->empty());
  EXPECT_TRUE(store_->reviews(a)->empty());
}

// Issue 33 item 3: a readiness check lived only in the page, so a refresh lost it. The open
// check is kept per user: one at a time, replaced by a new start, closed only by its own
// payload, and deleted with the account.
TEST_P(StoreSuite, Finding33_OpenReadinessCheckIsKeptPerUser) {
  int64_t a = user("open-a@example.com"), b = user("open-b@example.com");
  EXPECT_FALSE(store_->find_open_readiness(a)->has_value());
  ASSERT_TRUE(store_->open_readiness(a, {"p1", "m1", 100}).ok());
  ASSERT_TRUE(store_->open_readiness(b, {"pb", "mb", 150}).ok());
  auto open = store_->find_open_readiness(a);
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->payload, "p1");
  EXPECT_EQ((*open)->mac, "m1");
  EXPECT_EQ((*open)->started_at, 100);
  ASSERT_TRUE(store_->open_readiness(a, {"p2", "m2", 200}).ok());  // a new start replaces it
  EXPECT_EQ((*store_->find_open_readiness(a))->payload, "p2");
  ASSERT_TRUE(store_->close_readiness(a, "p1").ok());  // an older check's submission
  EXPECT_TRUE(store_->find_open_readiness(a)->has_value());
  ASSERT_TRUE(store_->close_readiness(a, "p2").ok());
  EXPECT_FALSE(store_->find_open_readiness(a)->has_value());
  EXPECT_EQ((*store_->find_open_readiness(b))->payload, "pb");  // another user's is untouched
  ASSERT_TRUE(store_->delete_user(b).ok());
  EXPECT_FALSE(store_->find_open_readiness(b)->has_value());
}

// Work it (issue 34): a step is graded once, mistakes are counted by kind, and all of it goes
// with the account.
TEST_P(StoreSuite, WorkStepsAreGradedOnceAndMistakesCountedByKind) {
  int64_t a = user("w@example.com"), b = user("w2@example.com");
  ASSERT_TRUE(*store_->record_work_step(a, {"kv", 42, 0, "64 GiB", false, "kv-heads-as-attention-heads", 100}));
  // The same step again (a replayed form, another server): nothing is written.
  EXPECT_FALSE(*store_->record_work_step(a, {"kv", 42, 0, "8 GiB", true, "", 101}));
  ASSERT_TRUE(*store_->record_work_step(a, {"kv", 42, 1, "3", true, "", 102}));
  // Another user's step 0 of the same exercise is theirs.
  ASSERT_TRUE(*store_->record_work_step(b, {"kv", 42, 0, "8", true, "", 103}));
  auto steps = store_->work_attempts(a, "kv", 42);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].answer, "64 GiB");  // the first grade stands
  EXPECT_FALSE((*steps)[0].right);
  EXPECT_TRUE((*steps)[1].right);
  EXPECT_TRUE(store_->work_attempts(a, "kv", 43)->empty());
  // Mistakes: kv-heads twice (at 100 and 205), bits-as-bytes once: kv-heads first, last at 205.
  ASSERT_TRUE(*store_->record_work_step(a, {"kv", 7, 0, "1", false, "kv-heads-as-attention-heads", 205}));
  ASSERT_TRUE(*store_->record_work_step(a, {"ib", 7, 0, "1", false, "bits-as-bytes", 300}));
  auto mistakes = store_->work_mistakes(a);
  ASSERT_TRUE(mistakes.ok());
  ASSERT_EQ(mistakes->size(), 2u);
  EXPECT_EQ((*mistakes)[0].misconception, "kv-heads-as-attention-heads");
  EXPECT_EQ((*mistakes)[0].count, 2);
  EXPECT_EQ((*mistakes)[0].last_at, 205);
  EXPECT_EQ((*mistakes)[0].slug, "kv");
  EXPECT_EQ((*mistakes)[1].count, 1);
  EXPECT_EQ((*mistakes)[1].slug, "ib");
  EXPECT_TRUE(store_->work_mistakes(b)->empty());
  ASSERT_TRUE(store_->delete_user(a).ok());
  EXPECT_TRUE(store_->work_attempts(a, "kv", 42)->empty());
  EXPECT_TRUE(store_->work_mistakes(a)->empty());
  EXPECT_EQ(store_->work_attempts(b, "kv", 42)->size(), 1u);
}

// Design rounds (issue 35): every attempt kept, the best passing one per user, and a board
// with one row per user however many times a user passes; all of it goes with the account.
TEST_P(StoreSuite, DesignAttemptsKeepTheBestAndTheBoardHasOneRowPerUser) {
  int64_t a = user("d@example.com"), b = user("d2@example.com");
  auto attempt = [](bool pass, double cost, int64_t at, bool show = false, std::string name = "") {
    store::DesignAttempt x;
    x.challenge = "chat";
    x.submission = "{\"replicas\":\"4\"}";
    x.pass = pass;
    x.cost_usd = cost;
    x.seconds = 600;
    x.show_name = show;
    x.board_name = std::move(name);
    x.at = at;
    return x;
  };
  // a: a fail (cheapest, so it must not count), then passes at 50,000 and 40,000, then 45,000.
  ASSERT_TRUE(store_->record_design_attempt(a, attempt(false, 10000, 100)).ok());
  ASSERT_TRUE(store_->record_design_attempt(a, attempt(true, 50000, 200)).ok());
  ASSERT_TRUE(store_->record_design_attempt(a, attempt(true, 40000, 300, true, "ada")).ok());
  ASSERT_TRUE(store_->record_design_attempt(a, attempt(true, 45000, 400)).ok());
  // b: one pass at 42,000, anonymous; another challenge's pass at 1 dollar is not on this board.
  ASSERT_TRUE(store_->record_design_attempt(b, attempt(true, 42000, 500)).ok());
  auto other = attempt(true, 1, 600);
  other.challenge = "other";
  ASSERT_TRUE(store_->record_design_attempt(b, other).ok());

  auto mine = store_->design_attempts(a, "chat", 10);
  ASSERT_TRUE(mine.ok());
  ASSERT_EQ(mine->size(), 4u);
  EXPECT_EQ((*mine)[0].at, 400);  // the newest first
  EXPECT_EQ((*mine)[3].at, 100);
  EXPECT_FALSE((*mine)[3].pass);
  EXPECT_EQ((*mine)[0].seconds, 600);
  EXPECT_EQ((*mine)[0].submission, "{\"replicas\":\"4\"}");
  EXPECT_EQ(store_->design_attempts(a, "chat", 2)->size(), 2u);  // the limit holds

  auto best = store_->design_best(a, "chat");
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_DOUBLE_EQ((*best)->cost_usd, 40000);  // the cheapest pass, not the cheaper fail
  EXPECT_TRUE(store_->design_best(a, "other")->has_value() == false);

  // The board: a's best (40,000) then b's (42,000): two rows for five passing attempts.
  auto board = store_->design_board("chat", 10);
  ASSERT_TRUE(board.ok());
  ASSERT_EQ(board->size(), 2u);
  EXPECT_EQ((*board)[0].user_id, a);
  EXPECT_DOUBLE_EQ((*board)[0].cost_usd, 40000);
  EXPECT_TRUE((*board)[0].show_name);
  EXPECT_EQ((*board)[0].board_name, "ada");
  EXPECT_EQ((*board)[1].user_id, b);
  EXPECT_FALSE((*board)[1].show_name);
  EXPECT_EQ(store_->design_board("chat", 1)->size(), 1u);

  ASSERT_TRUE(store_->delete_user(a).ok());
  EXPECT_TRUE(store_->design_attempts(a, "chat", 10)->empty());
  ASSERT_EQ(store_->design_board("chat", 10)->size(), 1u);
  EXPECT_EQ((*store_->design_board("chat", 10))[0].user_id, b);
}

// Mock loops (issue 36): a rehearsal belongs to its user, an answer is kept until the round is
// scored, a score counts once, an expired or finished one takes nothing, and the account's
// deletion takes every rehearsal and answer with it.
TEST_P(StoreSuite, RehearsalsBelongToTheirUserAndCountAScoreOnce) {
  auto a = store_->create_user("reh-a@example.com", "h", 1);
  auto b = store_->create_user("reh-b@example.com", "h", 1);
  ASSERT_TRUE(a.ok() && b.ok());
  Rehearsal r;
  r.source = "company:anthropic";
  r.plan_json = "{\"rounds\":[]}";
  r.started_at = 100;
  r.expires_at = 100 + 48 * 3600;
  auto id = store_->create_rehearsal(*a, r, 3);
  ASSERT_TRUE(id.ok()) << id.error().detail;
  auto got = store_->get_rehearsal(*a, *id);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->source, "company:anthropic");
  ASSERT_EQ((*got)->rounds.size(), 3u);
  EXPECT_EQ((*got)->rounds[2].index, 2);
  // Another user sees nothing and changes nothing.
  EXPECT_FALSE(store_->get_rehearsal(*b, *id)->has_value());
  EXPECT_FALSE(*store_->answer_rehearsal_round(*b, *id, 0, "theirs", 200));
  // Scoring before answering is refused; an answer is kept with its first time.
  EXPECT_FALSE(*store_->score_rehearsal_round(*a, *id, 0, "3,3,3,3", 150));
  EXPECT_TRUE(*store_->answer_rehearsal_round(*a, *id, 0, "first draft", 200));
  EXPECT_TRUE(*store_->answer_rehearsal_round(*a, *id, 0, "second draft", 260));
  // Twice scored: the first counts, the second changes nothing.
  EXPECT_TRUE(*store_->score_rehearsal_round(*a, *id, 0, "4,3,2,1", 300));
  EXPECT_FALSE(*store_->score_rehearsal_round(*a, *id, 0, "1,1,1,1", 301));
  EXPECT_FALSE(*store_->answer_rehearsal_round(*a, *id, 0, "after scoring", 302));
  got = store_->get_rehearsal(*a, *id);
  EXPECT_EQ((*got)->rounds[0].answer, "second draft");
  EXPECT_EQ((*got)->rounds[0].answered_at, 200);
  EXPECT_EQ((*got)->rounds[0].scores, "4,3,2,1");
  EXPECT_EQ((*got)->rounds[0].scored_at, 300);
  // Past its expiry, an open rehearsal takes no answer.
  EXPECT_FALSE(*store_->answer_rehearsal_round(*a, *id, 1, "late", r.expires_at));
  // Finished once.
  EXPECT_FALSE(*store_->finish_rehearsal(*b, *id, "{}", 400));
  EXPECT_TRUE(*store_->finish_rehearsal(*a, *id, "{\"recommendation\":\"no\"}", 400));
  EXPECT_FALSE(*store_->finish_rehearsal(*a, *id, "{}", 401));
  EXPECT_FALSE(*store_->answer_rehearsal_round(*a, *id, 1, "after the end", 402));
  auto list = store_->rehearsals(*a);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].report_json, "{\"recommendation\":\"no\"}");
  EXPECT_EQ((*list)[0].finished_at, 400);
  EXPECT_TRUE(store_->rehearsals(*b)->empty());
  ASSERT_TRUE(store_->delete_user(*a).ok());
  EXPECT_TRUE(store_->rehearsals(*a)->empty());
  EXPECT_FALSE(store_->get_rehearsal(*a, *id)->has_value());
}

}  // namespace
}  // namespace ridge::store
