// The fixture of the store suite, shared by store_test.cc (which instantiates it once for both
// backends) and the store_*_test.cc files by area: every TEST_P runs against SQLite (a file
// of its own per test) and PostgreSQL (the ctest fixture's database, emptied of users first).
// The PostgreSQL cases need the ctest fixture (tests/pg_fixture.sh), whose URL arrives in
// RIDGE_TEST_PG_URL_FILE; without it they skip. Not in an anonymous namespace: the TEST_Ps of
// several files must name one class.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "store/store.h"

namespace ridge::store {

inline std::string pg_url() {
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
      ASSERT_TRUE(s.ok()) << s.error().detail;
      store_ = std::move(s).value();
    } else {
      std::string url = pg_url();
      if (url.empty()) GTEST_SKIP() << "no PostgreSQL fixture (run through ctest)";
      auto s = open_store(url);
      ASSERT_TRUE(s.ok()) << s.error().detail;
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
    EXPECT_TRUE(id.ok()) << id.error().detail;
    return id.ok() ? *id : 0;
  }
  std::unique_ptr<Store> store_;
  std::filesystem::path path_;
};

}  // namespace ridge::store
