#include "diagram/diagrams.h"

#include <cmath>
#include <cstdlib>
#include <map>

#include "diagram/diagrams_internal.h"

namespace ridge::diagram {

using calc::Derivation;
using calc::FieldError;
using calc::Given;
using calc::Result;

namespace detail {

std::string take(Given& params, const std::string& key, const std::string& fallback) {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  std::string v = it->second;
  params.erase(it);
  return v;
}

Result<double> take_number(Given& params, const std::string& key, double fallback, double lo, double hi) {
  std::string v = take(params, key);
  if (v.empty()) return fallback;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != 0 || !std::isfinite(d) || d < lo || d > hi) {
    return FieldError{key, v, "is not a number in range", calc::format_significant(lo, 6) + " to " + calc::format_significant(hi, 6)};
  }
  return d;
}

double result(const Derivation& d, const char* key) {
  const calc::NamedResult* r = d.find(key);
  return r ? r->value : 0;
}

std::string q(double v, calc::Unit u) { return calc::format_quantity(v, u); }

double input_value(const calc::Registry& registry, const Derivation& d, const std::string& name) {
  const calc::Calculator* c = registry.find(d.calculator());
  if (c == nullptr) return 0;
  for (const auto& in : d.inputs()) {
    if (in.name != name) continue;
    for (const auto& spec : c->params) {
      if (spec.name != name) continue;
      auto v = calc::parse_number(spec, in.raw);
      return v.ok() ? *v : 0;
    }
  }
  for (const auto& spec : c->params) {  // not given: the default
    if (spec.name == name && !spec.default_value.empty()) {
      auto v = calc::parse_number(spec, spec.default_value);
      return v.ok() ? *v : 0;
    }
  }
  return 0;
}

}  // namespace detail

const std::vector<std::string>& kinds() {
  static const std::vector<std::string> k = {"roofline", "pipeline", "ring", "kv-blocks", "memory", "checkpoint", "step-waterfall"};
  return k;
}

Given inputs_of(const Derivation& d) {
  Given g;
  for (const auto& in : d.inputs()) g[in.name] = in.raw;
  return g;
}

std::optional<std::string> kind_for_calculator(const std::string& calculator) {
  static const std::map<std::string, std::string> m = {{"fit", "memory"},        {"roofline", "roofline"},
                                                       {"checkpoint", "checkpoint"}, {"pipeline-bubble", "pipeline"},
                                                       {"allreduce", "ring"}};
  auto it = m.find(calculator);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

Result<Rendered> draw(const std::string& kind, const Given& given, const calc::Registry& registry,
                      const calc::Catalog& catalog, const Options& options, const Derivation* from) {
  Given params;
  for (const auto& [k, v] : given) params[calc::normalize_param_name(k)] = v;
  std::string from_id = params.count("from") ? params.at("from") : "";
  params.erase("from");
  if (from != nullptr) {
    static const std::map<std::string, std::string> source = {{"roofline", "roofline"}, {"pipeline", "pipeline-bubble"},
                                                              {"ring", "allreduce"},    {"memory", "fit"},
                                                              {"checkpoint", "checkpoint"}, {"step-waterfall", "mfu"}};
    auto expected = source.find(kind);
    if (expected == source.end() || expected->second != from->calculator()) {
      return FieldError{"from", from_id, "is a " + from->calculator() + " block; a " + kind + " diagram " +
                                              (expected == source.end() ? "takes only its own parameters"
                                                                        : "draws from a " + expected->second + " block"),
                        expected == source.end() ? "no from=" : "from=ID of a " + expected->second + " block"};
    }
    for (const auto& [k, v] : inputs_of(*from)) params.emplace(k, v);
    if (kind == "roofline" && from->calculator() == "roofline" && from->find("intensity") && !params.count("kernels")) {
      params["kernels"] = "kernel@" + calc::format_significant(from->find("intensity")->value, 6);
      params.erase("flops");
      params.erase("bytes");
    }
  }
  if (kind == "roofline") return detail::roofline(params, registry, catalog, options);
  if (kind == "pipeline") return detail::pipeline(params, registry, catalog, options);
  if (kind == "ring") return detail::ring(params, registry, catalog, options);
  if (kind == "kv-blocks") return detail::kv_blocks(params, options);
  if (kind == "memory") return detail::memory(params, registry, catalog, options);
  if (kind == "checkpoint") return detail::checkpoint(params, registry, catalog, options);
  if (kind == "step-waterfall") return detail::waterfall(params, registry, catalog, options);
  std::string list;
  for (const auto& k : kinds()) list += (list.empty() ? "" : ", ") + k;
  return FieldError{"kind", kind, "is not a diagram kind", list};
}

}  // namespace ridge::diagram
