#include "calc/params.h"

#include <gtest/gtest.h>

#include "calc/common.h"

namespace ridge::calc {
namespace {

ParamSpec tokens() { return detail::count("tokens", Unit::kTokens, "", 1, 1e18); }
ParamSpec bytes() { return detail::number("bytes", Unit::kBytes, "", 0, 1e18); }

TEST(Params, CountsAcceptSuffixes) {
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "70e9"), 70e9);
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "70B"), 70e9);
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "15T"), 15e12);
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "32k"), 32000);
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "32Ki"), 32768);
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "1,000,000"), 1e6);
}

// The engine prints token counts and rates with their word ("300 tokens", "12k tokens/s"); an
// answer typed the same way reads as the number (Work it refused it as an unknown suffix).
TEST(Params, TokensAcceptTheirOwnWord) {
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "300 tokens"), 300);
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "8k tokens"), 8000);
  EXPECT_DOUBLE_EQ(*parse_number(tokens(), "1 token"), 1);
  ParamSpec rate = detail::number("rate", Unit::kTokensPerSecond, "", 0, 1e12);
  EXPECT_DOUBLE_EQ(*parse_number(rate, "12k tokens/s"), 12000);
  EXPECT_DOUBLE_EQ(*parse_number(rate, "950 tok/s"), 950);
  auto bad = parse_number(tokens(), "300 bytes");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errors()[0].accepted.find("tokens may follow"), std::string::npos) << bad.errors()[0].accepted;
}

TEST(Params, BytesAndBandwidthAcceptUnits) {
  EXPECT_DOUBLE_EQ(*parse_number(bytes(), "80GB"), 80e9);
  EXPECT_DOUBLE_EQ(*parse_number(bytes(), "1GiB"), 1073741824.0);
  ParamSpec bw = detail::number("bw", Unit::kBytesPerSecond, "", 0, 1e18);
  EXPECT_DOUBLE_EQ(*parse_number(bw, "400GB/s"), 400e9);
  ParamSpec ratio = detail::number("mfu", Unit::kRatio, "", 0, 1);
  EXPECT_DOUBLE_EQ(*parse_number(ratio, "40%"), 0.4);
  ParamSpec seconds = detail::number("s", Unit::kSeconds, "", 0, 1e12);
  EXPECT_DOUBLE_EQ(*parse_number(seconds, "2h"), 7200);
}

TEST(Params, RejectsWhatIsNotANumber) {
  for (const char* bad : {"", "abc", "nan", "inf", "1e400", "12xyz", "1.5.5"}) {
    auto r = parse_number(tokens(), bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.errors()[0].field, "tokens");
    EXPECT_EQ(r.errors()[0].value, bad);
    EXPECT_FALSE(r.errors()[0].accepted.empty());
  }
  EXPECT_FALSE(parse_number(tokens(), "1.5").ok());  // a count must be whole
}

TEST(Params, NormalizesNames) {
  EXPECT_EQ(normalize_param_name("--weights_dtype"), "weights-dtype");
  EXPECT_EQ(normalize_param_name("kv-dtype"), "kv-dtype");
}

}  // namespace
}  // namespace ridge::calc
