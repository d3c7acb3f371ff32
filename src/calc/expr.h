// Arithmetic between results: the `expr` calc block. Answers combine earlier results and
// literals with + − × ÷ ^, min, max, ceil, floor, round, sqrt, log2, ln and exp, and every
// step is shown ("replicas = ceil(demand.qps ÷ node.qps) = ceil(22,760 ÷ 1,000) = 23"),
// so no number in an answer is worked by hand.
//
// Text: one assignment per line, `name = expression [as UNIT]`, after the word `expr`
// (which may share the first line). Literals may carry units (80 GB, 3.35 TB/s, $2.49,
// 40%, 0.08 USD/kWh); units are tracked as dimensions over bytes, FLOP, seconds, USD,
// tokens and watts, and the result's unit is inferred (or named by `as`). Two what-if lines,
// range() and breakeven(), evaluate earlier lines (and earlier calc blocks) again with one
// input changed (issue 32 item 5). The parts live in expr_units.cc, expr_parse.cc and
// expr_eval.cc (expr_internal.h); this file's expr.cc runs the lines.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calc/derivation.h"
#include "calc/result.h"

namespace ridge::calc {

struct Quantity {
  double value = 0;
  Unit unit = Unit::kNone;
};

// Looks up {{id.key}}: nullopt when there is no such block or result. The string is the
// whole reference text between the braces ("node.tokens_per_second").
using ReferenceLookup = std::function<std::optional<Quantity>(std::string_view reference)>;

// "id.key" among earlier calc blocks' derivations (by block id): that result with its unit, or
// nullopt for no dot, an unknown id or key. What the loader and Work it resolve references with.
std::optional<Quantity> lookup_result(std::string_view ref, const std::map<std::string, const Derivation*>& results);

// The world with one calc block's input changed, for range() and breakeven(): `input` is
// "block.flag" as written in the expr line (a calculator call's flag, or a line of an earlier
// expr block), `base` the new value in base units and `typed` the same as the flag would be
// typed ("0.3", "4e11B/s"). Returns a lookup of every {{id.key}} after the blocks that depend
// on the input were evaluated again, or the error that stopped them (no such earlier block,
// it does not write that flag or line, the calculator refuses the value).
struct WhatIf {
  std::function<Result<ReferenceLookup>(std::string_view input, double base, const std::string& typed)> evaluate;
  // True when the flag takes whole numbers only (a count: GPUs, batch, ranks): the search
  // then steps by one.
  std::function<bool(std::string_view input)> whole;
};

// Evaluates an expr block. Errors name the line's variable (field), the text and what is
// accepted; the derivation's results are the assigned names in order.
Result<Derivation> evaluate_expr(std::string_view text, const ReferenceLookup& lookup);
// The same, also appending every literal's value (in base units) to `literals`, so the
// checker can tell a retyped result from a constant.
Result<Derivation> evaluate_expr_collecting(std::string_view text, const ReferenceLookup& lookup,
                                            std::vector<Quantity>* literals);
// The same with the what-if functions on calc blocks' inputs. Two lines of their own:
//   NAME = range(RESULT, INPUT, LOW, HIGH)
//     RESULT at INPUT = LOW and at INPUT = HIGH, as the results NAME_low and NAME_high (the
//     answer at the pessimistic and the optimistic end of an assumption);
//   NAME = breakeven(RESULT, INPUT, THRESHOLD, LOW, HIGH) [as UNIT]
//     the INPUT between LOW and HIGH at which RESULT reaches THRESHOLD, by bisection (a
//     whole-number input steps by one: the first whole value that reaches it).
// RESULT is an earlier line or {{id.key}}; INPUT an earlier line of this block, or
// `block.flag`, a flag written in an earlier calculator call (through `what_if`; null when the
// caller has none). Both re-evaluate everything between the input and the result. Errors:
// no crossing between LOW and HIGH, a RESULT that is not monotone in INPUT over the range
// (sampled at 9 points), a RESULT that does not depend on INPUT.
// `override`: one line set to a value (base units, in the line's own dimension) instead of
// its expression, for a what-if in a later block; an error when the block has no such line.
struct LineOverride {
  std::string name;
  double value = 0;
};
Result<Derivation> evaluate_expr_with(std::string_view text, const ReferenceLookup& lookup,
                                      std::vector<Quantity>* literals, const WhatIf* what_if,
                                      const LineOverride* override = nullptr);

// A literal written with a bandwidth unit in an expr block ("400 Gbit/s", "450 GB/s"), for
// the one-network check (issue 32 item 2): `line` counts from the block text's first line
// (0), `name` is the line's variable, `text` the literal as written, `value` in B/s and
// `comment_above` the text after '#' of a comment on the line just above ("" for none).
// Lines that do not parse are skipped: evaluate_expr reports them.
struct RateLiteral {
  int line = 0;
  std::string name, text;
  double value = 0;
  std::string comment_above;
};
std::vector<RateLiteral> expr_rate_literals(std::string_view text);

// True when `text` (a calc block's body) is an expr block: its first word is `expr`.
bool is_expr_block(std::string_view text);

}  // namespace ridge::calc
