#include "web/routes/calc_routes.h"

#include <nlohmann/json.hpp>

#include "calc/model.h"
#include "diagram/diagrams.h"
#include "web/routes/response.h"

namespace ridge::web::routes {

using nlohmann::ordered_json;

namespace {

calc::Given given_from(const Request& req) {
  calc::Given given;
  for (const auto& [k, v] : req.query) {
    if (v.empty()) continue;  // an empty form field means "not given"
    given[calc::normalize_param_name(k)] = v;
  }
  return given;
}

// A calculator call's cache key: the calculator and the inputs as the engine reads them
// (names normalized, empty fields dropped, the last of a repeated field, sorted by name), so
// "?Context=8&gpu=h100-sxm" and "?gpu=h100-sxm&context=8" share one entry. Values are kept as
// given: the JSON echoes them ("inputs"), so "32k" and "32768" are two answers.
std::string calc_key(const std::string& name, const calc::Given& given) {
  std::vector<std::pair<std::string_view, std::string_view>> parts(given.begin(), given.end());
  return cache_key(name, parts);
}

// Appended to a calculator key for its refusal (400): a key's parts each start with a digit,
// so no answer's key ends this way.
constexpr std::string_view kRefusalSuffix = "\x01refused";

}  // namespace

std::shared_ptr<const std::string> cached_calc_answer(const Request& req, const Params& p, const Context& ctx) {
  auto name = p.find("name");
  if (name == p.end()) return nullptr;
  std::string key = calc_key(name->second, given_from(req));
  if (auto hit = ctx.calc_cache.find(key)) return hit;
  return ctx.calc_cache.find(key + std::string(kRefusalSuffix));
}

Response calc_page(const Request& req, const Params& p, const Context& ctx) {
  const calc::Calculator* c = ctx.registry.find(p.at("name"));
  if (c == nullptr) return error(req, ctx, 404, "There is no calculator '" + p.at("name") + "'; see /calc.");
  calc::Given given = given_from(req);
  if (given.empty()) return page(ctx, req.path);
  auto d = ctx.registry.evaluate(c->name, given, ctx.catalog);
  Response r;
  r.body = calculator_page(ctx.site(), *c, given, &d);
  return r;
}

Response calc_diagram(const Request& req, const Params& p, const Context& ctx) {
  const calc::Calculator* c = ctx.registry.find(p.at("name"));
  auto kind = c ? diagram::kind_for_calculator(c->name) : std::nullopt;
  if (!kind) return error(req, ctx, 404, "There is no diagram for '" + p.at("name") + "'.");
  calc::Given given = given_from(req);
  if (given.empty()) given = example_values(*c);
  auto d = ctx.registry.evaluate(c->name, given, ctx.catalog);
  if (!d) return plain_error(400, calc::to_string(d.errors()));
  diagram::Options options;
  options.standalone = true;
  auto drawn = diagram::draw(*kind, {}, ctx.registry, ctx.catalog, options, &*d);
  if (!drawn) return plain_error(400, calc::to_string(drawn.errors()));
  Response r;
  r.content_type = "image/svg+xml";
  r.body = drawn->svg;
  // An image's own stylesheet is inline (<style> in the SVG): allow that, and nothing else.
  r.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  r.set("X-Content-Type-Options", "nosniff");
  r.set("Cache-Control", "public, max-age=300");
  r.prebuilt_headers = nullptr;
  return r;
}

Response api_calc_list(const Request&, const Context& ctx) {
  ordered_json list = ordered_json::array();
  for (const auto& c : ctx.registry.all()) {
    ordered_json params = ordered_json::array();
    for (const auto& s : c.params) {
      if (s.type == calc::ParamType::kConfig) continue;
      ordered_json spec = {{"name", s.name},
                           {"type", calc::type_name(s.type)},
                           {"unit", calc::unit_symbol(s.unit)},
                           {"default", s.default_value},
                           {"required", s.required},
                           {"help", s.help},
                           {"accepted", calc::accepted_range(s, ctx.catalog)}};
      if (s.type == calc::ParamType::kNumber || s.type == calc::ParamType::kCount) {
        spec["min"] = s.min;
        spec["max"] = s.max;
      }
      params.push_back(spec);
    }
    list.push_back({{"name", c.name}, {"summary", c.summary}, {"params", params}, {"results", c.result_keys},
                    {"url", "/api/calc/" + c.name}});
  }
  return json_text(200, ordered_json{{"calculators", list}}.dump(2) + "\n");
}

Response api_calc(const Request& req, const Params& p, const Context& ctx) {
  if (ctx.registry.find(p.at("name")) == nullptr) {
    return json_error(404, field_errors({{"calculator", p.at("name"), "is not a known calculator", ctx.registry.name_list()}}));
  }
  // Every input is in the key and the engine reads nothing else (no files, no clock): the
  // same key is the same bytes for everyone, so one rendering serves every later call.
  calc::Given given = given_from(req);
  std::string key = calc_key(p.at("name"), given);
  Response r = json_text(200, "");
  if (auto hit = ctx.calc_cache.find(key)) {
    r.held_body = std::move(hit);
    r.shareable = true;
    return r;
  }
  // A refusal is as deterministic as an answer, and as costly to compute: it is kept too,
  // under its own key, so a repeated hostile call is answered from memory.
  const std::string refusal_key = key + std::string(kRefusalSuffix);
  if (auto hit = ctx.calc_cache.find(refusal_key)) {
    r.status = 400;
    r.set("Cache-Control", "no-store");
    r.held_body = std::move(hit);
    return r;
  }
  auto d = ctx.registry.evaluate(p.at("name"), given, ctx.catalog);
  if (!d) {
    Response refused = json_error(400, field_errors(d.errors()));
    r.status = 400;
    r.set("Cache-Control", "no-store");
    r.held_body = ctx.calc_cache.insert(refusal_key, std::move(refused.body));
    return r;
  }
  r.held_body = ctx.calc_cache.insert(key, calc::render_json(*d) + "\n");
  r.shareable = true;
  return r;
}

Response api_calc_post(const Request& req, const Params& p, const Context& ctx) {
  // {"config": <a config.json object>, "<param>": value, ...}: what `ridge calc NAME --config
  // FILE ...` prints with --json. The config is parsed by the same engine, never read from disk.
  const calc::Calculator* c = ctx.registry.find(p.at("name"));
  if (c == nullptr) {
    return json_error(404, field_errors({{"calculator", p.at("name"), "is not a known calculator", ctx.registry.name_list()}}));
  }
  if (int depth = calc::json_nesting_depth(req.body); depth > 40) {
    return json_error(400, field_errors({{"body", "", "nests " + std::to_string(depth) + " levels deep", "a JSON object nested at most 40 deep"}}));
  }
  nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return json_error(400, field_errors({{"body", "", "is not a JSON object", "{\"config\": {...}, \"gpu\": \"h100-sxm\", ...}"}}));
  }
  calc::Given given = given_from(req);
  std::string config_text;
  for (const auto& [k, v] : body.items()) {
    if (k == "config") {
      if (!v.is_object()) return json_error(400, field_errors({{"config", "", "must be a config.json object", "{\"hidden_size\": ..., ...}"}}));
      config_text = v.dump();
      continue;
    }
    std::string value = v.is_string() ? v.get<std::string>() : v.is_number() || v.is_boolean() ? v.dump() : "";
    if (value.empty()) {
      return json_error(400, field_errors({{k.substr(0, 80), "", "must be a string or a number", "a value as the CLI takes it"}}));
    }
    given[calc::normalize_param_name(k)] = value;
  }
  calc::Catalog catalog = ctx.catalog;
  if (!config_text.empty()) {
    given["config"] = "config.json";
    catalog.read_config = [&config_text](const std::string&) -> calc::Result<std::string> { return config_text; };
  }
  auto d = ctx.registry.evaluate(c->name, given, catalog);
  if (!d) return json_error(400, field_errors(d.errors()));
  return json_text(200, calc::render_json(*d) + "\n");
}

}  // namespace ridge::web::routes
