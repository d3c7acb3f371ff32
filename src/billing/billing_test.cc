#include "billing/billing.h"

#include <gtest/gtest.h>

namespace ridge::billing {
namespace {

TEST(Price, ParsesMinorUnitsAndNamesTheVariable) {
  std::string why;
  auto p = parse_price("USD 2500", why);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->display(), "USD 25.00");
  EXPECT_EQ(parse_price("EUR 1905", why)->display(), "EUR 19.05");
  EXPECT_EQ(parse_price("JPY 3000", why)->display(), "JPY 3000");
  for (const char* bad : {"", "USD", "usd 2500", "USD -1", "USD 0", "USD 25.00", "DOLLARS 5"}) {
    EXPECT_FALSE(parse_price(bad, why)) << bad;
    EXPECT_NE(why.find("RIDGE_PRICE"), std::string::npos);
  }
}

TEST(Rfc3339, IsUtcWithZ) { EXPECT_EQ(rfc3339(1786752000), "2026-08-15T00:00:00Z"); }

TEST(StripeSignature, AcceptsAnyV1WithinTheToleranceOnly) {
  const std::string secret = "whsec_test", payload = R"({"id":"evt_1"})";
  const int64_t t = 1800000000;
  std::string header = stripe_signature_header(payload, secret, t);
  EXPECT_EQ(verify_stripe_signature(header, payload, secret, t), Signature::kOk);
  EXPECT_EQ(verify_stripe_signature(header, payload, secret, t + 300), Signature::kOk);
  EXPECT_EQ(verify_stripe_signature(header, payload, secret, t + 301), Signature::kStale);
  EXPECT_EQ(verify_stripe_signature(header, payload, secret, t - 301), Signature::kStale);
  EXPECT_EQ(verify_stripe_signature(header, payload + " ", secret, t), Signature::kMismatch);
  EXPECT_EQ(verify_stripe_signature(header, payload, "whsec_other", t), Signature::kMismatch);
  std::string v1 = header.substr(header.find("v1="));
  EXPECT_EQ(verify_stripe_signature("t=" + std::to_string(t) + ",v0=abc,v1=" + std::string(64, 'f') + "," + v1, payload, secret, t),
            Signature::kOk);
  EXPECT_EQ(verify_stripe_signature("", payload, secret, t), Signature::kMalformed);
  EXPECT_EQ(verify_stripe_signature(v1, payload, secret, t), Signature::kMalformed);
  EXPECT_EQ(verify_stripe_signature("t=12x," + v1, payload, secret, t), Signature::kMalformed);
  EXPECT_EQ(verify_stripe_signature(header, payload, "", t), Signature::kMalformed);
  // A known vector (HMAC-SHA256 of "1.{}" with key "k", from Python's hmac), so the check is not only self-consistent.
  EXPECT_EQ(stripe_signature_header("{}", "k", 1), "t=1,v1=" "3dd49b2593d0f9a349e9e71c4bde3e2b862c2be4003fe9b4ba81332029310158");
}

}  // namespace
}  // namespace ridge::billing
