#include "versioned_kv.h"

#include <atomic>
#include <future>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/bounded_wait.h"

namespace ridge::lab {
namespace {

TEST(VersionedKv, WritesGetConsecutiveVersionsFromOne) {
  VersionedKv kv;
  EXPECT_EQ(kv.current_version(), 0u);
  EXPECT_EQ(kv.put("a", "1"), 1u);
  EXPECT_EQ(kv.put("b", "1"), 2u);
  EXPECT_EQ(kv.erase("zzz"), 3u) << "an erase of an absent key still takes a version";
  EXPECT_EQ(kv.current_version(), 3u);
}

TEST(VersionedKv, ReadsAtAVersionSeeThePast) {
  VersionedKv kv;
  const auto v1 = kv.put("model", "llama-8b");
  const auto v2 = kv.put("model", "llama-70b");
  kv.put("other", "x");
  const auto v4 = kv.erase("model");

  EXPECT_EQ(kv.get_at("model", 0).status, ReadStatus::kNotFound) << "version 0 is the empty store";
  auto r = kv.get_at("model", v1);
  EXPECT_EQ(r.status, ReadStatus::kFound);
  EXPECT_EQ(r.value, "llama-8b");
  EXPECT_EQ(r.version, v1);
  r = kv.get_at("model", v2 + 1);  // a write to another key in between changes nothing
  EXPECT_EQ(r.value, "llama-70b");
  EXPECT_EQ(r.version, v2);
  EXPECT_EQ(kv.get_at("model", v4).status, ReadStatus::kNotFound) << "the tombstone hides it";
  EXPECT_EQ(kv.get("model").status, ReadStatus::kNotFound);
  EXPECT_EQ(kv.get("other").value, "x");
}

TEST(VersionedKv, AFutureVersionIsAnErrorNotTheLatest) {
  // Answering "latest" for version 10 when the store is at 1 would change the answer
  // of that same read once writes 2..10 arrive: the read would not be repeatable.
  VersionedKv kv;
  kv.put("k", "a");
  EXPECT_EQ(kv.get_at("k", 10).status, ReadStatus::kFutureVersion);
  EXPECT_EQ(kv.scan_at(10).status, ReadStatus::kFutureVersion);
}

TEST(VersionedKv, ScanAtIsAPointInTimeSnapshot) {
  VersionedKv kv;
  kv.put("b", "1");
  kv.put("a", "1");
  const auto v = kv.current_version();
  kv.put("a", "2");
  kv.erase("b");
  kv.put("c", "1");
  const auto snap = kv.scan_at(v);
  ASSERT_EQ(snap.status, ReadStatus::kFound);
  EXPECT_EQ(snap.entries, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "1"}}));
  EXPECT_EQ(kv.scan_at(kv.current_version()).entries,
            (std::vector<std::pair<std::string, std::string>>{{"a", "2"}, {"c", "1"}}));
}

TEST(VersionedKv, CompactionKeepsEveryReadAtOrAboveOldestAndRefusesOlderOnes) {
  // Random writes; record every read at every version; compact at the midpoint; reads at
  // versions >= the midpoint must be unchanged, older ones answer kCompacted.
  VersionedKv kv;
  std::mt19937_64 rng(20261130);
  const std::vector<std::string> keys{"a", "b", "c", "d", "e"};
  for (int i = 0; i < 400; ++i) {
    const auto& k = keys[rng() % keys.size()];
    if (rng() % 4 == 0) {
      kv.erase(k);
    } else {
      kv.put(k, std::string("v").append(std::to_string(i)));
    }
  }
  const std::uint64_t n = kv.current_version();
  std::vector<std::vector<ReadResult>> before(n + 1);
  for (std::uint64_t v = 0; v <= n; ++v) {
    for (const auto& k : keys) before[v].push_back(kv.get_at(k, v));
  }
  const auto entries_before = kv.history_size();
  const std::size_t dropped = kv.compact(200);
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(kv.history_size(), entries_before - dropped);
  EXPECT_EQ(kv.oldest_readable(), 200u);
  for (std::uint64_t v = 0; v <= n; ++v) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto now = kv.get_at(keys[i], v);
      if (v < 200) {
        ASSERT_EQ(now.status, ReadStatus::kCompacted) << keys[i] << "@" << v;
      } else {
        ASSERT_EQ(now.status, before[v][i].status) << keys[i] << "@" << v;
        ASSERT_EQ(now.value, before[v][i].value) << keys[i] << "@" << v;
        ASSERT_EQ(now.version, before[v][i].version) << keys[i] << "@" << v;
      }
    }
  }
}

TEST(VersionedKv, CompactionDropsKeysThatAreOnlyATombstone) {
  VersionedKv kv;
  kv.put("gone", "x");
  kv.erase("gone");
  kv.put("kept", "y");
  EXPECT_EQ(kv.compact(kv.current_version()), 2u) << "the put and its tombstone";
  EXPECT_EQ(kv.history_size(), 1u);
  EXPECT_EQ(kv.get("gone").status, ReadStatus::kNotFound);
  EXPECT_EQ(kv.compact(1), 0u) << "oldest never moves back";
}

TEST(VersionedKv, ReadsAtAFixedVersionAreRepeatableUnderConcurrentWrites) {
  VersionedKv kv;
  for (int i = 0; i < 10; ++i) kv.put(std::string("k").append(std::to_string(i)), "initial");
  const std::uint64_t pinned = kv.current_version();
  std::atomic<bool> stop{false};
  auto writer = std::async(std::launch::async, [&] {
    for (int i = 0; !stop.load(); ++i) kv.put(std::string("k").append(std::to_string(i % 10)), std::string("w").append(std::to_string(i)));
  });
  // At least 2000 rounds, and on until the writer has written 100 times: on a busy machine the
  // reader could finish before the writer ran once, and the test proved nothing (it failed so).
  auto reader = std::async(std::launch::async, [&] {
    for (int round = 0; round < 2000 || kv.current_version() < pinned + 100; ++round) {
      for (int i = 0; i < 10; ++i) {
        const auto r = kv.get_at(std::string("k").append(std::to_string(i)), pinned);
        if (r.status != ReadStatus::kFound || r.value != "initial") return false;
      }
    }
    return true;
  });
  expect_ready(reader, "the reader");
  stop = true;
  expect_ready(writer, "the writer");
  EXPECT_TRUE(reader.get());
  EXPECT_GT(kv.current_version(), pinned);
}

}  // namespace
}  // namespace ridge::lab
