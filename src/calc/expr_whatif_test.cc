// range() and breakeven() in expr blocks (issue 32 item 5): every expected figure is worked by
// hand in its comment.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "calc/expr.h"

namespace ridge::calc {
namespace {

ReferenceLookup no_refs() {
  return [](std::string_view) -> std::optional<Quantity> { return std::nullopt; };
}

double value_of(const Derivation& d, std::string_view key) {
  const NamedResult* r = d.find(key);
  EXPECT_NE(r, nullptr) << key;
  return r ? r->value : -1;
}

std::string first_error(const Result<Derivation>& d) { return d.ok() ? "" : d.errors().front().message; }

TEST(ExprWhatIf, RangeOfALineOverAnEarlierLine) {
  // hours = 100 h / util: at util 50% that is 200 h = 720,000 s; at 100%, 100 h = 360,000 s.
  auto d = evaluate_expr("expr\nutil = 60%\nhours = 100 h / util\nr = range(hours, util, 50%, 100%)\n", no_refs());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_NEAR(value_of(*d, "r_low"), 720000, 1e-6);
  EXPECT_NEAR(value_of(*d, "r_high"), 360000, 1e-6);
  EXPECT_EQ(d->find("r_low")->unit, Unit::kSeconds);
  // The assumed line keeps its own value: 100 h / 0.6 = 600,000 s.
  EXPECT_NEAR(value_of(*d, "hours"), 600000, 1e-6);
}

TEST(ExprWhatIf, BreakevenByBisectionInTheInputsUnit) {
  // cost = 1,000 USD + 2 USD/h × hrs reaches 1,500 USD at hrs = 500 / 2 = 250 h = 900,000 s.
  auto d = evaluate_expr(
      "expr\nhrs = 100 h\ncost = 1000 USD + 2 USD/h × hrs\neven = breakeven(cost, hrs, 1500 USD, 0 h, 1000 h)\n"
      "even_h = even / (1 h)\n",
      no_refs());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_NEAR(value_of(*d, "even"), 900000, 1e-3);
  EXPECT_EQ(d->find("even")->unit, Unit::kSeconds);
  EXPECT_NEAR(value_of(*d, "even_h"), 250, 1e-6);  // later lines use it in base units
}

TEST(ExprWhatIf, BreakevenHasTheInputsUnitOrTheOneAsNames) {
  // margin = util × 3 − 1 crosses 0 at util = 1/3.
  auto d = evaluate_expr(
      "expr\nutil = 50%\nmargin = util × 3 - 1\nu = breakeven(margin, util, 0, 10%, 90%)\n"
      "p = breakeven(margin, util, 0, 10%, 90%) as %\n",
      no_refs());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_NEAR(value_of(*d, "u"), 1.0 / 3, 1e-8);
  EXPECT_EQ(d->find("u")->unit, d->find("util")->unit);  // a plain number, as `util` shows
  EXPECT_EQ(d->find("p")->unit, Unit::kRatio);
  EXPECT_NEAR(value_of(*d, "p"), 1.0 / 3, 1e-8);
}

TEST(ExprWhatIf, AWholeNumberInputGivesTheFirstWholeValueThatReachesIt) {
  // tput = gpus × 1,000 tokens/s: 20,000 is reached at exactly 20 GPUs; 20,500 first at 21.
  auto d = evaluate_expr(
      "expr\ngpus = 8\ntput = gpus × 1000 tokens/s\na = breakeven(tput, gpus, 20000 tokens/s, 1, 64)\n"
      "b = breakeven(tput, gpus, 20500 tokens/s, 1, 64)\n",
      no_refs());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_DOUBLE_EQ(value_of(*d, "a"), 20);
  EXPECT_DOUBLE_EQ(value_of(*d, "b"), 21);
}

TEST(ExprWhatIf, AFallingResultCrossesToo) {
  // hours = 100 h / util falls through 200 h at util = 50%, between 10% and 90%.
  auto d = evaluate_expr("expr\nutil = 60%\nhours = 100 h / util\nu = breakeven(hours, util, 200 h, 10%, 90%)\n", no_refs());
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_NEAR(value_of(*d, "u"), 0.5, 1e-8);
}

TEST(ExprWhatIf, NoCrossingNamesBothEndsAndTheThreshold) {
  // tput runs from 1,000 to 64,000 tokens/s over 1 to 64 GPUs: never 1e6.
  auto d = evaluate_expr("expr\ngpus = 8\ntput = gpus × 1000 tokens/s\nx = breakeven(tput, gpus, 1e6 tokens/s, 1, 64)\n",
                         no_refs());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.errors()[0].field, "x");
  EXPECT_NE(first_error(d).find("no crossing"), std::string::npos) << first_error(d);
  EXPECT_NE(first_error(d).find("below 1e6 tokens/s"), std::string::npos) << first_error(d);
}

TEST(ExprWhatIf, ANonMonotoneResultIsRefused) {
  // y = (x − 5)² falls to 0 at x = 5 and rises again: two crossings of 4 (x = 3 and 7), and
  // the ends 0 and 10 (both 25) do not bound it.
  const std::string lines = "expr\nx = 5\ny = (x - 5)^2\n";
  auto even = evaluate_expr(lines + "c = breakeven(y, x, 4, 0, 10)\n", no_refs());
  ASSERT_FALSE(even.ok());
  EXPECT_NE(first_error(even).find("not monotone"), std::string::npos) << first_error(even);
  auto range = evaluate_expr(lines + "r = range(y, x, 0, 10)\n", no_refs());
  ASSERT_FALSE(range.ok());
  EXPECT_NE(first_error(range).find("not monotone"), std::string::npos) << first_error(range);
  // Over 5 to 10 it only rises: 0 to 25.
  auto half = evaluate_expr(lines + "r = range(y, x, 5, 10)\n", no_refs());
  ASSERT_TRUE(half.ok()) << to_string(half.errors());
  EXPECT_DOUBLE_EQ(value_of(*half, "r_high"), 25);
}

TEST(ExprWhatIf, MisuseIsRefusedWithTheAcceptedForm) {
  const std::string base = "expr\nutil = 60%\nhours = 100 h / util\n";
  // Bounds in another unit than the input.
  EXPECT_NE(first_error(evaluate_expr(base + "r = range(hours, util, 1 h, 2 h)\n", no_refs())).find("bound"),
            std::string::npos);
  // Inside arithmetic: two values cannot be one operand.
  EXPECT_NE(first_error(evaluate_expr(base + "r = 1 + range(hours, util, 50%, 90%)\n", no_refs())).find("whole line"),
            std::string::npos);
  // Low above high, a later or unknown name, the wrong argument count.
  EXPECT_FALSE(evaluate_expr(base + "r = range(hours, util, 90%, 50%)\n", no_refs()).ok());
  EXPECT_FALSE(evaluate_expr(base + "r = range(hours, later, 50%, 90%)\n", no_refs()).ok());
  EXPECT_FALSE(evaluate_expr(base + "r = breakeven(hours, util, 50%, 90%)\n", no_refs()).ok());
  // A threshold in another unit than the result.
  EXPECT_FALSE(evaluate_expr(base + "r = breakeven(hours, util, 5 GB, 10%, 90%)\n", no_refs()).ok());
  // A block's flag with no calc blocks to vary.
  EXPECT_NE(first_error(evaluate_expr(base + "r = range(hours, srv.mfu, 10%, 90%)\n", no_refs())).find("no calc blocks"),
            std::string::npos);
  // A dotted name anywhere else.
  EXPECT_FALSE(evaluate_expr(base + "r = srv.mfu × 2\n", no_refs()).ok());
}

// A stand-in for the loader's what-if: block `srv` computes tps = 1,000 tokens/s × batch.
struct FakeBlocks {
  std::vector<std::string> seen;
  WhatIf what_if() {
    WhatIf w;
    w.whole = [](std::string_view input) { return input == "srv.batch"; };
    w.evaluate = [this](std::string_view input, double, const std::string& value) -> Result<ReferenceLookup> {
      if (input != "srv.batch") return FieldError{std::string(input), value, "is not a flag here", "srv.batch"};
      seen.push_back(value);
      double batch = std::strtod(value.c_str(), nullptr);
      return ReferenceLookup([batch](std::string_view ref) -> std::optional<Quantity> {
        if (ref == "srv.tps") return Quantity{1000 * batch, Unit::kTokensPerSecond};
        return std::nullopt;
      });
    };
    return w;
  }
};

ReferenceLookup srv_at_8() {
  return [](std::string_view ref) -> std::optional<Quantity> {
    if (ref == "srv.tps") return Quantity{8000, Unit::kTokensPerSecond};
    return std::nullopt;
  };
}

TEST(ExprWhatIf, ACalcBlocksFlagIsVariedThroughTheCaller) {
  FakeBlocks blocks;
  WhatIf w = blocks.what_if();
  // tps reaches 37,000 tokens/s at batch 37; per = 2 × tps runs 2,000 to 8,000 over batch 1 to 4.
  auto d = evaluate_expr_with(
      "expr\nper = {{srv.tps}} × 2\nb = breakeven({{srv.tps}}, srv.batch, 37000 tokens/s, 1, 64)\n"
      "r = range(per, srv.batch, 1, 4)\n",
      srv_at_8(), nullptr, &w);
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_DOUBLE_EQ(value_of(*d, "b"), 37);
  EXPECT_DOUBLE_EQ(value_of(*d, "r_low"), 2000);
  EXPECT_DOUBLE_EQ(value_of(*d, "r_high"), 8000);
  EXPECT_DOUBLE_EQ(value_of(*d, "per"), 16000);  // the block as written: batch 8
  // A whole-number range is only ever asked whole values, typed as the flag would be.
  for (const auto& v : blocks.seen) EXPECT_EQ(v.find('.'), std::string::npos) << v;
  // Bounded work: 9 samples per line and at most 6 halvings of 1..64, plus 4 samples of 1..4.
  EXPECT_LE(blocks.seen.size(), 9u + 6u + 4u);
}

TEST(ExprWhatIf, TheCallersErrorNamesTheValueTried) {
  FakeBlocks blocks;
  WhatIf w = blocks.what_if();
  auto d = evaluate_expr_with("expr\nr = range({{srv.tps}}, srv.mfu, 10%, 90%)\n", srv_at_8(), nullptr, &w);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(first_error(d).find("srv.mfu = 0.1: is not a flag here"), std::string::npos) << first_error(d);
}

}  // namespace
}  // namespace ridge::calc
