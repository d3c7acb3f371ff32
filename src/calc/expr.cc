#include "calc/expr.h"

#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

namespace ridge::calc {
namespace {

// Dimensions over the base units: bytes, FLOP, seconds, USD, tokens, watts.
constexpr int kDims = 6;
using Dim = std::array<int, kDims>;
constexpr Dim kScalar{};
constexpr Dim dim(int b, int f, int s, int usd, int tok, int w) { return Dim{b, f, s, usd, tok, w}; }

struct Val {
  double value = 0;
  Dim dim = kScalar;
};

std::string dim_name(const Dim& d) {
  static constexpr std::array<const char*, kDims> kNames = {"B", "FLOP", "s", "USD", "token", "W"};
  std::string top, bottom;
  for (int i = 0; i < kDims; ++i) {
    if (d[i] == 0) continue;
    std::string& side = d[i] > 0 ? top : bottom;
    if (!side.empty()) side += "·";
    side += kNames[i];
    int e = std::abs(d[i]);
    if (e > 1) side += "^" + std::to_string(e);
  }
  if (top.empty() && bottom.empty()) return "a plain number";
  if (top.empty()) top = "1";
  return bottom.empty() ? top : top + "/" + bottom;
}

struct UnitAtom {
  std::string_view text;
  double factor;
  Dim dim;
};

// Longest first within a shared prefix, so "GB" is tried before "G..." never matches "GBps".
const std::vector<UnitAtom>& unit_atoms() {
  static const std::vector<UnitAtom> kAtoms = [] {
    std::vector<UnitAtom> a = {
        {"B", 1, dim(1, 0, 0, 0, 0, 0)},         {"kB", 1e3, dim(1, 0, 0, 0, 0, 0)},
        {"KB", 1e3, dim(1, 0, 0, 0, 0, 0)},      {"MB", 1e6, dim(1, 0, 0, 0, 0, 0)},
        {"GB", 1e9, dim(1, 0, 0, 0, 0, 0)},      {"TB", 1e12, dim(1, 0, 0, 0, 0, 0)},
        {"PB", 1e15, dim(1, 0, 0, 0, 0, 0)},     {"EB", 1e18, dim(1, 0, 0, 0, 0, 0)},
        {"KiB", 1024.0, dim(1, 0, 0, 0, 0, 0)},  {"MiB", 1048576.0, dim(1, 0, 0, 0, 0, 0)},
        {"GiB", 1073741824.0, dim(1, 0, 0, 0, 0, 0)}, {"TiB", 1099511627776.0, dim(1, 0, 0, 0, 0, 0)},
        {"bit", 0.125, dim(1, 0, 0, 0, 0, 0)},   {"Mbit", 1.25e5, dim(1, 0, 0, 0, 0, 0)},
        {"Gbit", 1.25e8, dim(1, 0, 0, 0, 0, 0)}, {"Tbit", 1.25e11, dim(1, 0, 0, 0, 0, 0)},
        {"Gbps", 1.25e8, dim(1, 0, -1, 0, 0, 0)}, {"Tbps", 1.25e11, dim(1, 0, -1, 0, 0, 0)},
        {"FLOP", 1, dim(0, 1, 0, 0, 0, 0)},      {"GFLOP", 1e9, dim(0, 1, 0, 0, 0, 0)},
        {"TFLOP", 1e12, dim(0, 1, 0, 0, 0, 0)},  {"PFLOP", 1e15, dim(0, 1, 0, 0, 0, 0)},
        {"EFLOP", 1e18, dim(0, 1, 0, 0, 0, 0)},  {"FLOPS", 1, dim(0, 1, -1, 0, 0, 0)},
        {"GFLOPS", 1e9, dim(0, 1, -1, 0, 0, 0)}, {"TFLOPS", 1e12, dim(0, 1, -1, 0, 0, 0)},
        {"PFLOPS", 1e15, dim(0, 1, -1, 0, 0, 0)}, {"EFLOPS", 1e18, dim(0, 1, -1, 0, 0, 0)},
        {"ns", 1e-9, dim(0, 0, 1, 0, 0, 0)},     {"us", 1e-6, dim(0, 0, 1, 0, 0, 0)},
        {"µs", 1e-6, dim(0, 0, 1, 0, 0, 0)},     {"ms", 1e-3, dim(0, 0, 1, 0, 0, 0)},
        {"s", 1, dim(0, 0, 1, 0, 0, 0)},         {"min", 60, dim(0, 0, 1, 0, 0, 0)},
        {"h", 3600, dim(0, 0, 1, 0, 0, 0)},      {"day", 86400, dim(0, 0, 1, 0, 0, 0)},
        {"days", 86400, dim(0, 0, 1, 0, 0, 0)},  {"week", 604800, dim(0, 0, 1, 0, 0, 0)},
        {"weeks", 604800, dim(0, 0, 1, 0, 0, 0)}, {"month", 2629800, dim(0, 0, 1, 0, 0, 0)},
        {"months", 2629800, dim(0, 0, 1, 0, 0, 0)}, {"year", 31557600, dim(0, 0, 1, 0, 0, 0)},
        {"years", 31557600, dim(0, 0, 1, 0, 0, 0)}, {"USD", 1, dim(0, 0, 0, 1, 0, 0)},
        {"W", 1, dim(0, 0, 0, 0, 0, 1)},         {"kW", 1e3, dim(0, 0, 0, 0, 0, 1)},
        {"MW", 1e6, dim(0, 0, 0, 0, 0, 1)},      {"GW", 1e9, dim(0, 0, 0, 0, 0, 1)},
        {"Wh", 3600, dim(0, 0, 1, 0, 0, 1)},     {"kWh", 3.6e6, dim(0, 0, 1, 0, 0, 1)},
        {"MWh", 3.6e9, dim(0, 0, 1, 0, 0, 1)},   {"GWh", 3.6e12, dim(0, 0, 1, 0, 0, 1)},
        {"J", 1, dim(0, 0, 1, 0, 0, 1)},         {"kJ", 1e3, dim(0, 0, 1, 0, 0, 1)},
        {"token", 1, dim(0, 0, 0, 0, 1, 0)},     {"tokens", 1, dim(0, 0, 0, 0, 1, 0)},
    };
    std::sort(a.begin(), a.end(), [](const UnitAtom& x, const UnitAtom& y) { return x.text.size() > y.text.size(); });
    return a;
  }();
  return kAtoms;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A named unit for a result, and how a base-dimension value converts to it.
struct NamedUnit {
  std::string_view as;  // the `as` spelling
  Unit unit;
  Dim dim;
  double per_base;      // value in this unit = base value * per_base
};

const std::vector<NamedUnit>& named_units() {
  static const std::vector<NamedUnit> kNamed = {
      {"B", Unit::kBytes, dim(1, 0, 0, 0, 0, 0), 1},
      {"FLOP", Unit::kFlop, dim(0, 1, 0, 0, 0, 0), 1},
      {"FLOP/s", Unit::kFlopPerSecond, dim(0, 1, -1, 0, 0, 0), 1},
      {"B/s", Unit::kBytesPerSecond, dim(1, 0, -1, 0, 0, 0), 1},
      {"s", Unit::kSeconds, dim(0, 0, 1, 0, 0, 0), 1},
      {"h", Unit::kHours, dim(0, 0, 1, 0, 0, 0), 1.0 / 3600},
      {"days", Unit::kDays, dim(0, 0, 1, 0, 0, 0), 1.0 / 86400},
      {"USD", Unit::kUsd, dim(0, 0, 0, 1, 0, 0), 1},
      {"USD/h", Unit::kUsdPerHour, dim(0, 0, -1, 1, 0, 0), 3600},
      {"tokens", Unit::kTokens, dim(0, 0, 0, 0, 1, 0), 1},
      {"tokens/s", Unit::kTokensPerSecond, dim(0, 0, -1, 0, 1, 0), 1},
      {"FLOP/B", Unit::kFlopPerByte, dim(-1, 1, 0, 0, 0, 0), 1},
      {"B/token", Unit::kBytesPerToken, dim(1, 0, 0, 0, -1, 0), 1},
      {"W", Unit::kWatts, dim(0, 0, 0, 0, 0, 1), 1},
      {"count", Unit::kCount, kScalar, 1},
      {"/s", Unit::kCount, dim(0, 0, -1, 0, 0, 0), 1},  // a rate (requests/s), shown as a plain number
      {"%", Unit::kRatio, kScalar, 1},
  };
  return kNamed;
}

std::string as_list() {
  std::string out;
  for (const auto& n : named_units()) out += (out.empty() ? "" : ", ") + std::string(n.as);
  return out;
}

// A reference's quantity in base dimensions.
Val to_val(const Quantity& q) {
  switch (q.unit) {
    case Unit::kBytes: return {q.value, dim(1, 0, 0, 0, 0, 0)};
    case Unit::kFlop: return {q.value, dim(0, 1, 0, 0, 0, 0)};
    case Unit::kFlopPerSecond: return {q.value, dim(0, 1, -1, 0, 0, 0)};
    case Unit::kBytesPerSecond: return {q.value, dim(1, 0, -1, 0, 0, 0)};
    case Unit::kSeconds: return {q.value, dim(0, 0, 1, 0, 0, 0)};
    case Unit::kHours: return {q.value * 3600, dim(0, 0, 1, 0, 0, 0)};
    case Unit::kDays: return {q.value * 86400, dim(0, 0, 1, 0, 0, 0)};
    case Unit::kUsd: return {q.value, dim(0, 0, 0, 1, 0, 0)};
    case Unit::kUsdPerHour: return {q.value / 3600, dim(0, 0, -1, 1, 0, 0)};
    case Unit::kTokens: return {q.value, dim(0, 0, 0, 0, 1, 0)};
    case Unit::kTokensPerSecond: return {q.value, dim(0, 0, -1, 0, 1, 0)};
    case Unit::kFlopPerByte: return {q.value, dim(-1, 1, 0, 0, 0, 0)};
    case Unit::kBytesPerToken: return {q.value, dim(1, 0, 0, 0, -1, 0)};
    case Unit::kWatts: return {q.value, dim(0, 0, 0, 0, 0, 1)};
    case Unit::kCount:
    case Unit::kRatio:
    case Unit::kBool:
    case Unit::kNone: return {q.value, kScalar};
  }
  return {q.value, kScalar};
}

// ---- parsing ----

struct Node {
  enum Kind { kLiteral, kRef, kName, kBinary, kNeg, kCall, kParen } kind = kLiteral;
  std::string text;  // literal as written, reference or name, operator symbol, function name
  Val val;           // literal value
  bool unit_only = false;  // a bare unit that multiplies the value before it
  std::vector<std::unique_ptr<Node>> kids;
};
using NodePtr = std::unique_ptr<Node>;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  NodePtr parse_all(std::string& error) {
    NodePtr n = expression();
    skip();
    if (error_.empty() && i_ < s_.size()) fail("unexpected '" + std::string(s_.substr(i_, 12)) + "'");
    error = error_;
    return error_.empty() ? std::move(n) : nullptr;
  }

 private:
  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  // Matches one of the spellings of an operator; returns the canonical symbol or "".
  std::string_view op(std::initializer_list<std::pair<std::string_view, std::string_view>> spellings) {
    skip();
    for (auto [spelling, canonical] : spellings) {
      if (s_.substr(i_, spelling.size()) == spelling) {
        i_ += spelling.size();
        return canonical;
      }
    }
    return {};
  }

  NodePtr expression() {
    NodePtr left = term();
    for (;;) {
      std::string_view o = op({{"+", "+"}, {"−", "−"}, {"-", "−"}});
      if (o.empty() || !left) return left;
      left = binary(std::string(o), std::move(left), term());
    }
  }
  NodePtr term() {
    NodePtr left = unary();
    for (;;) {
      std::string_view o = op({{"×", "×"}, {"*", "×"}, {"÷", "÷"}, {"/", "÷"}});
      if (o.empty() || !left) return left;
      left = binary(std::string(o), std::move(left), unary());
    }
  }
  NodePtr unary() {
    // Every nesting (parentheses, calls, signs, powers) passes through here.
    struct Depth {
      int& d;
      ~Depth() { --d; }
    } guard{++depth_};
    if (depth_ > kMaxDepth) {
      fail("the expression nests deeper than 64 levels");
      return nullptr;
    }
    if (!op({{"−", "−"}, {"-", "−"}}).empty()) {
      auto n = std::make_unique<Node>();
      n->kind = Node::kNeg;
      n->kids.push_back(unary());
      return n->kids.back() ? std::move(n) : nullptr;
    }
    NodePtr base = primary();
    if (base && base->kind != Node::kLiteral) base = with_unit(std::move(base));
    if (base && !op({{"^", "^"}}).empty()) return binary("^", std::move(base), unary());
    return base;
  }
  NodePtr binary(std::string o, NodePtr l, NodePtr r) {
    if (!l || !r) {
      fail("'" + o + "' needs a value on each side");
      return nullptr;
    }
    auto n = std::make_unique<Node>();
    n->kind = Node::kBinary;
    n->text = std::move(o);
    n->kids.push_back(std::move(l));
    n->kids.push_back(std::move(r));
    return n;
  }

  // A unit after a parenthesis, a reference or a name ("(4 + 4) B", "{{x.n}} tokens")
  // multiplies it by that unit: nothing else may follow a value there.
  NodePtr with_unit(NodePtr base) {
    size_t save = i_;
    skip();
    double f = 1;
    Dim d{};
    if (!unit_atom(f, d)) {
      i_ = save;
      return base;
    }
    size_t unit_start = save;
    while (unit_start < s_.size() && s_[unit_start] == ' ') ++unit_start;
    Val v{f, d};
    per_suffix(v);
    auto unit = std::make_unique<Node>();
    unit->kind = Node::kLiteral;
    unit->val = v;
    unit->text = std::string(s_.substr(unit_start, i_ - unit_start));
    unit->unit_only = true;
    return binary("×", std::move(base), std::move(unit));
  }

  // A unit after a number: ATOM or ATOM/ATOM (no spaces around the slash).
  bool unit_atom(double& factor, Dim& d) {
    for (const auto& a : unit_atoms()) {
      if (s_.substr(i_, a.text.size()) != a.text) continue;
      size_t after = i_ + a.text.size();
      if (after < s_.size() && ident_char(s_[after])) continue;
      i_ = after;
      factor = a.factor;
      d = a.dim;
      return true;
    }
    return false;
  }
  void unit_suffix(Val& v, size_t& end) {
    size_t save = i_;
    skip();
    if (i_ < s_.size() && s_[i_] == '%') {
      ++i_;
      v.value *= 0.01;
      end = i_;
      return;
    }
    double f = 1;
    Dim d{};
    if (!unit_atom(f, d)) {
      i_ = save;
      return;
    }
    v.value *= f;
    for (int k = 0; k < kDims; ++k) v.dim[k] += d[k];
    per_suffix(v);
    end = i_;
  }
  void per_suffix(Val& v) {
    while (i_ + 1 < s_.size() && s_[i_] == '/' && s_[i_ + 1] != ' ') {
      size_t save = i_;
      ++i_;
      double f = 1;
      Dim d{};
      if (!unit_atom(f, d)) {
        i_ = save;
        return;
      }
      v.value /= f;
      for (int k = 0; k < kDims; ++k) v.dim[k] -= d[k];
    }
  }

  NodePtr primary() {
    skip();
    if (i_ >= s_.size()) {
      fail("the expression ends where a value is expected");
      return nullptr;
    }
    size_t start = i_;
    char c = s_[i_];
    if (c == '(') {
      ++i_;
      NodePtr inner = expression();
      if (op({{")", ")"}}).empty()) {
        fail("a '(' is never closed");
        return nullptr;
      }
      auto n = std::make_unique<Node>();
      n->kind = Node::kParen;
      n->kids.push_back(std::move(inner));
      return n->kids.back() ? std::move(n) : nullptr;
    }
    if (s_.substr(i_, 2) == "{{") {
      size_t close = s_.find("}}", i_);
      if (close == std::string_view::npos) {
        fail("a '{{' reference is never closed with '}}'");
        return nullptr;
      }
      auto n = std::make_unique<Node>();
      n->kind = Node::kRef;
      n->text = std::string(s_.substr(i_ + 2, close - i_ - 2));
      i_ = close + 2;
      return n;
    }
    bool dollar = c == '$';
    if (dollar || std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      if (dollar) ++i_;
      size_t num_start = i_;
      while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        size_t k = i_ + 1;
        if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
        if (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) {
          i_ = k;
          while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
        }
      }
      std::string digits(s_.substr(num_start, i_ - num_start));
      char* endp = nullptr;
      double value = std::strtod(digits.c_str(), &endp);
      if (digits.empty() || endp != digits.c_str() + digits.size() || !std::isfinite(value)) {
        fail("'" + digits + "' is not a number");
        return nullptr;
      }
      auto digit_at = [&](size_t k) { return k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k])); };
      if (i_ < s_.size() && s_[i_] == ',' && digit_at(i_ + 1) && digit_at(i_ + 2) && digit_at(i_ + 3) && !digit_at(i_ + 4)) {
        fail("'" + digits + ",' : write numbers without thousands separators (1000000 or 1e6)");
        return nullptr;
      }
      auto n = std::make_unique<Node>();
      n->kind = Node::kLiteral;
      n->val = {value, kScalar};
      size_t end = i_;
      if (dollar) {
        n->val.dim = dim(0, 0, 0, 1, 0, 0);
        per_suffix(n->val);
        end = i_;
      } else {
        unit_suffix(n->val, end);
      }
      i_ = end;
      n->text = std::string(s_.substr(start, end - start));
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
      std::string name(s_.substr(start, i_ - start));
      skip();
      if (i_ < s_.size() && s_[i_] == '(') {
        ++i_;
        auto n = std::make_unique<Node>();
        n->kind = Node::kCall;
        n->text = name;
        for (;;) {
          NodePtr arg = expression();
          if (!arg) return nullptr;
          n->kids.push_back(std::move(arg));
          if (!op({{",", ","}}).empty()) continue;
          if (!op({{")", ")"}}).empty()) break;
          fail("the arguments of " + name + "( are never closed with ')'");
          return nullptr;
        }
        return n;
      }
      auto n = std::make_unique<Node>();
      n->kind = Node::kName;
      n->text = name;
      return n;
    }
    fail("'" + std::string(s_.substr(i_, 12)) + "' is not a number, a {{reference}}, a name or '('");
    return nullptr;
  }

  static constexpr int kMaxDepth = 64;
  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
  std::string error_;
};

// ---- evaluation ----

struct Env {
  const ReferenceLookup* lookup;
  // Earlier lines: the value in base dimensions (so units cancel across lines, even a rate
  // shown as a plain number per second) and as shown.
  std::map<std::string, std::pair<Val, Quantity>, std::less<>> names;
  std::vector<std::pair<std::string, Quantity>> refs_used;
  std::vector<Quantity>* literals;
};

std::string shown(const Quantity& q) { return format_quantity(q.value, q.unit, 4); }

struct Eval {
  Val val;
  std::string formula, substituted;
};

std::optional<Eval> eval(const Node& n, Env& env, std::string& error) {
  auto same_dims = [&](const Val& a, const Val& b, std::string_view what) {
    if (a.dim == b.dim) return true;
    error = std::string(what) + " needs the same unit on both sides (" + dim_name(a.dim) + " and " + dim_name(b.dim) + ")";
    return false;
  };
  switch (n.kind) {
    case Node::kLiteral:
      if (env.literals && !n.unit_only) env.literals->push_back({n.val.value, Unit::kNone});
      return Eval{n.val, n.text, n.text};
    case Node::kRef: {
      std::optional<Quantity> q = (*env.lookup)(n.text);
      if (!q) {
        error = "{{" + n.text + "}} is not a result of an earlier calc block";
        return std::nullopt;
      }
      bool seen = false;
      for (const auto& [name, _] : env.refs_used) seen = seen || name == n.text;
      if (!seen) env.refs_used.emplace_back(n.text, *q);
      return Eval{to_val(*q), n.text, shown(*q)};
    }
    case Node::kName: {
      auto it = env.names.find(n.text);
      if (it == env.names.end()) {
        error = "'" + n.text + "' is not an earlier line of this block (a result of another block is {{id.key}})";
        return std::nullopt;
      }
      return Eval{it->second.first, n.text, shown(it->second.second)};
    }
    case Node::kParen: {
      auto inner = eval(*n.kids[0], env, error);
      if (!inner) return std::nullopt;
      return Eval{inner->val, "(" + inner->formula + ")", "(" + inner->substituted + ")"};
    }
    case Node::kNeg: {
      auto inner = eval(*n.kids[0], env, error);
      if (!inner) return std::nullopt;
      return Eval{{-inner->val.value, inner->val.dim}, "−" + inner->formula, "−" + inner->substituted};
    }
    case Node::kBinary: {
      auto l = eval(*n.kids[0], env, error);
      if (!l) return std::nullopt;
      auto r = eval(*n.kids[1], env, error);
      if (!r) return std::nullopt;
      Val v;
      const std::string& o = n.text;
      if (o == "+" || o == "−") {
        if (!same_dims(l->val, r->val, "'" + o + "'")) return std::nullopt;
        v = {o == "+" ? l->val.value + r->val.value : l->val.value - r->val.value, l->val.dim};
      } else if (o == "×" || o == "÷") {
        if (o == "÷" && r->val.value == 0) {
          error = "division by zero (" + r->formula + " is 0)";
          return std::nullopt;
        }
        v.value = o == "×" ? l->val.value * r->val.value : l->val.value / r->val.value;
        for (int k = 0; k < kDims; ++k) v.dim[k] = l->val.dim[k] + (o == "×" ? r->val.dim[k] : -r->val.dim[k]);
      } else {  // ^
        if (r->val.dim != kScalar) {
          error = "an exponent is a plain number, not " + dim_name(r->val.dim);
          return std::nullopt;
        }
        double e = r->val.value;
        if (l->val.dim != kScalar && e != std::round(e)) {
          error = "a value with a unit (" + dim_name(l->val.dim) + ") can only be raised to a whole power";
          return std::nullopt;
        }
        v.value = std::pow(l->val.value, e);
        for (int k = 0; k < kDims; ++k) v.dim[k] = l->val.dim[k] * static_cast<int>(e);
      }
      if (n.kids[1]->unit_only) return Eval{v, l->formula + " " + r->formula, l->substituted + " " + r->substituted};
      return Eval{v, l->formula + " " + o + " " + r->formula, l->substituted + " " + o + " " + r->substituted};
    }
    case Node::kCall: {
      static const std::set<std::string, std::less<>> kFunctions = {"min", "max", "ceil", "floor", "round",
                                                                    "sqrt", "log2", "ln", "exp"};
      if (!kFunctions.count(n.text)) {
        error = "'" + n.text + "' is not a function; accepted: ceil, exp, floor, ln, log2, max, min, round, sqrt";
        return std::nullopt;
      }
      std::vector<Eval> args;
      for (const auto& k : n.kids) {
        auto a = eval(*k, env, error);
        if (!a) return std::nullopt;
        args.push_back(std::move(*a));
      }
      bool many = n.text == "min" || n.text == "max";
      if (many ? args.size() < 2 : args.size() != 1) {
        error = n.text + "() takes " + (many ? "two or more values" : "one value");
        return std::nullopt;
      }
      Val v = args[0].val;
      if (many) {
        for (size_t k = 1; k < args.size(); ++k) {
          if (!same_dims(args[0].val, args[k].val, n.text + "()")) return std::nullopt;
          v.value = n.text == "min" ? std::min(v.value, args[k].val.value) : std::max(v.value, args[k].val.value);
        }
      } else if (n.text == "sqrt") {
        for (int k = 0; k < kDims; ++k) {
          if (v.dim[k] % 2 != 0) {
            error = "sqrt() of " + dim_name(v.dim) + " has no unit";
            return std::nullopt;
          }
          v.dim[k] /= 2;
        }
        if (v.value < 0) {
          error = "sqrt() of a negative value";
          return std::nullopt;
        }
        v.value = std::sqrt(v.value);
      } else {
        if (v.dim != kScalar) {
          error = n.text + "() takes a plain number (a ratio of two quantities), not " + dim_name(v.dim) +
                  "; divide by a unit first, for example ceil(bytes / 80 GB)";
          return std::nullopt;
        }
        if ((n.text == "log2" || n.text == "ln") && v.value <= 0) {
          error = n.text + "() of a value that is not positive";
          return std::nullopt;
        }
        if (n.text == "ceil") v.value = std::ceil(v.value - 1e-9 * std::fabs(v.value));
        if (n.text == "floor") v.value = std::floor(v.value + 1e-9 * std::fabs(v.value));
        if (n.text == "round") v.value = std::round(v.value);
        if (n.text == "log2") v.value = std::log2(v.value);
        if (n.text == "ln") v.value = std::log(v.value);
        if (n.text == "exp") v.value = std::exp(v.value);
      }
      std::string f, s;
      for (size_t k = 0; k < args.size(); ++k) {
        f += (k ? ", " : "") + args[k].formula;
        s += (k ? ", " : "") + args[k].substituted;
      }
      return Eval{v, n.text + "(" + f + ")", n.text + "(" + s + ")"};
    }
  }
  return std::nullopt;
}

std::string clip(std::string_view s) {
  return s.size() <= 80 ? std::string(s) : std::string(s.substr(0, 77)) + "...";
}

std::string trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

}  // namespace

bool is_expr_block(std::string_view text) {
  size_t a = text.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos || text.substr(a, 4) != "expr") return false;
  return a + 4 >= text.size() || !ident_char(text[a + 4]);
}

Result<Derivation> evaluate_expr(std::string_view text, const ReferenceLookup& lookup) {
  return evaluate_expr_collecting(text, lookup, nullptr);
}

Result<Derivation> evaluate_expr_collecting(std::string_view text, const ReferenceLookup& lookup,
                                            std::vector<Quantity>* literals) {
  Derivation d("expr", "Arithmetic on earlier results");
  Errors errors;
  Env env{&lookup, {}, {}, literals};
  size_t a = text.find("expr");
  std::string_view rest = a == std::string_view::npos ? text : text.substr(a + 4);
  std::istringstream lines{std::string(rest)};
  std::string line;
  int assignments = 0;
  while (std::getline(lines, line)) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    size_t eq = t.find('=');
    std::string name = eq == std::string::npos ? "" : trim(std::string_view(t).substr(0, eq));
    bool name_ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) name_ok = name_ok && ident_char(c);
    if (!name_ok) {
      errors.push_back({name.empty() ? "expr" : name, clip(t), "a line of an expr block is NAME = EXPRESSION",
                        "a name of letters, digits and _, then =, then an expression"});
      continue;
    }
    if (env.names.count(name)) {
      errors.push_back({name, clip(t), "is assigned twice in this block", "each name once"});
      continue;
    }
    std::string body = trim(std::string_view(t).substr(eq + 1));
    // An optional "as UNIT" at the end names the result's unit.
    std::string as;
    if (size_t p = body.rfind(" as "); p != std::string::npos) {
      as = trim(std::string_view(body).substr(p + 4));
      body = trim(std::string_view(body).substr(0, p));
    }
    Parser parser(body);
    std::string error;
    NodePtr tree = parser.parse_all(error);
    if (!tree) {
      errors.push_back({name, clip(body), error, "numbers with units, {{id.key}}, earlier names, + − × ÷ ^ ( ), "
                                                 "min max ceil floor round sqrt log2 ln exp"});
      continue;
    }
    auto e = eval(*tree, env, error);
    if (!e) {
      errors.push_back({name, clip(body), error, "quantities whose units agree"});
      continue;
    }
    if (!std::isfinite(e->val.value)) {
      errors.push_back({name, clip(body), "is not a finite number", "a finite result"});
      continue;
    }
    // Name the unit: the inferred one, or the one `as` asks for.
    const NamedUnit* chosen = nullptr;
    const NamedUnit* inferred = nullptr;
    for (const auto& u : named_units()) {
      if (!inferred && u.dim == e->val.dim && u.as != "%" && u.as != "h" && u.as != "days") inferred = &u;
      if (!as.empty() && u.as == as) chosen = &u;
    }
    if (!as.empty() && !chosen) {
      errors.push_back({name, as, "is not a unit an expr result can have", as_list()});
      continue;
    }
    double value = e->val.value;
    Unit unit = Unit::kCount;
    if (chosen) {
      // A plain number may be named any unit (`x as W`); a quantity only its own (or count).
      if (inferred && chosen->dim != e->val.dim && chosen->unit != Unit::kCount && e->val.dim != kScalar) {
        errors.push_back({name, "as " + as, "the expression is " + dim_name(e->val.dim) + ", not " + as,
                          std::string("as ") + std::string(inferred->as) + " or no 'as'"});
        continue;
      }
      unit = chosen->unit;
      if (chosen->dim == e->val.dim) value *= chosen->per_base;  // otherwise: named by the author, value kept
    } else if (inferred) {
      unit = inferred->unit;
      value *= inferred->per_base;
    } else {
      errors.push_back({name, clip(body), "its unit, " + dim_name(e->val.dim) + ", has no name in the engine",
                        "end the line with 'as UNIT', one of " + as_list()});
      continue;
    }
    ++assignments;
    d.step(name, e->formula, e->substituted, value, unit);
    d.result(name, value, unit);
    // A result renamed with `as` to another unit (as count) is that unit from here on.
    Val kept = e->val;
    if (chosen && chosen->dim != e->val.dim) kept = to_val(Quantity{value, unit});
    env.names[name] = {kept, Quantity{value, unit}};
  }
  if (assignments == 0 && errors.empty()) {
    errors.push_back({"expr", clip(text), "holds no assignment", "one NAME = EXPRESSION per line"});
  }
  if (!errors.empty()) return errors;
  for (const auto& [ref, q] : env.refs_used) d.add_input(ref, shown(q), format_significant(q.value, 6));
  return d;
}

}  // namespace ridge::calc
