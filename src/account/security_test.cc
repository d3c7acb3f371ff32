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

// Issue 28: each IPv6 /128 counted as a separate address, so one subscriber (given a /64)
// had 2^64 failure budgets.
TEST(Security, Finding28_AnIpv6ClientIsLimitedByItsSlash64) {
  EXPECT_EQ(network_key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  EXPECT_EQ(network_key("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  EXPECT_EQ(network_key("2001:DB8:1:2:0:0:0:9"), "2001:db8:1:2::/64");
  EXPECT_NE(network_key("2001:db8:1:3::1"), network_key("2001:db8:1:2::1"));  // the next /64 is someone else
  EXPECT_EQ(network_key("::ffff:192.0.2.7"), "192.0.2.7");                   // a mapped IPv4 is that IPv4
  EXPECT_EQ(network_key("192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(network_key("not an address"), "not an address");
  EXPECT_EQ(network_key("fe80::1:"), "fe80::1:");  // malformed: unchanged, never a shared key
}

// Issue 28: mail budgets were keyed on the literal address, so victim+N@ filled one inbox.
TEST(Security, Finding28_OneInboxIsOneMailBudget) {
  EXPECT_EQ(mailbox_key("Victim+1@Example.com"), "victim@example.com");
  EXPECT_EQ(mailbox_key("victim+anything+else@example.com"), "victim@example.com");
  EXPECT_EQ(mailbox_key("vic.tim+x@googlemail.com"), "victim@gmail.com");
  EXPECT_EQ(mailbox_key("V.I.C.T.I.M@gmail.com"), "victim@gmail.com");
  // Dots are kept where the provider does not document ignoring them.
  EXPECT_EQ(mailbox_key("vic.tim@example.com"), "vic.tim@example.com");
  EXPECT_EQ(mailbox_key("+tag@example.com"), "+tag@example.com");  // a local part that is only a tag stays itself
}

}  // namespace
}  // namespace ridge::account
