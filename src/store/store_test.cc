// One suite, run against SQLite and PostgreSQL. The PostgreSQL cases need the ctest fixture
// (tests/pg_fixture.sh), whose URL arrives in RIDGE_TEST_PG_URL_FILE; without it they skip.
#include "store/store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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
      store_ = std::move(const_cast<std::unique_ptr<Store>&>(s.value()));
    } else {
      std::string url = pg_url();
      if (url.empty()) GTEST_SKIP() << "no PostgreSQL fixture (run through ctest)";
      auto s = open_store(url);
      ASSERT_TRUE(s.ok()) << s.error().message;
      store_ = std::move(const_cast<std::unique_ptr<Store>&>(s.value()));
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

INSTANTIATE_TEST_SUITE_P(Backends, StoreSuite, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& param_info) { return param_info.param; });

TEST(OpenStore, BadUrlsAreNamed) {
  EXPECT_NE(open_store("mysql://x").error().message.find("accepted: sqlite:PATH, postgresql://"), std::string::npos);
  EXPECT_NE(open_store("sqlite:").error().message.find("needs a path"), std::string::npos);
  EXPECT_NE(open_store("sqlite:/nonexistent-dir/x.db").error().message.find("cannot open"), std::string::npos);
  EXPECT_NE(open_store("postgresql://127.0.0.1:1/none").error().message.find("cannot connect"), std::string::npos);
}

}  // namespace
}  // namespace ridge::store
