// Stage 3 of loading a document: the calc blocks, each a calculator call or arithmetic between
// earlier results, evaluated once through the engine; a literal that retypes a result is refused.
#include "bank/loader_stages.h"

#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "calc/expr.h"
#include "calc/params.h"
#include "bank/checks.h"
#include "bank/lint.h"

namespace ridge::bank::stages {

namespace {

// Significant digits of a literal as written ("22.76" -> 4, "1000" -> 1, "0.186" -> 3).
int significant_digits(std::string_view text) {
  std::string digits;
  bool seen_dot = false;
  for (char c : text) {
    if (c == '.') seen_dot = true;
    if (c == 'e' || c == 'E') break;
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  size_t a = digits.find_first_not_of('0');
  if (a == std::string::npos) return 0;
  digits = digits.substr(a);
  if (!seen_dot) digits = digits.substr(0, digits.find_last_not_of('0') + 1);
  return static_cast<int>(digits.size());
}

bool same_to_3_digits(double a, double b) {
  if (a == 0 || b == 0) return false;
  double scale = std::pow(10.0, std::floor(std::log10(std::fabs(a))) - 2);
  return std::llround(a / scale) == std::llround(b / scale);
}

// A literal (`written`, or any literal when `written` is empty and the value has three or
// more significant digits) equal to an earlier result to three significant digits was
// retyped by hand: say which reference to use instead.
void check_retyped(double value, const std::string& written,
                   const std::map<std::string, const calc::Derivation*>& results, const std::string& file, int line,
                   const std::string& id, std::vector<Diagnostic>& diags) {
  if (!written.empty() && significant_digits(written) < 3) return;
  // Powers of two are sizes chosen on purpose (a context, a GPU count), not copies.
  if (value >= 1 && value == std::floor(value) && std::fmod(std::log2(value), 1.0) == 0) return;
  if (written.empty()) {
    // expr literals come in base units; a round constant (8, 1e6, 730) is not a copy.
    double m = std::fabs(value);
    if (m == 0) return;
    double scaled = m / std::pow(10.0, std::floor(std::log10(m)) - 2);
    if (std::fabs(scaled - std::round(scaled / 10) * 10) < 1e-6) return;  // two significant digits or fewer
  }
  for (const auto& [rid, d] : results) {
    if (d == nullptr) continue;
    for (const auto& r : d->results()) {
      if (r.unit == calc::Unit::kBool) continue;
      if (same_to_3_digits(value, r.value)) {
        diags.push_back({file, line, "calc " + id + ": the literal " + (written.empty() ? calc::format_significant(value, 4) : written) +
                                         " equals an earlier result: use {{" + rid + "." + r.key + "}}"});
        return;
      }
    }
  }
}


bool is_calc_block(const Block& b) {
  return b.fenced && b.info.rfind("calc", 0) == 0 && (b.info.size() == 4 || b.info[4] == ' ');
}

// The header "calc id=kv" or "calc id=kv hidden" into `cb`; false when it names no id.
bool read_calc_header(const Block& b, CalcBlock& cb, const std::string& file, std::vector<Diagnostic>& diags) {
  std::istringstream words(b.info.substr(4));
  std::string word;
  while (words >> word) {
    if (word.rfind("id=", 0) == 0) {
      cb.id = word.substr(3);
    } else if (word == "hidden") {
      cb.hidden = true;
    } else {
      diags.push_back({file, cb.line, "calc block header: '" + word + "' is not id=NAME or hidden"});
    }
  }
  if (cb.id.empty()) {
    diags.push_back({file, cb.line, "calc block needs an id: ```calc id=NAME"});
    return false;
  }
  return true;
}

// The id a calc block's header names ("" when none), without reporting anything.
std::string block_id(const Block& b) {
  std::istringstream words(b.info.substr(4));
  std::string word;
  while (words >> word) {
    if (word.rfind("id=", 0) == 0) return word.substr(3);
  }
  return "";
}

// A calculator call with {{id.key}} substituted from `results`; false with `error` set.
bool evaluate_call(std::string_view text, const Results& results, const calc::Registry& registry,
                   const calc::Catalog& catalog, const std::string& override_flag, const std::string& override_value,
                   std::optional<calc::Derivation>& out, std::string& error) {
  std::vector<Diagnostic> local;
  std::string call_text = substitute_references(text, results, 1, "", local, /*raw=*/true);
  if (!local.empty()) {
    error = local.front().message;
    return false;
  }
  CalcCall call;
  if (!parse_call(call_text, call, error)) return false;
  if (!override_flag.empty()) {
    std::string written;
    for (const auto& [key, value] : call.args) {
      if (calc::normalize_param_name(key) == calc::normalize_param_name(override_flag)) written = key;
    }
    if (written.empty()) {
      std::string flags;
      for (const auto& [key, value] : call.args) flags += (flags.empty() ? "" : ", ") + key;
      error = "the block writes no " + override_flag + "= (a what-if varies an input the answer states); it writes " + flags;
      return false;
    }
    call.args[written] = override_value;
  }
  if (registry.find(call.calculator) == nullptr) {
    error = "'" + call.calculator + "' is not a calculator";
    return false;
  }
  auto d = registry.evaluate(call.calculator, call.args, catalog);
  if (!d) {
    error = d.errors().front().to_string();
    return false;
  }
  out = std::move(d).value();
  return true;
}

// The world of range() and breakeven() on a calculator block's flag ("srv.mfu"): that block
// evaluated again with the flag changed, then every later block up to the current one that
// refers to a changed block, in order. The work is bounded by the blocks of one document.
class BlockWhatIf {
 public:
  BlockWhatIf(const std::vector<Block>& blocks, size_t current, const Results& results, const calc::Registry& registry,
              const calc::Catalog& catalog)
      : blocks_(blocks), current_(current), results_(results), registry_(registry), catalog_(catalog) {}

  calc::Result<calc::ReferenceLookup> operator()(std::string_view input, double base, const std::string& value) const {
    const size_t dot = input.find('.');
    const std::string id(input.substr(0, dot)), flag(input.substr(dot + 1));
    size_t first = blocks_.size();
    for (size_t i = 0; i < current_; ++i) {
      if (is_calc_block(blocks_[i]) && block_id(blocks_[i]) == id) first = i;
    }
    if (first == blocks_.size()) {
      return calc::FieldError{std::string(input), value, "'" + id + "' is not an earlier calc block",
                              "block.flag: the id of an earlier calculator call and one of its flags"};
    }
    auto world = std::make_shared<World>();
    world->results = results_;
    std::vector<std::string> changed;
    for (size_t i = first; i < current_; ++i) {
      const Block& b = blocks_[i];
      if (!is_calc_block(b)) continue;
      const std::string bid = block_id(b);
      bool depends = i == first;
      for (const auto& c : changed) depends = depends || b.text.find("{{" + c + ".") != std::string_view::npos;
      if (!depends || bid.empty()) continue;
      std::optional<calc::Derivation> d;
      std::string error;
      if (calc::is_expr_block(b.text)) {
        const Results& r = world->results;
        auto lookup = [&r](std::string_view ref) { return calc::lookup_result(ref, r); };
        calc::LineOverride line{flag, base};
        auto e = calc::evaluate_expr_with(b.text, lookup, nullptr, nullptr, i == first ? &line : nullptr);
        if (!e) {
          error = e.errors().front().to_string();
        } else {
          d = std::move(e).value();
        }
      } else {
        evaluate_call(b.text, world->results, registry_, catalog_, i == first ? flag : "", value, d, error);
      }
      if (!d) return calc::FieldError{std::string(input), value, "block " + bid + " fails: " + error, "a value the chain accepts"};
      world->owned.push_back(std::make_unique<calc::Derivation>(std::move(*d)));
      world->results[bid] = world->owned.back().get();
      changed.push_back(bid);
    }
    return calc::ReferenceLookup([world](std::string_view ref) { return calc::lookup_result(ref, world->results); });
  }

 private:
  struct World {
    Results results;
    std::vector<std::unique_ptr<calc::Derivation>> owned;
  };
  const std::vector<Block>& blocks_;
  size_t current_;
  const Results& results_;
  const calc::Registry& registry_;
  const calc::Catalog& catalog_;
};

// True when `input` ("srv.batch") is a flag its block's calculator takes as a whole number.
bool flag_is_count(const std::vector<Block>& blocks, size_t current, const calc::Registry& registry,
                   std::string_view input) {
  const size_t dot = input.find('.');
  const std::string id(input.substr(0, dot));
  const std::string flag = calc::normalize_param_name(input.substr(dot + 1));
  for (size_t i = 0; i < current; ++i) {
    if (!is_calc_block(blocks[i]) || block_id(blocks[i]) != id || calc::is_expr_block(blocks[i].text)) continue;
    CalcCall call;
    std::string error;
    if (!parse_call(blocks[i].text, call, error)) return false;
    const calc::Calculator* c = registry.find(call.calculator);
    if (c == nullptr) return false;
    for (const calc::ParamSpec& p : c->params) {
      if (p.name == flag) return p.type == calc::ParamType::kCount;
    }
  }
  return false;
}

// Arithmetic between results: references are resolved by the expr engine itself, so its
// steps show which result each number came from.
void evaluate_expr_block(const Block& b, const Results& results, const calc::WhatIf& what_if, const calc::Catalog& catalog,
                         const LoadOptions& options, const std::string& file, CalcBlock& cb,
                         std::vector<Diagnostic>& diags) {
  cb.call = std::string(b.text.substr(0, b.text.find_last_not_of(" \n") + 1));
  auto lookup = [&](std::string_view ref) -> std::optional<calc::Quantity> { return calc::lookup_result(ref, results); };
  std::vector<calc::Quantity> literals;
  auto d = calc::evaluate_expr_with(b.text, lookup, &literals, &what_if);
  if (d) {
    cb.derivation = std::move(d).value();
  } else {
    for (const auto& e : d.errors()) diags.push_back({file, b.line, "calc " + cb.id + ": " + e.to_string()});
  }
  if (options.lint) {
    for (const auto& lit : literals) check_retyped(lit.value, "", results, file, b.line, cb.id, diags);
    // One network: a link rate the catalog holds is read from it, not typed.
    check_typed_link_literals(b.text, b.line, catalog.hardware, file, cb.id, diags);
  }
}

// A calculator call: "fit model=... gpu=..." with {{id.key}} references substituted.
void evaluate_call_block(const Block& b, const Results& results, const calc::Registry& registry,
                         const calc::Catalog& catalog, const LoadOptions& options, const std::string& file, CalcBlock& cb,
                         std::vector<Diagnostic>& diags) {
  std::string call_text = substitute_references(b.text, results, b.line, file, diags, /*raw=*/true);
  cb.call = std::string(call_text.substr(0, call_text.find_last_not_of(" \n") + 1));
  if (options.lint) {
    // A literal input that equals an earlier result was copied by hand: pass it by reference.
    std::istringstream args(b.text);
    std::string arg;
    while (args >> arg) {
      size_t eq = arg.find('=');
      if (eq == std::string::npos || arg.find("{{") != std::string::npos) continue;
      std::string value = arg.substr(eq + 1);
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (end == value.c_str()) continue;
      check_retyped(v, value.substr(0, static_cast<size_t>(end - value.c_str())), results, file, b.line, cb.id, diags);
    }
  }
  if (options.lint) {
    // One network: a link rate the catalog holds is named, not typed.
    CalcCall written;
    std::string ignored;
    if (parse_call(b.text, written, ignored)) {
      check_typed_links(written.calculator, written.args, catalog.hardware, file, b.line, cb.id, diags);
    }
  }
  CalcCall call;
  std::string error;
  if (!parse_call(call_text, call, error)) {
    diags.push_back({file, b.line, "calc " + cb.id + ": " + error});
  } else if (registry.find(call.calculator) == nullptr) {
    diags.push_back({file, b.line, "calc " + cb.id + ": '" + call.calculator + "' is not a calculator; accepted: " +
                                       registry.name_list()});
  } else {
    auto d = registry.evaluate(call.calculator, call.args, catalog);
    if (d) {
      cb.derivation = std::move(d).value();
    } else {
      for (const auto& e : d.errors()) diags.push_back({file, b.line, "calc " + cb.id + ": " + e.to_string()});
    }
  }
}

}  // namespace

// Stage 3: every calc block in order (a later block may use an earlier one's result).
Results evaluate_calcs(const std::vector<Block>& blocks, const calc::Registry& registry, const calc::Catalog& catalog,
                       const LoadOptions& options, const std::string& file, Question& q, std::vector<Diagnostic>& diags,
                       const std::set<std::string, std::less<>>* only) {
  Results results;
  q.calcs.reserve(blocks.size());
  for (size_t index = 0; index < blocks.size(); ++index) {
    const Block& b = blocks[index];
    if (!is_calc_block(b)) continue;
    CalcBlock cb;
    cb.line = b.line - 1;
    if (!read_calc_header(b, cb, file, diags)) continue;
    if (results.count(cb.id)) {
      diags.push_back({file, cb.line, "calc block id '" + cb.id + "' is used twice"});
      continue;
    }
    if (only != nullptr && only->count(cb.id) == 0) {  // not quoted at start-up: on first request
      q.calcs.push_back(std::move(cb));
      results[q.calcs.back().id] = nullptr;
      continue;
    }
    if (calc::is_expr_block(b.text)) {
      calc::WhatIf what_if;
      what_if.evaluate = BlockWhatIf(blocks, index, results, registry, catalog);
      what_if.whole = [&registry, &blocks, index](std::string_view input) {
        return flag_is_count(blocks, index, registry, input);
      };
      evaluate_expr_block(b, results, what_if, catalog, options, file, cb, diags);
    } else {
      evaluate_call_block(b, results, registry, catalog, options, file, cb, diags);
    }
    q.calcs.push_back(std::move(cb));
    results[q.calcs.back().id] = q.calcs.back().derivation ? &*q.calcs.back().derivation : nullptr;
  }
  return results;
}

namespace {

bool id_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Whether `text` names block `id` as a block is named in another's text: "{{id.key}}" in a
// call, "id.key" in an expression or a what-if. A superset is harmless (a block evaluated
// that need not be); a miss is not (the evaluation would fail, and then every block is).
bool names_block(std::string_view text, std::string_view id) {
  for (size_t pos = text.find(id); pos != std::string_view::npos; pos = text.find(id, pos + 1)) {
    size_t end = pos + id.size();
    if ((pos == 0 || !id_char(text[pos - 1])) && end < text.size() && text[end] == '.') return true;
  }
  return false;
}

// The ids the {{id.key}} references of `text` name.
void add_references(std::string_view text, std::set<std::string, std::less<>>& out) {
  for (size_t pos = text.find("{{"); pos != std::string_view::npos; pos = text.find("{{", pos + 2)) {
    size_t end = text.find_first_of(".}", pos + 2);
    if (end == std::string_view::npos) return;
    out.emplace(text.substr(pos + 2, end - pos - 2));
  }
}

}  // namespace

std::set<std::string, std::less<>> blocks_quoted(const std::vector<Block>& blocks, std::string_view tldr, bool with_prose) {
  std::set<std::string, std::less<>> needed;
  std::vector<std::pair<size_t, std::string>> ids;  // each calc block's index and id, in order
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (is_calc_block(blocks[i])) ids.emplace_back(i, block_id(blocks[i]));
  }
  if (ids.empty()) return needed;
  add_references(tldr, needed);
  if (with_prose) {
    for (const Block& b : blocks) {
      if (!b.fenced) add_references(b.text, needed);
    }
  }
  // A block names only earlier blocks: walking back once closes the set.
  for (size_t k = ids.size(); k-- > 0;) {
    if (!needed.count(ids[k].second)) continue;
    for (size_t j = 0; j < k; ++j) {
      if (!ids[j].second.empty() && names_block(blocks[ids[k].first].text, ids[j].second)) needed.insert(ids[j].second);
    }
  }
  return needed;
}

}  // namespace ridge::bank::stages
