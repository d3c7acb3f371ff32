// The store suite (store_test_fixture.h), accounts: users, sessions, account ids and tokens,
// and the sign-in limits' token buckets.
#include "store/store_test_fixture.h"

#include <atomic>
#include <limits>
#include <thread>
#include <vector>

namespace ridge::store {
namespace {

TEST_P(StoreSuite, UsersAreUniqueByEmail) {
  int64_t a = user("a@example.com");
  auto dup = store_->create_user("a@example.com", "other", 1001);
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(dup.error().conflict());
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

// The sign-in limits' buckets: a burst of `capacity`, then one token per refill interval;
// a refused take changes nothing; a clock behind the stored time refills nothing; a full
// bucket is pruned and reads as full.
TEST_P(StoreSuite, TokenBucketsTakeRefillAndPrune) {
  ASSERT_TRUE(store_->prune_buckets(std::numeric_limits<int64_t>::max()).ok());  // PostgreSQL: what earlier runs left
  const std::string key = "pair:10.0.0.1|a@example.com";
  for (int i = 0; i < 5; ++i) {
    auto left = store_->take_token(key, 5, 1.0 / 60, 1000);
    ASSERT_TRUE(left.ok()) << left.error().detail;
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
  ASSERT_TRUE(other.ok()) << other.error().detail;
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

}  // namespace
}  // namespace ridge::store
