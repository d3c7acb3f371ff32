// The Db drivers, run against SQLite and PostgreSQL (the ctest fixture; without it the
// PostgreSQL cases skip): typed cells, transactions that commit or roll back with the error
// as their answer, the unique-violation flag, and the placeholder rewrite.
#include "store/db.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "store/migrations.h"
#include "store/postgres_db.h"
#include "store/sqlite_db.h"

namespace ridge::store {
namespace {

class DbSuite : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      path_ = std::filesystem::temp_directory_path() / ("ridge-db-test-" + std::to_string(::getpid()));
      std::filesystem::remove(path_);
      auto db = open_sqlite_db(path_.string());
      ASSERT_TRUE(db.ok()) << db.error().detail;
      db_ = std::move(db).value();
    } else {
      const char* file = std::getenv("RIDGE_TEST_PG_URL_FILE");
      std::string url;
      if (file) {
        std::ifstream in(file);
        std::getline(in, url);
      }
      if (url.empty()) GTEST_SKIP() << "no PostgreSQL fixture (run through ctest)";
      auto db = open_postgres_db(url, 1);  // one connection: the temporary table below is on it
      ASSERT_TRUE(db.ok()) << db.error().detail;
      db_ = std::move(db).value();
    }
    ASSERT_TRUE(db_->query("CREATE TEMP TABLE items (k TEXT PRIMARY KEY, n INTEGER NOT NULL)").ok());
  }
  void TearDown() override {
    db_.reset();
    if (!path_.empty()) {
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix);
    }
  }
  int64_t count() {
    auto r = db_->query("SELECT COUNT(*) FROM items");
    EXPECT_TRUE(r.ok());
    return r.ok() && !r->rows.empty() ? r->rows[0].i64(0) : -1;
  }
  std::unique_ptr<Db> db_;
  std::filesystem::path path_;
};

TEST_P(DbSuite, CellsAreTypedAndParametersRoundTrip) {
  auto r = db_->query("SELECT 1, 2.5, 'x', NULL, ?, ?, ?, ?", {int64_t{1} << 40, 0.125, "it's", true});
  ASSERT_TRUE(r.ok()) << r.error().detail;
  ASSERT_EQ(r->rows.size(), 1u);
  const Row& row = r->rows[0];
  EXPECT_EQ(row.i64(0), 1);
  EXPECT_DOUBLE_EQ(row.f64(1), 2.5);
  EXPECT_EQ(row.text(2), "x");
  EXPECT_TRUE(row.null(3));
  EXPECT_FALSE(row.null(0));
  EXPECT_EQ(row.i64(4), int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(row.f64(5), 0.125);
  EXPECT_EQ(row.text(6), "it's");
  EXPECT_EQ(row.i64(7), 1);  // a boolean reads as 1
  EXPECT_EQ(row.i64(99), 0);  // a column that is not there reads as 0, never throws
}

TEST_P(DbSuite, ATransactionCommitsOrRollsBackWithItsError) {
  auto failed = db_->transaction([](Conn& c) -> Result<Done> {
    auto in = c.query("INSERT INTO items (k, n) VALUES (?, ?)", {"a", 1});
    if (!in.ok()) return in.error();
    return Failure::unavailable("stop here");
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().detail, "stop here");
  EXPECT_EQ(count(), 0);  // rolled back
  auto n = db_->in_transaction([](Conn& c) -> Result<int64_t> {
    auto in = c.query("INSERT INTO items (k, n) VALUES (?, ?), (?, ?)", {"a", 1, "b", 2});
    if (!in.ok()) return in.error();
    return in->changes;
  });
  ASSERT_TRUE(n.ok()) << n.error().detail;
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(count(), 2);
  auto again = db_->query("INSERT INTO items (k, n) VALUES (?, ?)", {"a", 3});
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.error().conflict());  // a unique key
  auto bad = db_->query("INSERT INTO items (k) VALUES (?)", {"c"});
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(bad.error().conflict());  // NOT NULL is not a duplicate
  EXPECT_FALSE(db_->query("SELECT nonsense FROM nowhere").ok());
  EXPECT_TRUE(db_->ping());
}

TEST_P(DbSuite, NumberedParametersMayRepeat) {
  auto r = db_->query("SELECT ?2 - ?1, ?1 + ?1, '?1'", {10, 30});
  ASSERT_TRUE(r.ok()) << r.error().detail;
  EXPECT_EQ(r->rows[0].i64(0), 20);
  EXPECT_EQ(r->rows[0].i64(1), 20);
  EXPECT_EQ(r->rows[0].text(2), "?1");  // inside a literal: not a parameter
}

// PostgreSQL sends numbers as text: one that fits no C++ type is an error naming the
// column and the value, not an exception (std::stoll threw here).
TEST_P(DbSuite, ANumberThatFitsNoTypeIsAnErrorValue) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "SQLite hands over typed values";
  auto r = db_->query("SELECT 1e400::numeric AS huge");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().detail.find("column huge: '1000"), std::string::npos) << r.error().detail;
  EXPECT_NE(r.error().detail.find("is not a number"), std::string::npos) << r.error().detail;
  auto wide = db_->query("SELECT 12345678901234567890::numeric");  // past int64: read as a real
  ASSERT_TRUE(wide.ok()) << wide.error().detail;
  EXPECT_DOUBLE_EQ(wide->rows[0].f64(0), 12345678901234567890.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, DbSuite, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& param_info) { return param_info.param; });

TEST(PostgresPlaceholders, NumberedOutsideLiteralsAndNames) {
  EXPECT_EQ(numbered_placeholders("SELECT ?, '?', \"a?\", ?, 'it''s ?', ?"), "SELECT $1, '?', \"a?\", $2, 'it''s ?', $3");
  EXPECT_EQ(numbered_placeholders("VALUES (?1, ?2 - 1, ?12)"), "VALUES ($1, $2 - 1, $12)");
  EXPECT_EQ(numbered_placeholders("SELECT 1"), "SELECT 1");
}

// Every placeholder of the one schema list has a spelling in both dialects.
TEST(Migrations, RenderCompletelyForBothDialects) {
  for (const Dialect* d : {&sqlite_dialect(), &postgres_dialect()}) {
    for (const Migration& m : migrations()) {
      std::string sql = render(m, d->schema);
      EXPECT_EQ(sql.find("{"), std::string::npos) << "migration " << m.version << ": " << sql;
    }
  }
  EXPECT_NE(render(migrations()[0], postgres_dialect().schema).find("correct BOOLEAN NOT NULL"), std::string::npos);
  EXPECT_NE(render(migrations()[0], sqlite_dialect().schema).find("id INTEGER PRIMARY KEY,"), std::string::npos);
}

}  // namespace
}  // namespace ridge::store
