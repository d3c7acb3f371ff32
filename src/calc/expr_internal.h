// The parts of the expr engine (expr.h) that its files share: units as dimensions
// (expr_units.cc), the parser (expr_parse.cc), the evaluator of one expression
// (expr_eval.cc). expr.cc runs the lines of a block and the what-if functions (range,
// breakeven) on top of them. Not for use outside src/calc/expr*.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calc/expr.h"

namespace ridge::calc::expr_detail {

// Dimensions over the base units: bytes, FLOP, seconds, USD, tokens, watts.
constexpr int kDims = 6;
using Dim = std::array<int, kDims>;
constexpr Dim kScalar{};
constexpr Dim dim(int b, int f, int s, int usd, int tok, int w) { return Dim{b, f, s, usd, tok, w}; }

struct Val {
  double value = 0;
  Dim dim = kScalar;
};

// "B/s", "FLOP", "a plain number".
std::string dim_name(const Dim& d);

struct UnitAtom {
  std::string_view text;
  double factor;
  Dim dim;
};
// Longest spelling first, so "GB" is tried before "G..." and "GBps" never half-matches.
const std::vector<UnitAtom>& unit_atoms();

bool ident_char(char c);

// A named unit for a result, and how a base-dimension value converts to it.
struct NamedUnit {
  std::string_view as;  // the `as` spelling
  Unit unit;
  Dim dim;
  double per_base;  // value in this unit = base value * per_base
};
const std::vector<NamedUnit>& named_units();
// "B, FLOP, FLOP/s, ..." for error messages.
std::string as_list();

// A reference's quantity in base dimensions.
Val to_val(const Quantity& q);

// ---- parsing ----

struct Node {
  enum Kind { kLiteral, kRef, kName, kBinary, kNeg, kCall, kParen } kind = kLiteral;
  std::string text;        // literal as written, reference or name, operator symbol, function name
  Val val;                 // literal value
  bool unit_only = false;  // a bare unit that multiplies the value before it
  std::vector<std::unique_ptr<Node>> kids;
};
using NodePtr = std::unique_ptr<Node>;

// Parses one expression; nullptr with `error` set when it is not one. A name may hold one
// dot (`srv.mfu`): only the input argument of range() and breakeven() accepts that form.
NodePtr parse_expression(std::string_view text, std::string& error);

// ---- evaluation ----

struct Env {
  const ReferenceLookup* lookup = nullptr;
  // Earlier lines: the value in base dimensions (so units cancel across lines, even a rate
  // shown as a plain number per second) and as shown.
  std::map<std::string, std::pair<Val, Quantity>, std::less<>> names;
  std::vector<std::pair<std::string, Quantity>> refs_used;
  std::vector<Quantity>* literals = nullptr;
};

struct Eval {
  Val val;
  std::string formula, substituted;
};

// A quantity as a step shows it ("3,739 tokens/s").
std::string shown(const Quantity& q);

// Evaluates one expression tree; nullopt with `error` set on a unit clash, an unknown name,
// a division by zero. range() and breakeven() are whole lines and are refused here.
std::optional<Eval> eval(const Node& n, Env& env, std::string& error);

}  // namespace ridge::calc::expr_detail
