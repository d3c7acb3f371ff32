// The expr block: its lines in order (units named, steps shown), and the what-if functions
// range() and breakeven(), which evaluate the block's earlier lines (and, through the
// caller's WhatIf, the calc blocks they depend on) again with one input changed.
#include "calc/expr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "calc/expr_internal.h"

namespace ridge::calc {
namespace {

using namespace expr_detail;

std::string clip(std::string_view s) {
  return s.size() <= 80 ? std::string(s) : std::string(s.substr(0, 77)) + "...";
}

std::string trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

// One parsed line: `name = body [as UNIT]`.
struct Line {
  std::string name, body, as;
  NodePtr tree;
  enum Kind { kPlain, kRange, kBreakeven } kind = kPlain;
};

// The value a line keeps (base dimensions, for later lines) and shows (its named unit).
struct Named {
  Val kept;
  Quantity shown;
};

// Names the unit of `v`: the one `as` asks for, or the one its dimensions infer.
Result<Named> name_unit(const Line& line, const Val& v) {
  const NamedUnit* chosen = nullptr;
  const NamedUnit* inferred = nullptr;
  for (const auto& u : named_units()) {
    if (!inferred && u.dim == v.dim && u.as != "%" && u.as != "h" && u.as != "days") inferred = &u;
    if (!line.as.empty() && u.as == line.as) chosen = &u;
  }
  if (!line.as.empty() && !chosen) return FieldError{line.name, line.as, "is not a unit an expr result can have", as_list()};
  double value = v.value;
  Unit unit = Unit::kCount;
  if (chosen) {
    // A plain number may be named any unit (`x as W`); a quantity only its own (or count).
    if (inferred && chosen->dim != v.dim && chosen->unit != Unit::kCount && v.dim != kScalar) {
      return FieldError{line.name, "as " + line.as, "the expression is " + dim_name(v.dim) + ", not " + line.as,
                        std::string("as ") + std::string(inferred->as) + " or no 'as'"};
    }
    unit = chosen->unit;
    if (chosen->dim == v.dim) value *= chosen->per_base;  // otherwise: named by the author, value kept
  } else if (inferred) {
    unit = inferred->unit;
    value *= inferred->per_base;
  } else {
    return FieldError{line.name, clip(line.body), "its unit, " + dim_name(v.dim) + ", has no name in the engine",
                      "end the line with 'as UNIT', one of " + as_list()};
  }
  // A result renamed with `as` to another unit (as count) is that unit from here on.
  Val kept = v;
  if (chosen && chosen->dim != v.dim) kept = to_val(Quantity{value, unit});
  return Named{kept, Quantity{value, unit}};
}

struct Plain {
  Eval e;
  Named n;
};

// Evaluates one plain line in `env`.
Result<Plain> run_plain(const Line& line, Env& env) {
  std::string error;
  auto e = eval(*line.tree, env, error);
  if (!e) return FieldError{line.name, clip(line.body), error, "quantities whose units agree"};
  if (!std::isfinite(e->val.value)) return FieldError{line.name, clip(line.body), "is not a finite number", "a finite result"};
  auto n = name_unit(line, e->val);
  if (!n) return n.errors();
  return Plain{std::move(*e), *n};
}

// The lines before `upto` again, with `lookup` for references and the line named `override`
// (if any) set to `value` instead of its expression. range() and breakeven() lines are left
// out: a what-if does not nest. The names, or the first error.
Result<Env> replay(const std::vector<Line>& lines, size_t upto, const ReferenceLookup& lookup, std::string_view override,
                   const Val& value) {
  Env env;
  env.lookup = &lookup;
  for (size_t i = 0; i < upto && i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (!line.tree || line.kind != Line::kPlain) continue;
    if (line.name == override) {
      auto n = name_unit(line, value);
      if (!n) return n.errors();
      env.names[line.name] = {n->kept, n->shown};
      continue;
    }
    auto p = run_plain(line, env);
    if (!p) return p.errors();
    env.names[line.name] = {p->n.kept, p->n.shown};
  }
  return env;
}

// A flag's value as it would be typed, from base units: the engine's params read B, B/s, s and
// W with these suffixes, and a USD rate per hour.
std::string flag_text(const Val& v) {
  double x = v.value;
  std::string suffix;
  if (v.dim == dim(1, 0, 0, 0, 0, 0)) suffix = "B";
  if (v.dim == dim(1, 0, -1, 0, 0, 0)) suffix = "B/s";
  if (v.dim == dim(0, 0, 1, 0, 0, 0)) suffix = "s";
  if (v.dim == dim(0, 0, 0, 0, 0, 1)) suffix = "W";
  if (v.dim == dim(0, 0, -1, 1, 0, 0)) x *= 3600;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", x);
  return buf + suffix;
}

bool whole(double x) { return std::fabs(x - std::round(x)) < 1e-9 * std::max(1.0, std::fabs(x)); }

// One what-if line: RESULT evaluated as a function of INPUT.
class WhatIfLine {
 public:
  WhatIfLine(const std::vector<Line>& lines, size_t index, const Env& env, const WhatIf* what_if)
      : lines_(lines), index_(index), env_(env), what_if_(what_if), line_(lines[index]) {}

  Result<Derivation*> run(Derivation& d, Env& env) {
    const Node& call = *line_.tree;
    const bool range = line_.kind == Line::kRange;
    const size_t want = range ? 4 : 5;
    if (call.kids.size() != want) {
      return fail(call.text + "() takes " + std::to_string(want) + " arguments, not " + std::to_string(call.kids.size()),
                  usage());
    }
    // The result: an earlier line or a reference.
    const Node& result = *call.kids[0];
    if (result.kind == Node::kRef) {
      result_ref_ = result.text;
      if (!(*env_.lookup)(result_ref_)) return fail("{{" + result_ref_ + "}} is not a result of an earlier calc block", usage());
      result_text_ = result_ref_;
    } else if (result.kind == Node::kName && result.text.find('.') == std::string::npos) {
      if (!env_.names.count(result.text)) return fail("'" + result.text + "' is not an earlier line of this block", usage());
      result_name_ = result.text;
      result_text_ = result.text;
    } else {
      return fail("the first argument is the result: an earlier line's name or {{id.key}}", usage());
    }
    // The input: an earlier line, or a calc block's flag.
    const Node& input = *call.kids[1];
    if (input.kind != Node::kName) return fail("the second argument is the input: an earlier line or block.flag", usage());
    input_ = input.text;
    flag_ = input_.find('.') != std::string::npos;
    if (flag_ && what_if_ == nullptr) return fail("'" + input_ + "': no calc blocks can be varied here", "an earlier line of this block");
    if (!flag_) {
      auto it = env_.names.find(input_);
      if (it == env_.names.end()) return fail("'" + input_ + "' is not an earlier line of this block", usage());
      input_dim_ = it->second.first.dim;
      input_shown_unit_ = it->second.second.unit;
      input_whole_ = whole(it->second.second.value);
    }
    // The bounds (and the threshold) in this block's environment.
    std::vector<Eval> bounds;
    Env scratch = env_;
    scratch.literals = env.literals;
    for (size_t k = 2; k < call.kids.size(); ++k) {
      std::string error;
      auto e = eval(*call.kids[k], scratch, error);
      if (!e) return fail(error, "quantities whose units agree");
      bounds.push_back(std::move(*e));
    }
    for (const auto& r : scratch.refs_used) {
      bool known = false;
      for (const auto& [name, _] : env.refs_used) known = known || name == r.first;
      if (!known) env.refs_used.push_back(r);
    }
    const Eval& low = bounds[range ? 0 : 1];
    const Eval& high = bounds[range ? 1 : 2];
    if (flag_) {
      input_dim_ = low.val.dim;
      // A line of an earlier expr block (or a flag the calculator echoes as a result) has a
      // unit: the bounds must carry it.
      if (auto q = (*env_.lookup)(input_)) {
        input_dim_ = to_val(*q).dim;
        input_shown_unit_ = q->unit;
        input_whole_ = whole(q->value);
        echoed_ = true;
      }
    }
    for (const Eval* b : {&low, &high}) {
      if (b->val.dim != input_dim_) {
        return fail("the bound " + b->formula + " is " + dim_name(b->val.dim) + " but " + input_ + " is " + dim_name(input_dim_),
                    "bounds in the input's unit");
      }
    }
    if (!(low.val.value < high.val.value)) {
      return fail("the low bound " + low.substituted + " is not below the high bound " + high.substituted, "low < high");
    }
    // A count steps by one: a flag the calculator takes as a whole number, or a plain-number
    // line whose value is whole (gpus = 8).
    whole_ = whole(low.val.value) && whole(high.val.value) &&
             (flag_ && !echoed_ ? (what_if_->whole && what_if_->whole(input_)) : input_whole_ && input_dim_ == kScalar);
    // Sample the range: the two ends and 7 points between, to see that RESULT is monotone.
    std::vector<double> xs;
    for (int k = 0; k <= 8; ++k) {
      double x = low.val.value + (high.val.value - low.val.value) * k / 8.0;
      if (whole_) x = std::round(x);
      if (xs.empty() || x != xs.back()) xs.push_back(x);
    }
    std::vector<Point> ys;
    for (double x : xs) {
      auto p = at(x);
      if (!p) return p.errors();
      ys.push_back(*p);
    }
    if (range) return run_range(d, env, low, high, xs, ys);
    return run_breakeven(d, env, bounds[0], low, high, xs, ys);
  }

 private:
  struct Point {
    Val base;
    Quantity shown;
  };

  std::string usage() const {
    return line_.kind == Line::kRange ? "NAME = range(result, input, low, high)"
                                      : "NAME = breakeven(result, input, threshold, low, high)";
  }
  Errors fail(std::string message, std::string accepted) const {
    return Errors{{line_.name, clip(line_.body), std::move(message), std::move(accepted)}};
  }

  // RESULT with INPUT at `x` (base units).
  Result<Point> at(double x) {
    ReferenceLookup lookup = *env_.lookup;
    if (flag_) {
      auto world = what_if_->evaluate(input_, x, flag_text(Val{x, input_dim_}));
      if (!world) {
        Errors errors = world.errors();
        for (auto& e : errors) e.message = input_ + " = " + flag_text(Val{x, input_dim_}) + ": " + e.message;
        return errors;
      }
      lookup = *world;
    }
    if (!result_ref_.empty()) {
      auto q = lookup(result_ref_);
      if (!q) return fail("{{" + result_ref_ + "}} has no value when " + input_ + " changes", usage());
      return Point{to_val(*q), *q};
    }
    auto env = replay(lines_, index_, lookup, flag_ ? "" : input_, Val{x, input_dim_});
    if (!env) return env.errors();
    auto it = env->names.find(result_name_);
    if (it == env->names.end()) return fail("'" + result_name_ + "' has no value when " + input_ + " changes", usage());
    return Point{it->second.first, it->second.second};
  }

  // Values of the samples in order are non-decreasing or non-increasing (within rounding).
  static bool monotone(const std::vector<Point>& ys) {
    double scale = 0;
    for (const auto& y : ys) scale = std::max(scale, std::fabs(y.base.value));
    const double tol = 1e-9 * scale;
    bool up = true, down = true;
    for (size_t k = 1; k < ys.size(); ++k) {
      up = up && ys[k].base.value >= ys[k - 1].base.value - tol;
      down = down && ys[k].base.value <= ys[k - 1].base.value + tol;
    }
    return up || down;
  }
  std::string samples(const std::vector<double>& xs, const std::vector<Point>& ys) const {
    std::string out;
    for (size_t k = 0; k < ys.size(); ++k) {
      out += (k ? ", " : "") + shown(ys[k].shown) + " at " + input_shown(xs[k]);
    }
    return out;
  }
  // An input value in the input's unit ("45%", "96").
  std::string input_shown(double x) const {
    if (!flag_ || echoed_) {
      for (const auto& u : named_units()) {
        if (u.unit == input_shown_unit_ && u.dim == input_dim_) return shown(Quantity{x * u.per_base, u.unit});
      }
    }
    return flag_text(Val{x, input_dim_});
  }

  Result<Derivation*> run_range(Derivation& d, Env& env, const Eval& low, const Eval& high, const std::vector<double>& xs,
                                const std::vector<Point>& ys) {
    if (!line_.as.empty()) return fail("range() takes no 'as': its results have the result's unit", usage());
    if (!monotone(ys)) {
      return fail(result_text_ + " is not monotone in " + input_ + " between " + low.substituted + " and " + high.substituted +
                      ", so its ends do not bound it (" + samples(xs, ys) + ")",
                  "a low and high between which the result only rises or only falls");
    }
    const Point& lo = ys.front();
    const Point& hi = ys.back();
    const std::string what = result_text_ + " with " + input_ + " = ";
    d.step(line_.name + "_low", what + low.formula, what + low.substituted, lo.shown.value, lo.shown.unit);
    d.step(line_.name + "_high", what + high.formula, what + high.substituted, hi.shown.value, hi.shown.unit);
    d.result(line_.name + "_low", lo.shown.value, lo.shown.unit);
    d.result(line_.name + "_high", hi.shown.value, hi.shown.unit);
    env.names[line_.name + "_low"] = {lo.base, lo.shown};
    env.names[line_.name + "_high"] = {hi.base, hi.shown};
    return &d;
  }

  Result<Derivation*> run_breakeven(Derivation& d, Env& env, const Eval& threshold, const Eval& low, const Eval& high,
                                    const std::vector<double>& xs, const std::vector<Point>& ys) {
    const double t = threshold.val.value;
    if (threshold.val.dim != ys.front().base.dim) {
      return fail("the threshold " + threshold.substituted + " is " + dim_name(threshold.val.dim) + " but " + result_text_ +
                      " is " + dim_name(ys.front().base.dim),
                  "a threshold in the result's unit");
    }
    if (!monotone(ys)) {
      return fail(result_text_ + " is not monotone in " + input_ + " between " + low.substituted + " and " + high.substituted +
                      ", so a crossing is not unique (" + samples(xs, ys) + ")",
                  "a low and high between which the result only rises or only falls");
    }
    const double g_lo = ys.front().base.value - t, g_hi = ys.back().base.value - t;
    if ((g_lo > 0 && g_hi > 0) || (g_lo < 0 && g_hi < 0)) {
      return fail("no crossing: " + result_text_ + " is " + shown(ys.front().shown) + " at " + input_ + " = " +
                      low.substituted + " and " + shown(ys.back().shown) + " at " + high.substituted + ", both " +
                      (g_lo > 0 ? "above " : "below ") + threshold.substituted,
                  "a low and high between which " + result_text_ + " passes " + threshold.substituted);
    }
    // Bisection on [a, b] keeping the sign of g(a) = the low end's side of the threshold;
    // b is always on the other side (or on it). The loop is bounded: 64 halvings, or a
    // whole-number interval of one.
    // It starts from the two samples that bracket the crossing.
    const bool start_below = g_lo < 0;
    double a = low.val.value, b = high.val.value;
    for (size_t k = 1; k < ys.size(); ++k) {
      const double g = ys[k].base.value - t;
      if (start_below ? g >= 0 : g <= 0) {
        a = xs[k - 1];
        b = xs[k];
        break;
      }
    }
    if (g_lo == 0) b = a;
    for (int k = 0; k < 64 && b - a > (whole_ ? 1.0 : 1e-9 * std::max(std::fabs(a), std::fabs(b))); ++k) {
      double m = whole_ ? std::floor((a + b) / 2) : (a + b) / 2;
      if (whole_ && (m <= a || m >= b)) break;
      auto p = at(m);
      if (!p) return p.errors();
      const double g = p->base.value - t;
      bool same_side = start_below ? g < 0 : g > 0;
      (same_side ? a : b) = m;
    }
    const double x = whole_ ? b : (g_lo == 0 ? a : (a + b) / 2);
    Val xv{x, input_dim_};
    Quantity q;
    if (!line_.as.empty() || (flag_ && !echoed_)) {
      auto n = name_unit(line_, xv);
      if (!n) return n.errors();
      q = n->shown;
    } else {
      q = Quantity{x, input_shown_unit_};
      for (const auto& u : named_units()) {
        if (u.unit == input_shown_unit_ && u.dim == input_dim_) q.value = x * u.per_base;
      }
    }
    d.step(line_.name,
           input_ + " where " + result_text_ + " = " + threshold.formula + ", between " + low.formula + " and " + high.formula,
           input_ + " where " + result_text_ + " = " + threshold.substituted + ", between " + low.substituted + " and " +
               high.substituted + (whole_ ? " (first whole value)" : " (bisection)"),
           q.value, q.unit);
    d.result(line_.name, q.value, q.unit);
    env.names[line_.name] = {xv, q};
    return &d;
  }

  const std::vector<Line>& lines_;
  size_t index_;
  const Env& env_;
  const WhatIf* what_if_;
  const Line& line_;
  std::string result_ref_, result_name_, result_text_, input_;
  bool flag_ = false, whole_ = false, input_whole_ = false, echoed_ = false;
  Dim input_dim_ = kScalar;
  Unit input_shown_unit_ = Unit::kCount;
};

}  // namespace

bool is_expr_block(std::string_view text) {
  size_t a = text.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos || text.substr(a, 4) != "expr") return false;
  return a + 4 >= text.size() || !ident_char(text[a + 4]);
}

Result<Derivation> evaluate_expr(std::string_view text, const ReferenceLookup& lookup) {
  return evaluate_expr_with(text, lookup, nullptr, nullptr);
}

Result<Derivation> evaluate_expr_collecting(std::string_view text, const ReferenceLookup& lookup,
                                            std::vector<Quantity>* literals) {
  return evaluate_expr_with(text, lookup, literals, nullptr);
}

Result<Derivation> evaluate_expr_with(std::string_view text, const ReferenceLookup& lookup,
                                      std::vector<Quantity>* literals, const WhatIf* what_if,
                                      const LineOverride* override) {
  Derivation d("expr", "Arithmetic on earlier results");
  Errors errors;
  size_t a = text.find("expr");
  std::string_view rest = a == std::string_view::npos ? text : text.substr(a + 4);
  std::istringstream in{std::string(rest)};
  std::string raw;
  // Parse every line first, so a what-if line can evaluate the lines before it again.
  std::vector<Line> lines;
  std::map<std::string, bool, std::less<>> seen;
  while (std::getline(in, raw)) {
    std::string t = trim(raw);
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
    if (seen.count(name)) {
      errors.push_back({name, clip(t), "is assigned twice in this block", "each name once"});
      continue;
    }
    seen[name] = true;
    Line line;
    line.name = name;
    line.body = trim(std::string_view(t).substr(eq + 1));
    // An optional "as UNIT" at the end names the result's unit.
    if (size_t p = line.body.rfind(" as "); p != std::string::npos) {
      line.as = trim(std::string_view(line.body).substr(p + 4));
      line.body = trim(std::string_view(line.body).substr(0, p));
    }
    std::string error;
    line.tree = parse_expression(line.body, error);
    if (!line.tree) {
      errors.push_back({name, clip(line.body), error, "numbers with units, {{id.key}}, earlier names, + − × ÷ ^ ( ), "
                                                     "min max ceil floor round sqrt log2 ln exp, range() and breakeven()"});
    } else if (line.tree->kind == Node::kCall && (line.tree->text == "range" || line.tree->text == "breakeven")) {
      line.kind = line.tree->text == "range" ? Line::kRange : Line::kBreakeven;
    }
    lines.push_back(std::move(line));
  }
  Env env;
  env.lookup = &lookup;
  env.literals = literals;
  int assignments = 0;
  bool overridden = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (!line.tree) continue;
    if (line.kind != Line::kPlain) {
      WhatIfLine w(lines, i, env, what_if);
      auto r = w.run(d, env);
      if (!r) {
        errors.insert(errors.end(), r.errors().begin(), r.errors().end());
        continue;
      }
      ++assignments;
      continue;
    }
    auto p = run_plain(line, env);
    if (!p) {
      errors.insert(errors.end(), p.errors().begin(), p.errors().end());
      continue;
    }
    Plain plain = std::move(p).value();
    if (override != nullptr && line.name == override->name) {
      overridden = true;
      auto n = name_unit(line, Val{override->value, plain.e.val.dim});
      if (!n) return n.errors();
      plain.n = *n;
    }
    ++assignments;
    d.step(line.name, plain.e.formula, plain.e.substituted, plain.n.shown.value, plain.n.shown.unit);
    d.result(line.name, plain.n.shown.value, plain.n.shown.unit);
    env.names[line.name] = {plain.n.kept, plain.n.shown};
  }
  if (override != nullptr && !overridden && errors.empty()) {
    errors.push_back({override->name, "", "is not a line of this expr block", "a NAME = line of the block"});
  }
  if (assignments == 0 && errors.empty()) {
    errors.push_back({"expr", clip(text), "holds no assignment", "one NAME = EXPRESSION per line"});
  }
  if (!errors.empty()) return errors;
  for (const auto& [ref, q] : env.refs_used) d.add_input(ref, shown(q), format_significant(q.value, 6));
  return d;
}

std::optional<Quantity> lookup_result(std::string_view ref, const std::map<std::string, const Derivation*>& results) {
  size_t dot = ref.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto it = results.find(std::string(ref.substr(0, dot)));
  if (it == results.end() || it->second == nullptr) return std::nullopt;
  const NamedResult* r = it->second->find(ref.substr(dot + 1));
  if (r == nullptr) return std::nullopt;
  return Quantity{r->value, r->unit};
}

}  // namespace ridge::calc
