#include "account/security.h"

#include <gtest/gtest.h>

#include "account/rate_limiter.h"

namespace ridge::account {
namespace {

TEST(Security, Argon2idRoundTrip) {
  std::string hash = hash_password("correct horse battery");
  ASSERT_EQ(hash.rfind("$argon2id$", 0), 0u) << hash;
  EXPECT_TRUE(verify_password(hash, "correct horse battery"));
  EXPECT_FALSE(verify_password(hash, "correct horse batterz"));
  EXPECT_NE(hash, hash_password("correct horse battery"));  // salted
  EXPECT_FALSE(verify_password("", "x"));
}

TEST(Security, TokensAreRandomAndHashed) {
  std::string a = random_token(), b = random_token();
  EXPECT_EQ(a.size(), 64u);  // 256 bits in hex
  EXPECT_NE(a, b);
  EXPECT_EQ(token_hash(a), token_hash(a));
  EXPECT_NE(token_hash(a), a);
  EXPECT_TRUE(equal_tokens(a, a));
  EXPECT_FALSE(equal_tokens(a, b));
  EXPECT_FALSE(equal_tokens("", ""));
}

TEST(Security, InputChecks) {
  EXPECT_TRUE(check_email("a@b.co").empty());
  EXPECT_FALSE(check_email("nope").empty());
  EXPECT_FALSE(check_email("a@b").empty());
  EXPECT_FALSE(check_password("short").empty());
  EXPECT_TRUE(check_password("long enough pass").empty());
}

TEST(RateLimiter, BurstThenRefill) {
  FakeClock clock(1000);
  RateLimiter limiter(clock, 5, 1.0 / 60);  // 5 attempts, then one a minute
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.allow("1.2.3.4"));
  double retry = 0;
  EXPECT_FALSE(limiter.allow("1.2.3.4", &retry));
  EXPECT_NEAR(retry, 60, 1e-9);
  EXPECT_TRUE(limiter.allow("5.6.7.8"));  // another key has its own bucket
  clock.advance(60);
  EXPECT_TRUE(limiter.allow("1.2.3.4"));
  EXPECT_FALSE(limiter.allow("1.2.3.4"));
}

}  // namespace
}  // namespace ridge::account
