// What the service tests share: a real SQLite store in a temporary file, a fake clock, a
// seeded random source and a small bank built in code (two topics, one track, free and paid
// questions), so each test reads as the behaviour it checks. Tests only.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "account/clock.h"
#include "bank/bank.h"
#include "store/store.h"
#include "web/services/random_source.h"

namespace ridge::web::services::testing {

// 2026-12-02 10:00:00 UTC: mid-day, so "today" has room on both sides.
constexpr int64_t kStart = 1796205600;

inline bank::Question question(std::string slug, std::string topic, bool free, bool must_know = false) {
  bank::Question q;
  q.title = "Title of " + slug;
  q.slug = std::move(slug);
  q.topic = std::move(topic);
  q.free = free;
  q.must_know = must_know;
  q.set_tldr("tldr");
  q.summary = "summary";
  return q;
}

// A two-step Work it chain (issue 34; practice/workit_test.cc's): the sequences of Llama 3.1
// 70B that fit on 8 H100s at a 32k context, then the time to move one sequence's KV at 50 GB/s.
// The TL;DR quotes both results, so both are asked, in that order.
inline bank::Question work_chain_question(std::string topic = "serving") {
  bank::Question q = question("work-chain", std::move(topic), /*free=*/true);
  q.body_markdown =
      "Prose.\n\n```calc id=fit\nfit model=llama-3.1-70b gpu=h100-sxm gpus=8 context=32768\n```\n\n"
      "```calc id=move\ntransfer bytes={{fit.kv_bytes_per_sequence}} bandwidth=50GB/s\n```\n";
  q.tldr_markdown = "{{fit.max_sequences:int}} sequences fit; moving one takes {{move.seconds:s:1}}.";
  return q;
}

// A value as an answer that reads back exactly (17 significant digits).
inline std::string exact(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

inline bank::Bank small_bank() {
  bank::Bank b;
  b.topics = {{"napkin-math", "Napkin math", "", 0}, {"serving", "Serving", "", 0}};
  b.tracks = {{"serving", "Serving track", "", {{"napkin-math", 1}, {"serving", 2}}}};
  b.questions = {question("free-a", "napkin-math", true), question("free-b", "serving", true, true),
                 question("free-c", "serving", true), question("paid-a", "serving", false, true)};
  b.build_indexes();
  return b;
}

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ridge-services-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db");
    remove_files();
    auto opened = store::open_store("sqlite:" + path_.string());
    ASSERT_TRUE(opened.ok()) << opened.error().detail;
    store_ = std::move(opened).value();
  }
  void TearDown() override {
    store_.reset();
    remove_files();
  }
  int64_t new_user(const std::string& email = "a@example.com") {
    auto id = store_->create_user(email, "unused-hash", clock_.now());
    EXPECT_TRUE(id.ok()) << id.error().detail;
    return id.ok() ? *id : 0;
  }

  bank::Bank bank_ = small_bank();
  account::FakeClock clock_{kStart};
  SeededRandom random_{42};
  std::unique_ptr<store::Store> store_;

 private:
  void remove_files() {
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + s);
  }
  std::filesystem::path path_;
};

}  // namespace ridge::web::services::testing
