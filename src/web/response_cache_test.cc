// The bounded cache of rendered answers (the calculator API and search use it).
#include "web/response_cache.h"

#include <gtest/gtest.h>

namespace ridge::web {
namespace {

TEST(ResponseCache, EntriesAreBoundedAndTheLeastRecentlyUsedGoesFirst) {
  ResponseCache cache(3, 1 << 20);
  for (const char* k : {"a", "b", "c"}) cache.insert(k, std::string("body of ") + k);
  ASSERT_NE(cache.find("a"), nullptr);  // a is now the most recent; b the least
  cache.insert("d", "body of d");
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.find("b"), nullptr);
  for (const char* k : {"a", "c", "d"}) {
    auto hit = cache.find(k);
    ASSERT_NE(hit, nullptr) << k;
    EXPECT_EQ(*hit, std::string("body of ") + k);
  }
  // Replacing a key keeps one entry and the new body.
  cache.insert("c", "new c");
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(*cache.find("c"), "new c");
}

TEST(ResponseCache, BytesAreBoundedKeysIncluded) {
  ResponseCache cache(1000, 100);
  for (int i = 0; i < 50; ++i) cache.insert("key" + std::to_string(i), std::string(20, 'x'));
  EXPECT_LE(cache.bytes(), 100u);
  EXPECT_EQ(cache.size(), 4u);  // 4 × (5 + 20) = 100 bytes: the newest four
  EXPECT_NE(cache.find("key49"), nullptr);
  EXPECT_EQ(cache.find("key45"), nullptr);
  // A body over the bound alone is served but not kept, and evicts nothing.
  auto big = cache.insert("big", std::string(200, 'y'));
  EXPECT_EQ(big->size(), 200u);
  EXPECT_EQ(cache.find("big"), nullptr);
  EXPECT_EQ(cache.size(), 4u);
}

TEST(ResponseCache, ABodyBeingServedOutlivesItsEviction) {
  ResponseCache cache(1, 1 << 20);
  auto held = cache.insert("first", "first body");
  cache.insert("second", "second body");
  EXPECT_EQ(cache.find("first"), nullptr);
  EXPECT_EQ(*held, "first body");
}

TEST(ResponseCache, KeysAreUnambiguous) {
  EXPECT_NE(cache_key("r", {{"a", "b=c"}}), cache_key("r", {{"a=b", "c"}}));
  EXPECT_NE(cache_key("r", {{"a", "bc"}, {"d", ""}}), cache_key("r", {{"a", "b"}, {"cd", ""}}));
  EXPECT_NE(cache_key("fit", {{"gpu", "h100"}}), cache_key("decode", {{"gpu", "h100"}}));
  std::string with_nul("a\0b", 3);
  EXPECT_NE(cache_key("r", {{with_nul, ""}}), cache_key("r", {{"a", "b"}}));
  EXPECT_EQ(cache_key("r", {{"a", "1"}}), cache_key("r", {{"a", "1"}}));
}

}  // namespace
}  // namespace ridge::web
