// Arithmetic between results: the `expr` calc block. Answers combine earlier results and
// literals with + − × ÷ ^, min, max, ceil, floor, round, sqrt, log2, ln and exp, and every
// step is shown ("replicas = ceil(demand.qps ÷ node.qps) = ceil(22,760 ÷ 1,000) = 23"),
// so no number in an answer is worked by hand.
//
// Text: one assignment per line, `name = expression [as UNIT]`, after the word `expr`
// (which may share the first line). Literals may carry units (80 GB, 3.35 TB/s, $2.49,
// 40%, 0.08 USD/kWh); units are tracked as dimensions over bytes, FLOP, seconds, USD,
// tokens and watts, and the result's unit is inferred (or named by `as`).
#pragma once

#include <functional>
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

// Evaluates an expr block. Errors name the line's variable (field), the text and what is
// accepted; the derivation's results are the assigned names in order.
Result<Derivation> evaluate_expr(std::string_view text, const ReferenceLookup& lookup);
// The same, also appending every literal's value (in base units) to `literals`, so the
// checker can tell a retyped result from a constant.
Result<Derivation> evaluate_expr_collecting(std::string_view text, const ReferenceLookup& lookup,
                                            std::vector<Quantity>* literals);

// True when `text` (a calc block's body) is an expr block: its first word is `expr`.
bool is_expr_block(std::string_view text);

}  // namespace ridge::calc
