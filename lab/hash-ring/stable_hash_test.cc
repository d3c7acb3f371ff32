#include "stable_hash.h"

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

TEST(StableHash, Fnv1a64MatchesThePublishedVectors) {
  // Test vectors from the FNV reference (isthe.com/chongo/tech/comp/fnv).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(StableHash, Mix64IsMurmur3Fmix64) {
  EXPECT_EQ(mix64(0), 0u);  // fmix64 maps zero to zero
  EXPECT_EQ(mix64(1), 0xb456bcfc34c2cb2cULL);
}

TEST(StableHash, PinnedValuesNeverChange) {
  // Placement on every ring already deployed depends on these. Changing the hash moves
  // nearly every key: if this test fails, the change is a migration, not a refactor.
  EXPECT_EQ(stable_hash64(""), 0xefd01f60ba992926ULL);
  EXPECT_EQ(stable_hash64("replica-0#0"), 0x7a20d6fe96564071ULL);
  EXPECT_EQ(stable_hash64("key-1"), 0xa002e14b20bb64ecULL);
}

TEST(StableHash, KeysDifferingInTheLastByteLandFarApart) {
  // Raw FNV-1a of "key-1" and "key-2" differs in 7 bits and not at all in the top 16,
  // so on a ring (ordered by the high bits) the two would sit side by side.
  EXPECT_EQ((fnv1a64("key-1") ^ fnv1a64("key-2")) >> 48, 0u);
  const auto a = stable_hash64("key-1"), b = stable_hash64("key-2");
  EXPECT_NE((a ^ b) >> 48, 0u);
  EXPECT_GE(__builtin_popcountll(a ^ b), 16);
}

}  // namespace
}  // namespace ridge::lab
