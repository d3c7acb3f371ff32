// One suite, run against SQLite and PostgreSQL (the fixture: store_test_fixture.h), in files
// by area: store_accounts_test.cc, store_reviews_test.cc, store_practice_test.cc,
// store_billing_mail_test.cc. This one instantiates the suite for both backends and holds
// opening a store, migrations, and the PostgreSQL pool.
#include "store/store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "store/postgres_store.h"
#include "store/sqlite_store.h"
#include "store/store_test_fixture.h"

namespace ridge::store {
namespace {

TEST_P(StoreSuite, ReopeningKeepsDataAndDoesNotReapplyMigrations) {
  int64_t a = user("p@example.com");
  ASSERT_TRUE(store_->record_review(a, {"x", 1, 5, 10, 1, 1, 0}, 1, 1).ok());
  std::string url = GetParam() == "sqlite" ? "sqlite:" + path_.string() : pg_url();
  store_.reset();
  auto again = open_store(url);
  ASSERT_TRUE(again.ok()) << again.error().detail;
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
    ASSERT_TRUE(opened.ok()) << opened.error().detail;
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
    ASSERT_TRUE(opened.ok()) << opened.error().detail;
    old_store = std::move(opened).value();
  }
  // The previous release's schema has no buckets.
  EXPECT_FALSE(old_store->take_token("addr:x", 5, 1, 1000).ok());
  auto a = old_store->create_user("old@example.com", "hash", 1000);
  ASSERT_TRUE(a.ok()) << a.error().detail;
  ASSERT_TRUE(old_store->create_session("old-token", {*a, "csrf", 99999}, 1000).ok());
  ASSERT_TRUE(old_store->record_review(*a, {"x", 1, 5, 10, 1, 1, 0}, 3, 1000).ok());
  ASSERT_TRUE(old_store->enqueue_mail("old@example.com", "message", 1000).ok());

  auto opened = open_store(url);  // the new release starts: migration 3 runs
  ASSERT_TRUE(opened.ok()) << opened.error().detail;
  Store& new_store = **opened;
  // The old server, still up, reads and writes as before.
  auto session = old_store->find_session("old-token");
  ASSERT_TRUE(session.ok() && session->has_value()) << (session.ok() ? "" : session.error().detail);
  EXPECT_EQ((*session)->user_id, *a);
  ASSERT_TRUE(old_store->record_review(*a, {"x", 2, 5, 20, 10, 2, 0}, 3, 1010).ok());
  auto b = old_store->create_user("old-two@example.com", "hash", 1010);
  ASSERT_TRUE(b.ok()) << b.error().detail;
  EXPECT_EQ(old_store->claim_mail(2000, 60, 10)->size(), 1u);
  // The new server sees everything the old one wrote, and has its buckets.
  EXPECT_EQ(new_store.reviews(*a)->size(), 2u);
  EXPECT_EQ((*new_store.get_card(*a, "x"))->reps, 2);
  EXPECT_TRUE(new_store.find_user_by_email("old-two@example.com")->has_value());
  EXPECT_TRUE(new_store.find_session("old-token")->has_value());
  auto token = new_store.take_token("addr:x", 5, 1, 1000);
  ASSERT_TRUE(token.ok()) << token.error().detail;
  EXPECT_TRUE(token->has_value());
  // The old server's writes after the upgrade land too, and the new one's reach it.
  ASSERT_TRUE(new_store.record_review(*a, {"x", 3, 5, 30, 20, 3, 0}, 3, 1020).ok());
  EXPECT_EQ(old_store->reviews(*a)->size(), 3u);
  old_store.reset();
  if (GetParam() == "sqlite") {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(url.substr(7) + suffix);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreSuite, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& param_info) { return param_info.param; });

TEST(OpenStore, BadUrlsAreNamed) {
  EXPECT_NE(open_store("mysql://x").error().detail.find("accepted: sqlite:PATH, postgresql://"), std::string::npos);
  EXPECT_NE(open_store("sqlite:").error().detail.find("needs a path"), std::string::npos);
  EXPECT_NE(open_store("sqlite:/nonexistent-dir/x.db").error().detail.find("cannot open"), std::string::npos);
  EXPECT_NE(open_store("postgresql://127.0.0.1:1/none").error().detail.find("cannot connect"), std::string::npos);
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
  ASSERT_TRUE(opened.ok()) << opened.error().detail;
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
            if (failures++ == 0) first = r.error().detail;
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
