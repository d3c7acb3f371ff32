#include "web/export/openapi.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "calc/derivation.h"
#include "calc/params.h"
#include "web/pages.h"
#include "web/router.h"

namespace ridge::web::exports {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

ordered_json ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }
ordered_json str() { return {{"type", "string"}}; }
ordered_json strs() { return {{"type", "array"}, {"items", str()}}; }
ordered_json obj(ordered_json props, std::vector<std::string> required) {
  return {{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)}};
}
ordered_json map_of(ordered_json values) { return {{"type", "object"}, {"additionalProperties", std::move(values)}}; }

// The shapes the routes answer with (web/routes/*.cc, calc::render_json).
ordered_json schemas(const bank::Bank& bank) {
  ordered_json s;
  s["Errors"] = obj({{"errors", {{"type", "array"},
                                  {"items", obj({{"field", str()}, {"value", str()}, {"message", str()}, {"accepted", str()}},
                                                {"field", "value", "message", "accepted"})}}}},
                    {"errors"});
  s["PaymentRequired"] = s["Errors"];
  s["PaymentRequired"]["properties"]["price"] =
      obj({{"currency", str()}, {"amount", {{"type", "integer"}}}, {"display", str()}, {"months", {{"type", "integer"}}}},
          {"currency", "amount", "display", "months"});
  ordered_json topics = ordered_json::array();
  for (const auto& t : bank.topics) topics.push_back(t.id);
  s["QuestionSummary"] = obj({{"slug", str()},
                              {"title", str()},
                              {"summary", str()},
                              {"topic", {{"type", "string"}, {"enum", topics}}},
                              {"difficulty", {{"type", "string"}, {"enum", {"easy", "medium", "hard", "expert"}}}},
                              {"tracks", strs()},
                              {"concepts", strs()},
                              {"free", {{"type", "boolean"}}},
                              {"tldr", str()},
                              {"lab", str()},
                              {"updated", str()},
                              {"url", str()}},
                             {"slug", "title", "summary", "topic", "difficulty", "tracks", "concepts", "free", "updated", "url"});
  s["QuestionList"] = obj({{"questions", {{"type", "array"}, {"items", ref("QuestionSummary")}}}}, {"questions"});
  s["Question"] = s["QuestionSummary"];
  s["Question"]["properties"]["calcs"] =
      map_of(obj({{"call", str()}, {"results", map_of({{"type", "number"}})}}, {"call", "results"}));
  s["Question"]["properties"]["html"] = str();
  s["Question"]["required"].push_back("calcs");
  s["Question"]["required"].push_back("html");
  s["Derivation"] = obj({{"calculator", str()},
                         {"title", str()},
                         {"inputs", map_of(str())},
                         {"assumptions", strs()},
                         {"steps", {{"type", "array"},
                                    {"items", obj({{"label", str()}, {"formula", str()}, {"substituted", str()},
                                                   {"value", {{"type", "number"}}}, {"unit", str()}, {"display", str()}},
                                                  {"label", "formula", "substituted", "value", "unit", "display"})}}},
                         {"results", map_of({{"type", "number"}})},
                         {"units", map_of(str())},
                         {"display", map_of(str())},
                         {"conclusion", str()}},
                        {"calculator", "title", "inputs", "assumptions", "steps", "results", "units", "display", "conclusion"});
  ordered_json param = obj({{"name", str()}, {"type", str()}, {"unit", str()}, {"default", str()}, {"required", {{"type", "boolean"}}},
                            {"help", str()}, {"accepted", str()}, {"min", {{"type", "number"}}}, {"max", {{"type", "number"}}}},
                           {"name", "type", "unit", "default", "required", "help", "accepted"});
  s["CalculatorList"] = obj({{"calculators", {{"type", "array"},
                                              {"items", obj({{"name", str()}, {"summary", str()},
                                                             {"params", {{"type", "array"}, {"items", param}}},
                                                             {"results", strs()}, {"url", str()}},
                                                            {"name", "summary", "params", "results", "url"})}}}},
                            {"calculators"});
  s["SearchResults"] = obj({{"query", str()},
                            {"total", {{"type", "integer"}, {"minimum", 0}}},
                            {"timed_out", {{"type", "boolean"}}},
                            {"results", {{"type", "array"},
                                         {"items", obj({{"kind", {{"type", "string"}, {"enum", {"question", "concept"}}}}, {"id", str()},
                                                        {"title", str()}, {"url", str()}, {"topic", str()}, {"difficulty", str()}},
                                                       {"kind", "id", "title", "url"})}}}},
                           {"query", "total", "timed_out", "results"});
  s["Credentials"] = obj({{"email", str()}, {"password", str()}}, {"email", "password"});
  s["CsrfToken"] = obj({{"csrf_token", str()}}, {"csrf_token"});
  s["Empty"] = {{"type", "object"}};
  s["Me"] = obj({{"signed_in", {{"type", "boolean"}}}, {"email", str()}, {"csrf_token", str()}, {"account_id", str()},
                 {"access_until", {{"type", {"string", "null"}}}}, {"desired_retention", {{"type", "number"}}}},
                {"signed_in"});
  s["ReviewRequest"] = obj({{"slug", str()}, {"grade", {{"type", "integer"}, {"minimum", 1}, {"maximum", 4}}}}, {"slug", "grade"});
  s["WorkExercise"] = obj({{"slug", str()}, {"seed", str()}, {"signature", str()}, {"prompt", str()},
                          {"inputs", {{"type", "array"}}}, {"steps", {{"type", "array"}}}},
                         {"slug", "seed", "signature", "steps"});
  s["WorkGradeRequest"] = obj({{"signature", str()}, {"step", {{"type", "integer"}, {"minimum", 0}}}, {"answer", str()}},
                              {"signature", "step", "answer"});
  s["WorkGrade"] = obj({{"step", {{"type", "integer"}}}, {"correct", {{"type", "boolean"}}}, {"value", {{"type", "number"}}},
                        {"finished", {{"type", "boolean"}}}},
                       {"step", "correct", "value", "finished"});
  // Design rounds (issue 35): a submission is a flat object of field -> value; the verdict is
  // `ridge design --json`'s.
  s["DesignSubmission"] = {{"type", "object"}, {"additionalProperties", {{"type", {"string", "number"}}}}};
  s["DesignVerdict"] = obj({{"challenge", str()}, {"grader_version", str()}, {"pass", {{"type", "boolean"}}},
                            {"runs", {{"type", "boolean"}}}, {"objectives", {{"type", "array"}}}, {"trust", strs()}},
                           {"challenge", "grader_version", "pass", "objectives"});
  s["GradedCard"] = {{"type", "object"}, {"required", {"slug"}}, {"properties", {{"slug", str()}}}};
  s["Due"] = obj({{"due", {{"type", "array"},
                           {"items", obj({{"slug", str()}, {"title", str()}, {"due", {{"type", "integer"}}},
                                          {"stability", {{"type", "number"}}},
                                          {"state", {{"type", "string"}, {"enum", {"new", "due", "seen", "mastered"}}}}},
                                         {"slug", "title", "due", "stability", "state"})}}},
                  {"now", {{"type", "integer"}}},
                  {"bookmarks", strs()},
                  {"mastered_stability_days", {{"type", "number"}}}},
                 {"due", "now"});
  ordered_json nullable_number = {{"type", {"number", "null"}}};
  ordered_json row = obj({{"seen", {{"type", "integer"}}}, {"due", {{"type", "integer"}}}, {"drills", {{"type", "integer"}}},
                          {"reviews", {{"type", "integer"}}}, {"retention", nullable_number},
                          {"predicted_recall", nullable_number}, {"drill_accuracy", nullable_number}},
                         {"seen", "due", "drills", "reviews", "retention", "predicted_recall", "drill_accuracy"});
  s["Progress"] = obj({{"topics", map_of(row)}, {"tracks", map_of(row)}}, {"topics", "tracks"});
  s["BookmarkRequest"] = obj({{"slug", str()}, {"on", {{"type", "boolean"}}}}, {"slug"});
  s["Bookmarks"] = obj({{"bookmarks", strs()}}, {"bookmarks"});
  s["Note"] = obj({{"slug", str()}, {"body", str()}}, {"slug", "body"});
  s["Rehearsal"] = obj({{"id", {{"type", "integer"}}}, {"source", str()}, {"title", str()}, {"started_at", {{"type", "integer"}}},
                        {"expires_at", {{"type", "integer"}}}, {"finished_at", {{"type", "integer"}}},
                        {"state", {{"type", "string"}, {"enum", {"open", "expired", "finished"}}}},
                        {"current_round", {{"type", "integer"}}}, {"rounds", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                        {"report", {{"type", "object"}}}},
                       {"id", "source", "state", "rounds"});
  s["NoteBody"] = obj({{"body", str()}}, {"body"});
  s["SubscribeRequest"] = obj({{"email", str()}}, {"email"});
  s["Subscribed"] = obj({{"status", str()}}, {"status"});
  s["OpenAPI"] = obj({{"openapi", str()}, {"info", {{"type", "object"}}}, {"paths", {{"type", "object"}}}}, {"openapi", "info", "paths"});
  return s;
}

struct Doc {
  std::string method, pattern, summary;
  ordered_json parameters = ordered_json::array();
  std::string request;                            // a schema name, or empty
  std::vector<std::pair<int, std::string>> responses;  // status -> schema name
  ordered_json example;                           // of the first response, or null
};

ordered_json query(const std::string& name, const std::string& description, ordered_json schema = str()) {
  return {{"name", name}, {"in", "query"}, {"required", false}, {"description", description}, {"schema", std::move(schema)}};
}
ordered_json path_param(const std::string& name, const std::string& description) {
  return {{"name", name}, {"in", "path"}, {"required", true}, {"description", description}, {"schema", str()}};
}
ordered_json csrf_header() {
  return {{"name", "X-CSRF-Token"}, {"in", "header"}, {"required", true}, {"description", "the session's CSRF token"},
          {"schema", str()}};
}

// The JSON routes other than the calculators', as app.cc registers them. A route added there
// without a line here fails openapi_test.
std::vector<Doc> route_docs(const bank::Bank& bank) {
  const std::string topic_ids = [&] {
    std::string s;
    for (const auto& t : bank.topics) s += (s.empty() ? "" : ", ") + t.id;
    return s;
  }();
  ordered_json free_example = nullptr;
  for (const auto& q : bank.questions) {
    if (!q.free) continue;
    free_example = {{"slug", q.slug}, {"title", q.title}, {"summary", q.summary}, {"topic", q.topic},
                    {"difficulty", std::string(bank::difficulty_name(q.difficulty))}, {"tracks", q.tracks},
                    {"concepts", q.concepts}, {"free", true}, {"tldr", q.tldr()}, {"updated", q.updated}, {"url", "/q/" + q.slug}};
    break;
  }
  return {
      {"GET", "/api/questions", "The bank, filtered; a paid question's TL;DR only with a session",
       {query("topic", "one of: " + topic_ids), query("difficulty", "easy, medium, hard or expert"), query("company", "a company id")},
       "", {{200, "QuestionList"}, {400, "Errors"}},
       free_example.is_null() ? ordered_json(nullptr) : ordered_json{{"questions", {free_example}}}},
      {"GET", "/api/questions/{slug}", "One question with its answer (paid: 401 without a session, 402 without access)",
       {path_param("slug", "a slug from /api/questions")}, "",
       {{200, "Question"}, {401, "Errors"}, {402, "PaymentRequired"}, {404, "Errors"}}, nullptr},
      {"GET", "/api/calc", "The calculator registry: every calculator with its parameters", {}, "", {{200, "CalculatorList"}}, nullptr},
      {"GET", "/api/search", "Search questions and concepts: the top hits and the true total",
       {query("q", "the query"), query("limit", "1 to 20, default 8", {{"type", "integer"}, {"minimum", 1}, {"maximum", 20}, {"default", 8}})},
       "", {{200, "SearchResults"}, {400, "Errors"}},
       ordered_json{{"query", "kv cache"}, {"total", 0}, {"timed_out", false}, {"results", ordered_json::array()}}},
      {"POST", "/api/signup", "Create an account and a session", {}, "Credentials", {{201, "CsrfToken"}, {400, "Errors"}},
       ordered_json{{"csrf_token", "k3J9..."}}},
      {"POST", "/api/signin", "Sign in: sets the session cookie", {}, "Credentials", {{200, "CsrfToken"}, {401, "Errors"}}, nullptr},
      {"POST", "/api/signout", "End the session", {csrf_header()}, "", {{200, "Empty"}, {403, "Errors"}}, ordered_json::object()},
      {"GET", "/api/me", "The signed-in account, or {\"signed_in\": false}", {}, "", {{200, "Me"}},
       ordered_json{{"signed_in", false}}},
      {"POST", "/api/reviews", "Grade a question (1 Again .. 4 Easy) and schedule it", {csrf_header()}, "ReviewRequest",
       {{200, "GradedCard"}, {400, "Errors"}, {401, "Errors"}, {403, "Errors"}}, nullptr},
      {"GET", "/api/reviews/due", "The account's due cards; with all=1 every card and the bookmarks",
       {query("all", "1 for every card", {{"type", "string"}, {"enum", {"1"}}})}, "", {{200, "Due"}, {401, "Errors"}},
       ordered_json{{"due", ordered_json::array()}, {"now", 1764979200}}},
      {"GET", "/api/progress", "Progress by topic and track", {}, "", {{200, "Progress"}, {401, "Errors"}}, nullptr},
      {"POST", "/api/bookmarks", "Mark or unmark a question", {csrf_header()}, "BookmarkRequest",
       {{200, "Bookmarks"}, {400, "Errors"}, {401, "Errors"}, {403, "Errors"}}, nullptr},
      {"GET", "/api/notes/{slug}", "The account's note on a question", {path_param("slug", "a question slug")}, "",
       {{200, "Note"}, {401, "Errors"}, {404, "Errors"}}, nullptr},
      {"PUT", "/api/notes/{slug}", "Replace the note (at most 20,000 bytes)", {path_param("slug", "a question slug"), csrf_header()},
       "NoteBody", {{200, "Note"}, {400, "Errors"}, {401, "Errors"}, {403, "Errors"}}, nullptr},
      {"POST", "/api/subscribe", "The weekly question: a pending subscription and a confirmation mail", {}, "SubscribeRequest",
       {{202, "Subscribed"}, {400, "Errors"}}, nullptr},
      {"GET", "/api/rehearsals/{id}", "A mock loop's state and, once finished, its report (the owner's only)",
       {path_param("id", "a rehearsal id")}, "", {{200, "Rehearsal"}, {401, "Errors"}, {404, "Errors"}}, nullptr},
      // Work it (issue 34).
      {"POST", "/api/work/{slug}", "Work it: a new exercise of a workable question (new inputs, the steps asked), signed for the account",
       {path_param("slug", "a workable question's slug"), csrf_header()}, "",
       {{200, "WorkExercise"}, {400, "Errors"}, {401, "Errors"}, {402, "Errors"}, {403, "Errors"}}, nullptr},
      {"POST", "/api/work/{slug}/{seed}/grade", "Work it: grade one step once (409 when graded already); the last step schedules the question",
       {path_param("slug", "the exercise's question"), path_param("seed", "the exercise's seed"), csrf_header()}, "WorkGradeRequest",
       {{200, "WorkGrade"}, {400, "Errors"}, {401, "Errors"}, {403, "Errors"}, {409, "Errors"}}, nullptr},
      // Design rounds (issue 35).
      {"POST", "/api/design/{id}", "Design rounds: grade a design (field -> value) against a challenge; the verdict as `ridge design --json` prints it (nothing kept; X-CSRF-Token when signed in)",
       {path_param("id", "a design challenge's id (ridge design --list)")}, "DesignSubmission",
       {{200, "DesignVerdict"}, {400, "Errors"}, {403, "Errors"}, {404, "Errors"}, {429, "Errors"}}, nullptr},
      {"GET", "/api/openapi.json", "This document", {}, "", {{200, "OpenAPI"}}, nullptr},
  };
}

ordered_json operation(const Doc& d) {
  ordered_json op = {{"summary", d.summary}, {"operationId", d.method + " " + d.pattern}, {"x-route", d.pattern}};
  if (!d.parameters.empty()) op["parameters"] = d.parameters;
  if (!d.request.empty()) op["requestBody"] = {{"required", true}, {"content", {{"application/json", {{"schema", ref(d.request)}}}}}};
  ordered_json responses = ordered_json::object();
  for (size_t i = 0; i < d.responses.size(); ++i) {
    const auto& [status, schema] = d.responses[i];
    ordered_json media = {{"schema", ref(schema)}};
    if (i == 0 && !d.example.is_null()) media["example"] = d.example;
    responses[std::to_string(status)] = {{"description", std::string(status < 300 ? "the answer" : "refused; the error names the field")},
                                         {"content", {{"application/json", media}}}};
  }
  op["responses"] = responses;
  return op;
}

// A calculator parameter's schema: numbers and counts also take the CLI's suffixed forms
// ("80GB", "32Ki"), so they are a number or a string; the range applies to the number.
ordered_json param_schema(const calc::ParamSpec& s) {
  ordered_json schema;
  switch (s.type) {
    case calc::ParamType::kNumber:
    case calc::ParamType::kCount:
      schema["type"] = {s.type == calc::ParamType::kCount ? "integer" : "number", "string"};
      if (s.min_exclusive) {
        schema["exclusiveMinimum"] = s.min;
      } else {
        schema["minimum"] = s.min;
      }
      if (s.max < 1e29) schema["maximum"] = s.max;
      break;
    case calc::ParamType::kChoice:
      schema["type"] = "string";
      if (!s.choices.empty()) schema["enum"] = s.choices;
      break;
    default: schema["type"] = "string";
  }
  if (!s.default_value.empty()) schema["default"] = s.default_value;
  std::string unit(calc::unit_symbol(s.unit));
  if (!unit.empty()) schema["x-unit"] = unit;
  return schema;
}

}  // namespace

bool is_json_route(const std::string& pattern) { return pattern.rfind("/api/", 0) == 0; }

ordered_json openapi_document(const std::vector<RouteEntry>& routes, const calc::Registry& registry, const calc::Catalog& catalog,
                              const bank::Bank& bank) {
  ordered_json doc = {{"openapi", "3.1.0"},
                      {"info", {{"title", "ridge API"},
                                {"version", "1"},
                                {"description", "The JSON API of ridge: the question bank, the calculators (each parameter with "
                                                "its type, unit, range and default, from the registry that serves it), search "
                                                "and the practice platform. Errors share one shape: {\"errors\": [{field, value, "
                                                "message, accepted}]}. Generated by the server from its route table."}}},
                      {"jsonSchemaDialect", "https://spec.openapis.org/oas/3.1/dialect/base"}};
  ordered_json paths = ordered_json::object();
  auto has_route = [&](const std::string& method, const std::string& pattern) {
    for (const auto& r : routes) {
      if (r.method == method && r.pattern == pattern) return true;
    }
    return false;
  };
  auto lower = [](std::string m) {
    for (auto& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return m;
  };
  for (const Doc& d : route_docs(bank)) {
    if (!has_route(d.method, d.pattern)) continue;  // described only when served
    paths[d.pattern][lower(d.method)] = operation(d);
  }
  // The calculators: one path each, its parameters from the registry, and an example the
  // engine computed from the calculator's example values.
  for (const auto& c : registry.all()) {
    std::string path = "/api/calc/" + c.name;
    ordered_json params = ordered_json::array();
    for (const auto& s : c.params) {
      if (s.type == calc::ParamType::kConfig) continue;
      params.push_back({{"name", s.name}, {"in", "query"}, {"required", s.required},
                        {"description", s.help + " (accepted: " + calc::accepted_range(s, catalog) + ")"},
                        {"schema", param_schema(s)}});
    }
    ordered_json ok = {{"schema", ref("Derivation")}};
    auto d = registry.evaluate(c.name, example_values(c), catalog);
    if (d) ok["example"] = ordered_json::parse(calc::render_json(*d));
    ordered_json errors = {{"description", "refused: each error names the parameter, the value and what is accepted"},
                           {"content", {{"application/json", {{"schema", ref("Errors")}}}}}};
    if (has_route("GET", "/api/calc/{name}")) {
      paths[path]["get"] = {{"summary", c.summary},
                            {"operationId", "calc " + c.name},
                            {"x-route", "/api/calc/{name}"},
                            {"parameters", params},
                            {"responses", {{"200", {{"description", "the derivation, as `ridge calc " + c.name + " --json` prints it"},
                                                    {"content", {{"application/json", ok}}}}},
                                           {"400", errors}}}};
    }
    if (has_route("POST", "/api/calc/{name}")) {
      ordered_json body = {{"type", "object"}, {"properties", {{"config", {{"type", "object"}, {"description", "a model's config.json"}}}}}};
      for (const auto& p : params) body["properties"][p["name"].get<std::string>()] = p["schema"];
      paths[path]["post"] = {{"summary", c.summary + " (with a config.json)"},
                             {"operationId", "calc " + c.name + " with config"},
                             {"x-route", "/api/calc/{name}"},
                             {"requestBody", {{"required", true}, {"content", {{"application/json", {{"schema", body}}}}}}},
                             {"responses", {{"200", {{"description", "the derivation"}, {"content", {{"application/json", {{"schema", ref("Derivation")}}}}}}},
                                            {"400", errors}}}};
    }
  }
  doc["paths"] = paths;
  doc["components"] = {{"schemas", schemas(bank)}};
  // Whatever JSON route the description does not cover, for the test to name.
  ordered_json undescribed = ordered_json::array();
  for (const auto& r : routes) {
    if (!is_json_route(r.pattern)) continue;
    bool found = false;
    for (const auto& [p, item] : paths.items()) {
      for (const auto& [m, op] : item.items()) {
        if (m == lower(r.method) && op.value("x-route", "") == r.pattern) found = true;
      }
    }
    if (!found) undescribed.push_back(r.method + " " + r.pattern);
  }
  if (!undescribed.empty()) doc["x-undescribed"] = undescribed;
  return doc;
}

namespace {

std::string type_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return std::floor(v.get<double>()) == v.get<double>() ? "integer" : "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool type_matches(const std::string& actual, const std::string& wanted) {
  return actual == wanted || (wanted == "number" && actual == "integer");
}

}  // namespace

std::vector<std::string> validate_json(const json& instance, const json& schema, const json& root, const std::string& where) {
  std::vector<std::string> out;
  if (schema.contains("$ref")) {
    const std::string r = schema["$ref"].get<std::string>();
    const std::string prefix = "#/components/schemas/";
    if (r.rfind(prefix, 0) != 0 || !root["components"]["schemas"].contains(r.substr(prefix.size()))) {
      return {where + ": unresolved $ref " + r};
    }
    return validate_json(instance, root["components"]["schemas"][r.substr(prefix.size())], root, where);
  }
  const std::string actual = type_of(instance);
  if (schema.contains("type")) {
    bool ok = false;
    std::string wanted;
    if (schema["type"].is_array()) {
      for (const auto& t : schema["type"]) {
        ok = ok || type_matches(actual, t.get<std::string>());
        wanted += (wanted.empty() ? "" : " or ") + t.get<std::string>();
      }
    } else {
      wanted = schema["type"].get<std::string>();
      ok = type_matches(actual, wanted);
    }
    if (!ok) return {where + ": expected " + wanted + ", got " + actual};
  }
  if (schema.contains("enum") && std::find(schema["enum"].begin(), schema["enum"].end(), instance) == schema["enum"].end()) {
    out.push_back(where + ": " + instance.dump() + " is not one of " + schema["enum"].dump());
  }
  if (instance.is_number()) {
    double v = instance.get<double>();
    if (schema.contains("minimum") && v < schema["minimum"].get<double>()) out.push_back(where + ": below minimum");
    if (schema.contains("exclusiveMinimum") && v <= schema["exclusiveMinimum"].get<double>()) out.push_back(where + ": not above exclusiveMinimum");
    if (schema.contains("maximum") && v > schema["maximum"].get<double>()) out.push_back(where + ": above maximum");
  }
  if (instance.is_object()) {
    if (schema.contains("required")) {
      for (const auto& k : schema["required"]) {
        if (!instance.contains(k.get<std::string>())) out.push_back(where + ": missing " + k.get<std::string>());
      }
    }
    for (const auto& [k, v] : instance.items()) {
      if (schema.contains("properties") && schema["properties"].contains(k)) {
        auto more = validate_json(v, schema["properties"][k], root, where + "." + k);
        out.insert(out.end(), more.begin(), more.end());
      } else if (schema.contains("additionalProperties")) {
        const json& extra = schema["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>()) {
          out.push_back(where + ": unexpected " + k);
        } else if (extra.is_object()) {
          auto more = validate_json(v, extra, root, where + "." + k);
          out.insert(out.end(), more.begin(), more.end());
        }
      }
    }
  }
  if (instance.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < instance.size(); ++i) {
      auto more = validate_json(instance[i], schema["items"], root, where + "[" + std::to_string(i) + "]");
      out.insert(out.end(), more.begin(), more.end());
    }
  }
  return out;
}

std::string openapi_path_for(const json& doc, const std::string& path) {
  if (!doc.contains("paths")) return "";
  if (doc["paths"].contains(path)) return path;
  auto want = split_path(path);
  for (const auto& [p, item] : doc["paths"].items()) {
    auto have = split_path(p);
    if (have.size() != want.size()) continue;
    bool ok = true;
    for (size_t i = 0; i < have.size() && ok; ++i) ok = (have[i].size() > 1 && have[i].front() == '{') || have[i] == want[i];
    if (ok) return p;
  }
  return "";
}

}  // namespace ridge::web::exports
