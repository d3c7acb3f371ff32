#include "calc/expr.h"

#include <gtest/gtest.h>

#include <map>

namespace ridge::calc {
namespace {

// Results of "earlier blocks", as the loader would pass them.
ReferenceLookup lookup() {
  static const std::map<std::string, Quantity, std::less<>> kResults = {
      {"node.tokens_per_second", {3739, Unit::kTokensPerSecond}},
      {"demand.qps", {22760, Unit::kCount}},
      {"run.hours", {2.5, Unit::kHours}},
      {"price.usd_per_hour", {2.49, Unit::kUsdPerHour}},
  };
  return [](std::string_view ref) -> std::optional<Quantity> {
    auto it = kResults.find(ref);
    if (it == kResults.end()) return std::nullopt;
    return it->second;
  };
}

const NamedResult& result(const Derivation& d, std::string_view key) {
  const NamedResult* r = d.find(key);
  EXPECT_NE(r, nullptr) << key;
  static const NamedResult kNone{};
  return r ? *r : kNone;
}

TEST(Expr, TimesAReferenceKeepsTheUnitAndShowsTheStep) {
  auto d = evaluate_expr("expr\nfleet = 10 × {{node.tokens_per_second}}\n", lookup());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  // 10 x 3,739 tokens/s = 37,390 tokens/s, by hand.
  EXPECT_DOUBLE_EQ(result(*d, "fleet").value, 37390);
  EXPECT_EQ(result(*d, "fleet").unit, Unit::kTokensPerSecond);
  ASSERT_EQ(d->steps().size(), 1u);
  EXPECT_EQ(d->steps()[0].formula, "10 × node.tokens_per_second");
  EXPECT_NE(d->steps()[0].substituted.find("10 × "), std::string::npos);
}

TEST(Expr, LaterLinesUseEarlierNamesAndFunctions) {
  auto d = evaluate_expr("expr replicas = ceil({{demand.qps}} / 1000)\ngpus = replicas * 8\n", lookup());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  // 22,760 / 1,000 = 22.76, ceil 23; 23 x 8 = 184.
  EXPECT_DOUBLE_EQ(result(*d, "replicas").value, 23);
  EXPECT_DOUBLE_EQ(result(*d, "gpus").value, 184);
}

TEST(Expr, UnitsConvertAndCombine) {
  auto d = evaluate_expr(
      "expr\n"
      "per_gpu = 1 PB / 256\n"
      "link = 8 × 400 Gbit/s\n"
      "energy_cost = 10 kW × 730 h × 0.08 USD/kWh\n"
      "bill = {{price.usd_per_hour}} × {{run.hours}}\n"
      "growth = 155 / 118 - 1 as %\n"
      "fp = 2.5 h\n",
      lookup());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_DOUBLE_EQ(result(*d, "per_gpu").value, 1e15 / 256);  // 3.90625e12 B
  EXPECT_EQ(result(*d, "per_gpu").unit, Unit::kBytes);
  EXPECT_DOUBLE_EQ(result(*d, "link").value, 4e11);  // 3,200 Gbit/s = 400 GB/s
  EXPECT_EQ(result(*d, "link").unit, Unit::kBytesPerSecond);
  EXPECT_NEAR(result(*d, "energy_cost").value, 584, 1e-9);  // 7,300 kWh at 0.08 USD
  EXPECT_EQ(result(*d, "energy_cost").unit, Unit::kUsd);
  EXPECT_NEAR(result(*d, "bill").value, 6.225, 1e-9);  // 2.49 USD/h x 2.5 h
  EXPECT_EQ(result(*d, "bill").unit, Unit::kUsd);
  EXPECT_NEAR(result(*d, "growth").value, 37.0 / 118, 1e-12);
  EXPECT_EQ(result(*d, "growth").unit, Unit::kRatio);
  EXPECT_DOUBLE_EQ(result(*d, "fp").value, 9000);
  EXPECT_EQ(result(*d, "fp").unit, Unit::kSeconds);
}

TEST(Expr, DollarPrefixAndPerUnit) {
  auto d = evaluate_expr("expr month = $2.49/h × 730 h\nper_m = month / (1e9 tokens) × 1e6 as USD\n", lookup());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_NEAR(result(*d, "month").value, 1817.7, 1e-9);
  EXPECT_EQ(result(*d, "per_m").unit, Unit::kUsd);
}

TEST(Expr, AUnitAfterAParenthesisOrAReference) {
  auto d = evaluate_expr("expr a = (4 + 4) B\nb = {{demand.qps}} tokens\nrps = 100 / (1 s)\n", lookup());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_DOUBLE_EQ(result(*d, "a").value, 8);
  EXPECT_EQ(result(*d, "a").unit, Unit::kBytes);
  EXPECT_EQ(result(*d, "b").unit, Unit::kTokens);
  EXPECT_DOUBLE_EQ(result(*d, "rps").value, 100);  // a rate: a plain number per second
}

TEST(Expr, UnitsCancelAcrossLines) {
  // 120 per hour is 1/30 per second; over 10 minutes that is 20, a plain number ceil() takes.
  auto d = evaluate_expr("expr rate = 120 / (60 min)\nb = ceil(rate × (10 min))\n", lookup());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_DOUBLE_EQ(result(*d, "b").value, 20);
}

TEST(Expr, MismatchedUnitsAreRefusedWithTheLine) {
  auto d = evaluate_expr("expr bad = 80 GB + 3 s\n", lookup());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.errors()[0].field, "bad");
  EXPECT_NE(d.errors()[0].message.find("same unit"), std::string::npos) << d.errors()[0].message;
}

TEST(Expr, UnknownReferenceNameAndFunctionAreErrors) {
  EXPECT_FALSE(evaluate_expr("expr a = {{nope.x}} + 1", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = later + 1", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = cbrt(8)", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = 1 / 0", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = (1 + 2", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = 1,000 + 2", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = ceil(80 GB)", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = 80 GB × 2 s", lookup()).ok());  // B·s has no name and no 'as'
  EXPECT_FALSE(evaluate_expr("expr a = 80 GB as s", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr", lookup()).ok());
}

TEST(Expr, HostileInputDoesNotHangOrCrash) {
  std::string fine = "expr a = " + std::string(20, '(') + "1" + std::string(20, ')');
  EXPECT_TRUE(evaluate_expr(fine, lookup()).ok());
  std::string deep = "expr a = " + std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_FALSE(evaluate_expr(deep, lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = " + std::string(100000, '-') + "1", lookup()).ok());
  EXPECT_FALSE(evaluate_expr("expr a = 10 ^ 400", lookup()).ok());  // not finite
  EXPECT_FALSE(evaluate_expr("expr a = )(", lookup()).ok());
}

TEST(Expr, CommasSeparateArgumentsWithOrWithoutSpaces) {
  auto d = evaluate_expr("expr a = max(0, 3)\nb = min(1,2)\n", lookup());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_DOUBLE_EQ(result(*d, "a").value, 3);
  EXPECT_DOUBLE_EQ(result(*d, "b").value, 1);
}

TEST(Expr, RecognizesTheBlockKind) {
  EXPECT_TRUE(is_expr_block("expr\na = 1"));
  EXPECT_TRUE(is_expr_block("  expr a = 1"));
  EXPECT_FALSE(is_expr_block("exprs a=1"));
  EXPECT_FALSE(is_expr_block("fit model=x"));
}

}  // namespace
}  // namespace ridge::calc
