// One suite, run against SQLite and PostgreSQL. The PostgreSQL cases need the ctest fixture
// (tests/pg_fixture.sh), whose URL arrives in RIDGE_TEST_PG_URL_FILE; without it they skip.
#include "store/store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <vector>

#include "store/postgres_store.h"
#include "store/sqlite_store.h"

namespace ridge::store {
namespace {

std::string pg_url() {
  const char* file = std::getenv("RIDGE_TEST_PG_URL_FILE");
  if (!file) return "";
  std::ifstream in(file);
  std::string url;
  std::getline(in, url);
  return url;
}

class StoreSuite : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
      for (auto& ch : name) {
        if (ch == '/') ch = '-';
      }
      path_ = std::filesystem::temp_directory_path() / ("ridge-store-test-" + std::to_string(::getpid()) + "-" + name);
      std::filesystem::remove(path_);
      auto s = open_store("sqlite:" + path_.string());
      ASSERT_TRUE(s.ok()) << s.error().message;
      store_ = std::move(s).value();
    } else {
      std::string url = pg_url();
      if (url.empty()) GTEST_SKIP() << "no PostgreSQL fixture (run through ctest)";
      auto s = open_store(url);
      ASSERT_TRUE(s.ok()) << s.error().message;
      store_ = std::move(s).value();
      auto users = store_->list_users();  // kept alive: the loop reads into it
      ASSERT_TRUE(users.ok());
      for (const auto& u : *users) ASSERT_TRUE(store_->delete_user(u.id).ok());
    }
  }
  void TearDown() override {
    store_.reset();
    if (!path_.empty()) {
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix);
    }
  }
  int64_t user(const std::string& email) {
    auto id = store_->create_user(email, "hash", 1000);
    EXPECT_TRUE(id.ok()) << id.error().message;
    return id.ok() ? *id : 0;
  }
  std::unique_ptr<Store> store_;
  std::filesystem::path path_;
};

TEST_P(StoreSuite, UsersAreUniqueByEmail) {
  int64_t a = user("a@example.com");
  auto dup = store_->create_user("a@example.com", "other", 1001);
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(dup.error().conflict);
  auto found = store_->find_user_by_email("a@example.com");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->id, a);
  EXPECT_DOUBLE_EQ((*found)->desired_retention, 0.9);
  EXPECT_FALSE(store_->find_user_by_email("nobody@example.com")->has_value());
  ASSERT_TRUE(store_->set_password(a, "new").ok());
  ASSERT_TRUE(store_->set_retention(a, 0.85).ok());
  auto got = store_->get_user(a);
  EXPECT_EQ((*got)->password_hash, "new");
  EXPECT_DOUBLE_EQ((*got)->desired_retention, 0.85);
}

// Migration 4: the daily new-card limit, 20 until the user sets it.
TEST_P(StoreSuite, TheDailyNewCardLimitIsStoredPerUser) {
  int64_t a = user("limit-a@example.com"), b = user("limit-b@example.com");
  EXPECT_EQ((*store_->get_user(a))->new_per_day, 20);
  ASSERT_TRUE(store_->set_new_per_day(a, 5).ok());
  EXPECT_EQ((*store_->get_user(a))->new_per_day, 5);
  EXPECT_EQ((*store_->get_user(b))->new_per_day, 20);
  EXPECT_EQ((*store_->find_user_by_email("limit-a@example.com"))->new_per_day, 5);
}

TEST_P(StoreSuite, SessionsExpireWithTheirUser) {
  int64_t a = user("s@example.com");
  ASSERT_TRUE(store_->create_session("h1", {a, "csrf1", 5000}, 1000).ok());
  auto s = store_->find_session("h1");
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((*s)->user_id, a);
  EXPECT_EQ((*s)->csrf_token, "csrf1");
  EXPECT_EQ((*s)->expires_at, 5000);
  ASSERT_TRUE(store_->delete_session("h1").ok());
  EXPECT_FALSE(store_->find_session("h1")->has_value());
  ASSERT_TRUE(store_->create_session("h2", {a, "c", 5000}, 1000).ok());
  ASSERT_TRUE(store_->delete_user(a).ok());
  EXPECT_FALSE(store_->find_session("h2")->has_value());  // cascaded
}

TEST_P(StoreSuite, ReviewsUpdateTheCardAndKeepTheLog) {
  int64_t a = user("r@example.com");
  Card c{"prefill-vs-decode", 2.3065, 2.1181, 1000 + 2 * 86400, 1000, 1, 0};
  ASSERT_TRUE(store_->record_review(a, c, 3, 1000).ok());
  c.stability = 10.9643;
  c.reps = 2;
  ASSERT_TRUE(store_->record_review(a, c, 3, 2000).ok());
  auto card = store_->get_card(a, "prefill-vs-decode");
  ASSERT_TRUE(card->has_value());
  EXPECT_DOUBLE_EQ((*card)->stability, 10.9643);
  EXPECT_EQ((*card)->reps, 2);
  EXPECT_EQ(store_->reviews(a)->size(), 2u);
  EXPECT_EQ(store_->cards(a)->size(), 1u);
  // Another user sees nothing of it.
  int64_t b = user("b@example.com");
  EXPECT_TRUE(store_->cards(b)->empty());
  EXPECT_FALSE(store_->get_card(b, "prefill-vs-decode")->has_value());
}

// Finding 10: 32 connections posting 100 reviews each for one card: 3,200 acknowledged, the
// card showed 3,175 repetitions. A write made from a stale read is refused, writes nothing,
// and says so (the caller re-reads and retries).
TEST_P(StoreSuite, Finding10_AReviewFromAStaleCardIsRefusedAndWritesNothing) {
  int64_t a = user("lost@example.com");
  Card first{"q", 1, 5, 100, 1000, 1, 0};
  ASSERT_TRUE(store_->record_review(a, first, 3, 1000).ok());
  Card again = first;  // built from the same (empty) read: a first review again
  auto stale = store_->record_review(a, again, 3, 1001);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(stale.error().conflict);
  Card second = first;
  second.reps = 2;
  ASSERT_TRUE(store_->record_review(a, second, 3, 1002).ok());
  auto stale2 = store_->record_review(a, second, 3, 1003);  // reps 2 again, read before the last write
  EXPECT_FALSE(stale2.ok());
  EXPECT_EQ((*store_->get_card(a, "q"))->reps, 2);
  EXPECT_EQ(store_->reviews(a)->size(), 2u);  // the refused writes left no log row
}

// Issue 22: SQLite commits reviews that arrive together in one transaction. Many writers at
// once: every acknowledged review is stored, each card's count is its acknowledged reviews,
// and a stale write among them is refused alone (the others in its batch stay).
TEST_P(StoreSuite, ConcurrentReviewsAreEachKeptOrRefusedAlone) {
  int64_t a = user("many@example.com");
  constexpr int kOwnCards = 12, kEach = 15, kRacers = 6, kRaceWins = 10;
  std::atomic<int> refused_own{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kOwnCards; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 1; r <= kEach; ++r) {
        Card c{"own-" + std::to_string(t), 1, 5, 100 + r, 1000 + r, r, 0};
        if (!store_->record_review(a, c, 3, 1000 + r).ok()) ++refused_own;
      }
    });
  }
  for (int t = 0; t < kRacers; ++t) {
    threads.emplace_back([&] {
      for (int won = 0; won < kRaceWins;) {
        auto current = store_->get_card(a, "shared");
        ASSERT_TRUE(current.ok());
        Card c{"shared", 1, 5, 100, 1000, current->has_value() ? (**current).reps + 1 : 1, 0};
        auto w = store_->record_review(a, c, 3, 2000);
        if (w.ok()) {
          ++won;
        } else {
          ASSERT_TRUE(w.error().conflict) << w.error().message;
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(refused_own.load(), 0);
  for (int t = 0; t < kOwnCards; ++t) EXPECT_EQ((*store_->get_card(a, "own-" + std::to_string(t)))->reps, kEach);
  EXPECT_EQ((*store_->get_card(a, "shared"))->reps, kRacers * kRaceWins);
  EXPECT_EQ(store_->reviews(a)->size(), static_cast<size_t>(kOwnCards * kEach + kRacers * kRaceWins));
  // A refused write in a batch left no log row; the count above holds only acknowledged ones.
  RecordProperty("conflicts", conflicts.load());
}

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

TEST_P(StoreSuite, AccountIdsAreRandomAndFindTheUser) {
  int64_t a = user("acct-a@example.com"), b = user("acct-b@example.com");
  auto ua = store_->get_user(a), ub = store_->get_user(b);
  ASSERT_TRUE(ua.ok() && ua->has_value() && ub.ok() && ub->has_value());
  std::string ida = (*ua)->account_id, idb = (*ub)->account_id;
  EXPECT_EQ(ida.size(), 32u);
  EXPECT_NE(ida, idb);
  EXPECT_NE(ida, std::to_string(a));
  auto found = store_->find_user_by_account_id(ida);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->id, a);
  EXPECT_FALSE(store_->find_user_by_account_id("nope")->has_value());
  EXPECT_EQ((*ua)->email_verified_at, 0);
  ASSERT_TRUE(store_->set_email_verified(a, 77).ok());
  EXPECT_EQ((*store_->get_user(a))->email_verified_at, 77);
}

TEST(AddMonths, ClampsTheDayAndCrossesYears) {
  // 2026-01-31 00:00 UTC + 1 month = 2026-02-28; + 6 months from 2026-08-15 = 2027-02-15.
  EXPECT_EQ(add_months_utc(1769817600, 1), 1772236800);
  EXPECT_EQ(add_months_utc(1786752000, 6), 1802649600);
  EXPECT_EQ(add_months_utc(1786752000, 0), 1786752000);
}

TEST_P(StoreSuite, GrantsExtendFromTheLaterOfNowAndTheEnd) {
  int64_t a = user("g@example.com");
  const int64_t now = 1786752000;  // 2026-08-15
  EXPECT_EQ(*store_->access_until(a), 0);
  EXPECT_EQ(*store_->grant(a, 6, now), add_months_utc(now, 6));
  // A second grant before the end extends from the end, not from now.
  EXPECT_EQ(*store_->grant(a, 6, now + 86400), add_months_utc(add_months_utc(now, 6), 6));
  ASSERT_TRUE(store_->revoke(a).ok());
  EXPECT_EQ(*store_->access_until(a), 0);
  // After an end in the past, from now.
  ASSERT_TRUE(store_->grant(a, 1, now).ok());
  int64_t later = now + 400 * 86400;
  EXPECT_EQ(*store_->grant(a, 1, later), add_months_utc(later, 1));
}

TEST_P(StoreSuite, AnEventGrantsOnce) {
  int64_t a = user("ev@example.com");
  const std::string ev = "evt_" + std::to_string(::getpid()) + "_";
  const int64_t now = 1786752000;
  EXPECT_TRUE(*store_->grant_for_event(ev + "1", a, 6, now));
  EXPECT_FALSE(*store_->grant_for_event(ev + "1", a, 6, now + 10));  // replay: nothing
  EXPECT_EQ(*store_->access_until(a), add_months_utc(now, 6));
  EXPECT_TRUE(*store_->grant_for_event(ev + "2", a, 6, now + 20));
  EXPECT_EQ(*store_->access_until(a), add_months_utc(add_months_utc(now, 6), 6));
  // An event for a user who is gone records nothing and grants nothing.
  EXPECT_FALSE(store_->grant_for_event(ev + "3", 987654, 6, now).ok());
  EXPECT_TRUE(*store_->grant_for_event(ev + "3", a, 6, now));
}

// Issue 28: a refund or dispute takes back the months its payment granted, once per payment,
// in the store every server shares.
TEST_P(StoreSuite, Finding28_ARefundTakesBackItsPaymentsMonthsOnce) {
  int64_t a = user("refund@example.com");
  const std::string ev = "evt_r" + std::to_string(::getpid()) + "_";
  const std::string pi = "pi_r" + std::to_string(::getpid()) + "_";
  const int64_t now = 1786752000;
  ASSERT_TRUE(*store_->grant_for_event(ev + "1", a, 6, now, pi + "1"));
  ASSERT_TRUE(*store_->grant_for_event(ev + "2", a, 6, now, pi + "2"));
  const int64_t twelve = add_months_utc(add_months_utc(now, 6), 6);
  EXPECT_EQ(*store_->access_until(a), twelve);
  auto revoked = store_->revoke_for_payment(ev + "r1", pi + "2", now + 60);
  ASSERT_TRUE(revoked.ok()) << revoked.error().message;
  ASSERT_TRUE(revoked->has_value());
  EXPECT_EQ(**revoked, add_months_utc(twelve, -6));
  EXPECT_EQ(*store_->access_until(a), add_months_utc(twelve, -6));
  // The same event again, and another event about the same payment: nothing more.
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r1", pi + "2", now + 70)->has_value());
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r2", pi + "2", now + 80)->has_value());
  EXPECT_EQ(*store_->access_until(a), add_months_utc(twelve, -6));
  // A payment never granted for, and an empty reference, change nothing.
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r3", pi + "unknown", now)->has_value());
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r4", "", now)->has_value());
}

TEST_P(StoreSuite, MailQueueLeasesRetriesAndCounts) {
  if (GetParam() == "postgresql") {
    auto old = store_->claim_mail(1LL << 40, 0, 100000);  // drain what earlier cases left
    ASSERT_TRUE(old.ok());
    for (const auto& m : *old) ASSERT_TRUE(store_->mail_sent(m.id, 1).ok());
  }
  auto base = *store_->mail_counts();
  auto id = store_->enqueue_mail("to@example.com", "Subject: hi\r\n\r\nbody\r\n", 100);
  ASSERT_TRUE(id.ok());
  auto first = store_->claim_mail(100, 60, 10);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].recipient, "to@example.com");
  EXPECT_EQ((*first)[0].attempts, 0);
  EXPECT_TRUE(store_->claim_mail(100, 60, 10)->empty());  // leased
  ASSERT_TRUE(store_->mail_failed(*id, 130, "connection refused").ok());
  EXPECT_TRUE(store_->claim_mail(129, 60, 10)->empty());  // backing off
  auto again = store_->claim_mail(130, 60, 10);
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].attempts, 1);
  ASSERT_TRUE(store_->mail_sent(*id, 131).ok());
  EXPECT_TRUE(store_->claim_mail(10000, 60, 10)->empty());
  auto counts = *store_->mail_counts();
  EXPECT_EQ(counts.sent - base.sent, 1);
  EXPECT_EQ(counts.waiting - base.waiting, 0);
  EXPECT_EQ(counts.failed_attempts - base.failed_attempts, 1);
}

TEST_P(StoreSuite, SubscriptionsAndTheWeeklyRecord) {
  std::string email = "sub-" + GetParam() + "-" + std::to_string(::getpid()) + "@example.com";
  auto sub = store_->subscribe(email, 10);
  ASSERT_TRUE(sub.ok()) << sub.error().message;
  EXPECT_EQ(sub->status, "pending");
  EXPECT_EQ(store_->subscribe(email, 11)->id, sub->id);  // same row
  EXPECT_TRUE(*store_->confirm_subscription(email, 12));
  EXPECT_EQ(store_->subscribe(email, 13)->status, "confirmed");  // subscribing again changes nothing
  auto confirmed = *store_->confirmed_subscriptions();
  EXPECT_TRUE(std::any_of(confirmed.begin(), confirmed.end(), [&](const Subscription& s) { return s.email == email; }));
  EXPECT_TRUE(*store_->queue_weekly("2026-W49", sub->id, "q1", email, "msg", 20));
  EXPECT_FALSE(*store_->queue_weekly("2026-W49", sub->id, "q2", email, "msg", 21));  // once per week
  EXPECT_TRUE(*store_->queue_weekly("2026-W50", sub->id, "q2", email, "msg", 22));
  EXPECT_EQ(*store_->weekly_slugs_sent(sub->id), (std::vector<std::string>{"q1", "q2"}));
  EXPECT_TRUE(*store_->unsubscribe(email, 30));
  EXPECT_EQ((*store_->find_subscription(email))->status, "unsubscribed");
  EXPECT_FALSE(*store_->confirm_subscription(email, 31));  // an old link cannot resubscribe
  EXPECT_FALSE(*store_->unsubscribe("nobody-" + email, 32));
  EXPECT_EQ(store_->subscribe(email, 33)->status, "pending");
}

// Two stores on one database stand for two `ridge mail weekly` processes: for each
// subscription, exactly one of them queues the week's mail.
TEST_P(StoreSuite, TwoProcessesQueueTheWeekOnceBetweenThem) {
  std::string url = GetParam() == "sqlite" ? "sqlite:" + path_.string() : pg_url();
  auto other = open_store(url);
  ASSERT_TRUE(other.ok()) << other.error().message;
  std::string week = "2030-W" + std::to_string(::getpid() % 50 + 1) + "-" + GetParam();
  std::vector<int64_t> subs;
  for (int i = 0; i < 20; ++i) {
    auto sub = store_->subscribe("race" + std::to_string(i) + "-" + std::to_string(::getpid()) + "@example.com", 1);
    ASSERT_TRUE(sub.ok());
    ASSERT_TRUE(*store_->confirm_subscription(sub->email, 2));
    subs.push_back(sub->id);
  }
  std::atomic<int> queued{0}, errors{0};
  auto run = [&](Store* s) {
    for (int64_t id : subs) {
      auto r = s->queue_weekly(week, id, "q", "x@example.com", "msg", 3);
      if (!r.ok()) ++errors;
      else if (*r) ++queued;
    }
  };
  std::thread a(run, store_.get()), b(run, other->get());
  a.join();
  b.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(queued.load(), 20);
}

// The sign-in limits' buckets: a burst of `capacity`, then one token per refill interval;
// a refused take changes nothing; a clock behind the stored time refills nothing; a full
// bucket is pruned and reads as full.
TEST_P(StoreSuite, TokenBucketsTakeRefillAndPrune) {
  ASSERT_TRUE(store_->prune_buckets(std::numeric_limits<int64_t>::max()).ok());  // PostgreSQL: what earlier runs left
  const std::string key = "pair:10.0.0.1|a@example.com";
  for (int i = 0; i < 5; ++i) {
    auto left = store_->take_token(key, 5, 1.0 / 60, 1000);
    ASSERT_TRUE(left.ok()) << left.error().message;
    ASSERT_TRUE(left->has_value()) << i;
    EXPECT_DOUBLE_EQ(**left, 4 - i);
  }
  auto refused = store_->take_token(key, 5, 1.0 / 60, 1000);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->has_value());
  EXPECT_DOUBLE_EQ(*store_->bucket_tokens(key, 5, 1.0 / 60, 1000), 0);
  EXPECT_DOUBLE_EQ(*store_->bucket_tokens(key, 5, 1.0 / 60, 1030), 0.5);
  EXPECT_FALSE(store_->take_token(key, 5, 1.0 / 60, 1030)->has_value());  // half a token is not one
  EXPECT_FALSE(store_->take_token(key, 5, 1.0 / 60, 900)->has_value());   // a clock behind refills nothing
  auto later = store_->take_token(key, 5, 1.0 / 60, 1060);
  ASSERT_TRUE(later.ok() && later->has_value());
  EXPECT_NEAR(**later, 0, 1e-9);
  EXPECT_DOUBLE_EQ(*store_->bucket_tokens("acct:other@example.com", 100, 1.0 / 60, 1000), 100);  // no row: full
  EXPECT_EQ(*store_->prune_buckets(1060 + 299), 0);  // not surely full yet
  EXPECT_EQ(*store_->prune_buckets(1060 + 300), 1);
  EXPECT_DOUBLE_EQ(*store_->bucket_tokens(key, 5, 1.0 / 60, 1060), 5);
}

// Two stores on one database stand for two servers: 8 threads on each take from one bucket
// of 40 tokens (no refill to speak of) and exactly 40 takes succeed between them.
TEST_P(StoreSuite, TwoProcessesShareABucketAndNeverOvertake) {
  std::string url = GetParam() == "sqlite" ? "sqlite:" + path_.string() : pg_url();
  auto other = open_store(url);
  ASSERT_TRUE(other.ok()) << other.error().message;
  const std::string key = "addr:race-" + std::to_string(::getpid()) + "-" + GetParam();
  std::atomic<int> taken{0}, errors{0};
  auto run = [&](Store* s) {
    for (int i = 0; i < 10; ++i) {
      auto r = s->take_token(key, 40, 1e-9, 5000);
      if (!r.ok()) ++errors;
      else if (r->has_value()) ++taken;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back(run, i % 2 ? store_.get() : other->get());
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(taken.load(), 40);
  EXPECT_LT(*store_->bucket_tokens(key, 40, 1e-9, 5000), 1);
}

TEST_P(StoreSuite, AccountTokensAreSingleUseAndExpire) {
  int64_t a = user("tok@example.com");
  ASSERT_TRUE(store_->create_account_token("h-reset", a, "reset", 1000 + 1800, 1000).ok());
  ASSERT_TRUE(store_->create_account_token("h-old", a, "reset", 1000 + 1800, 1000).ok());
  EXPECT_FALSE(store_->use_account_token("h-reset", "verify", 1100)->has_value());  // wrong purpose
  auto used = store_->use_account_token("h-reset", "reset", 1100);
  ASSERT_TRUE(used.ok() && used->has_value());
  EXPECT_EQ(**used, a);
  EXPECT_FALSE(store_->use_account_token("h-reset", "reset", 1101)->has_value());  // used
  EXPECT_FALSE(store_->use_account_token("h-old", "reset", 2800)->has_value());    // expired
  EXPECT_FALSE(store_->use_account_token("h-none", "reset", 1100)->has_value());
}

TEST_P(StoreSuite, ReopeningKeepsDataAndDoesNotReapplyMigrations) {
  int64_t a = user("p@example.com");
  ASSERT_TRUE(store_->record_review(a, {"x", 1, 5, 10, 1, 1, 0}, 1, 1).ok());
  std::string url = GetParam() == "sqlite" ? "sqlite:" + path_.string() : pg_url();
  store_.reset();
  auto again = open_store(url);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ((*again)->reviews(a)->size(), 1u);
  EXPECT_TRUE((*again)->ping());
}

// A rolling upgrade from the previous release (bf78964: migrations 1 and 2): its schema, with
// data in it, stays open as the old server's store while a new server opens the database
// (migration 3, additive: a table). The old server's calls (the previous release's queries:
// this code has the same ones, plus the bucket methods) keep working on the migrated schema,
// the new one reads what the old one wrote, and only the new one uses the new table.
TEST_P(StoreSuite, APreviousReleasesSchemaMigratesWhileItsServerRuns) {
  std::unique_ptr<Store> old_store;
  std::string url;
  if (GetParam() == "sqlite") {
    std::string file = path_.string() + "-previous";
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file + suffix);
    url = "sqlite:" + file;
    auto opened = open_sqlite(file, 2);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    old_store = std::move(opened).value();
  } else {
    // A database of its own, made fresh: the suite's has the current schema already.
    std::string base = pg_url();
    PGconn* admin = PQconnectdb(base.c_str());
    ASSERT_EQ(PQstatus(admin), CONNECTION_OK) << PQerrorMessage(admin);
    PQclear(PQexec(admin, "DROP DATABASE IF EXISTS ridge_previous"));
    PGresult* made = PQexec(admin, "CREATE DATABASE ridge_previous");
    ASSERT_EQ(PQresultStatus(made), PGRES_COMMAND_OK) << PQerrorMessage(admin);
    PQclear(made);
    PQfinish(admin);
    url = base.substr(0, base.rfind('/')) + "/ridge_previous";
    auto opened = open_postgres(url, 2, 2);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    old_store = std::move(opened).value();
  }
  // The previous release's schema has no buckets.
  EXPECT_FALSE(old_store->take_token("addr:x", 5, 1, 1000).ok());
  auto a = old_store->create_user("old@example.com", "hash", 1000);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(old_store->create_session("old-token", {*a, "csrf", 99999}, 1000).ok());
  ASSERT_TRUE(old_store->record_review(*a, {"x", 1, 5, 10, 1, 1, 0}, 3, 1000).ok());
  ASSERT_TRUE(old_store->enqueue_mail("old@example.com", "message", 1000).ok());

  auto opened = open_store(url);  // the new release starts: migration 3 runs
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  Store& new_store = **opened;
  // The old server, still up, reads and writes as before.
  auto session = old_store->find_session("old-token");
  ASSERT_TRUE(session.ok() && session->has_value()) << (session.ok() ? "" : session.error().message);
  EXPECT_EQ((*session)->user_id, *a);
  ASSERT_TRUE(old_store->record_review(*a, {"x", 2, 5, 20, 10, 2, 0}, 3, 1010).ok());
  auto b = old_store->create_user("old-two@example.com", "hash", 1010);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(old_store->claim_mail(2000, 60, 10)->size(), 1u);
  // The new server sees everything the old one wrote, and has its buckets.
  EXPECT_EQ(new_store.reviews(*a)->size(), 2u);
  EXPECT_EQ((*new_store.get_card(*a, "x"))->reps, 2);
  EXPECT_TRUE(new_store.find_user_by_email("old-two@example.com")->has_value());
  EXPECT_TRUE(new_store.find_session("old-token")->has_value());
  auto token = new_store.take_token("addr:x", 5, 1, 1000);
  ASSERT_TRUE(token.ok()) << token.error().message;
  EXPECT_TRUE(token->has_value());
  // The old server's writes after the upgrade land too, and the new one's reach it.
  ASSERT_TRUE(new_store.record_review(*a, {"x", 3, 5, 30, 20, 3, 0}, 3, 1020).ok());
  EXPECT_EQ(old_store->reviews(*a)->size(), 3u);
  old_store.reset();
  if (GetParam() == "sqlite") {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(url.substr(7) + suffix);
  }
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
  ASSERT_TRUE(id.ok()) << id.error().message;
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

INSTANTIATE_TEST_SUITE_P(Backends, StoreSuite, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& param_info) { return param_info.param; });

TEST(OpenStore, BadUrlsAreNamed) {
  EXPECT_NE(open_store("mysql://x").error().message.find("accepted: sqlite:PATH, postgresql://"), std::string::npos);
  EXPECT_NE(open_store("sqlite:").error().message.find("needs a path"), std::string::npos);
  EXPECT_NE(open_store("sqlite:/nonexistent-dir/x.db").error().message.find("cannot open"), std::string::npos);
  EXPECT_NE(open_store("postgresql://127.0.0.1:1/none").error().message.find("cannot connect"), std::string::npos);
}

// A restarted PostgreSQL (or an operator's pg_terminate_backend) ends every pooled connection.
// The pool notices before it uses one (the server's farewell or EOF is waiting on the socket)
// and reconnects, so no call fails after the database is back. Before: the first call on each
// pooled connection failed ("terminating connection due to administrator command").
TEST(PostgresPool, NoCallFailsAfterTheServerEndedEveryConnection) {
  std::string url = pg_url();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL fixture (run through ctest)";
  const std::string app = "ridge_pool_test_" + std::to_string(::getpid());
  auto opened = open_postgres(url + "?application_name=" + app, 4);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto store = std::move(opened).value();
  auto use_all = [&] {  // four threads at once, so every pooled connection is taken
    std::atomic<int> failures{0};
    std::string first;
    std::mutex m;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 10; ++i) {
          auto r = store->find_user_by_email("nobody@example.com");
          if (!r.ok()) {
            std::lock_guard<std::mutex> lock(m);
            if (failures++ == 0) first = r.error().message;
          }
        }
      });
    }
    for (auto& t : threads) t.join();
    return std::make_pair(failures.load(), first);
  };
  ASSERT_EQ(use_all().first, 0);
  PGconn* admin = PQconnectdb(url.c_str());
  ASSERT_EQ(PQstatus(admin), CONNECTION_OK) << PQerrorMessage(admin);
  std::string sql = "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '" +
                    app + "') AS t";
  PGresult* killed = PQexec(admin, sql.c_str());
  ASSERT_EQ(PQresultStatus(killed), PGRES_TUPLES_OK) << PQerrorMessage(admin);
  EXPECT_EQ(std::string(PQgetvalue(killed, 0, 0)), "4");  // the whole pool
  PQclear(killed);
  PQfinish(admin);
  auto [failures, first] = use_all();
  EXPECT_EQ(failures, 0) << "first failure: " << first;
  EXPECT_TRUE(store->ping());
}

}  // namespace
}  // namespace ridge::store
