// The expr engine's parser: one expression into a tree of literals (with units),
// {{references}}, names, operators and function calls. Nesting is bounded (64 levels), so
// the work per line is bounded by its length.
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "calc/expr_internal.h"

namespace ridge::calc::expr_detail {
namespace {

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
      // One dot: a calc block's input (`srv.mfu`), the input argument of range()/breakeven().
      if (i_ + 1 < s_.size() && s_[i_] == '.' && (std::isalpha(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '_')) {
        ++i_;
        while (i_ < s_.size() && (ident_char(s_[i_]) || s_[i_] == '-')) ++i_;
      }
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
    fail('\'' + std::string(s_.substr(i_, 12)) + "' is not a number, a {{reference}}, a name or '('");
    return nullptr;
  }

  static constexpr int kMaxDepth = 64;
  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
  std::string error_;
};

}  // namespace

NodePtr parse_expression(std::string_view text, std::string& error) {
  Parser parser(text);
  return parser.parse_all(error);
}

}  // namespace ridge::calc::expr_detail

namespace ridge::calc {

std::vector<RateLiteral> expr_rate_literals(std::string_view text) {
  using namespace expr_detail;
  constexpr Dim kRate = dim(1, 0, -1, 0, 0, 0);
  auto trim = [](std::string_view s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string_view::npos) return std::string_view{};
    return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
  };
  std::vector<RateLiteral> out;
  std::string_view comment;  // a comment on the line just above, or empty
  bool seen_expr = false;
  int index = 0;
  for (size_t pos = 0; pos <= text.size(); ++index) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view t = trim(text.substr(pos, end - pos));
    pos = end + 1;
    std::string_view above = comment;
    comment = {};
    if (!seen_expr) {
      seen_expr = t.substr(0, 4) == "expr";
      continue;
    }
    if (t.empty()) continue;
    if (t[0] == '#') {
      comment = trim(t.substr(1));
      continue;
    }
    size_t eq = t.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view body = trim(t.substr(eq + 1));
    if (size_t as = body.rfind(" as "); as != std::string_view::npos) body = trim(body.substr(0, as));
    std::string error;
    NodePtr tree = parse_expression(body, error);
    if (!tree) continue;
    // Depth-first over the tree; the parser bounds its depth, so the stack stays small.
    std::vector<const Node*> stack{tree.get()};
    std::vector<const Node*> found;
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (n->kind == Node::kLiteral && !n->unit_only && n->val.dim == kRate) found.push_back(n);
      for (auto it = n->kids.rbegin(); it != n->kids.rend(); ++it) stack.push_back(it->get());
    }
    for (const Node* n : found) {
      out.push_back({index, std::string(trim(t.substr(0, eq))), n->text, n->val.value, std::string(above)});
    }
  }
  return out;
}

}  // namespace ridge::calc
