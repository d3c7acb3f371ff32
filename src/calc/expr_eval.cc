// The expr engine's evaluator: one expression tree to a value with its dimensions, and the
// formula and substituted text a step shows.
#include <algorithm>
#include <cmath>
#include <set>

#include "calc/expr_internal.h"

namespace ridge::calc::expr_detail {

std::string shown(const Quantity& q) { return format_quantity(q.value, q.unit, 4); }

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
      if (n.text.find('.') != std::string::npos) {
        error = "'" + n.text + "' names a calc block's input, which only range() and breakeven() take; a result "
                "of another block is {{id.key}}";
        return std::nullopt;
      }
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
      if (n.text == "range" || n.text == "breakeven") {
        error = n.text + "() is a whole line of its own: NAME = " + n.text +
                (n.text == "range" ? "(result, input, low, high)" : "(result, input, threshold, low, high)");
        return std::nullopt;
      }
      if (!kFunctions.count(n.text)) {
        error = "'" + n.text + "' is not a function; accepted: ceil, exp, floor, ln, log2, max, min, round, sqrt, and range() and breakeven() as whole lines";
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

}  // namespace ridge::calc::expr_detail
