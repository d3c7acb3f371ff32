#include "web/routes/content_routes.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "bank/loader.h"
#include "web/course_pages.h"
#include "web/gzip.h"
#include "web/routes/billing_routes.h"
#include "web/routes/response.h"

namespace ridge::web::routes {

using nlohmann::ordered_json;

namespace {

// The listing of a question. A paid question's TL;DR is part of what the payment buys:
// it is included only for a reader who may read the answer.
ordered_json question_summary(const bank::Question& q, bool may_read) {
  ordered_json j = {{"slug", q.slug},
                    {"title", q.title},
                    {"summary", q.summary},
                    {"topic", q.topic},
                    {"difficulty", std::string(bank::difficulty_name(q.difficulty))},
                    {"tracks", q.tracks},
                    {"concepts", q.concepts},
                    {"free", q.free}};
  if (q.free || may_read) j["tldr"] = q.listed_tldr();
  if (!q.lab.empty()) j["lab"] = q.lab;
  j["updated"] = q.updated;
  j["url"] = "/q/" + q.slug;
  return j;
}

}  // namespace

CachedPage make_cached_page(std::string body, bool personal) {
  std::string etag = '"' + content_hash(body) + '"';
  Response headers;
  add_standard_headers(headers);
  std::string standard;
  for (const auto& [k, v] : headers.headers) standard += k + ": " + v + "\r\n";
  std::string common = standard + "Content-Length: " + std::to_string(body.size()) + "\r\n";
  // lazy (issue 30): a page anyone may cache is kept gzip'd too, when that is smaller, and
  // both copies say the answer varies with Accept-Encoding (nginx's gzip_static with gzip_vary).
  GzipVariant gz;
  if (!personal) {
    gz.body = gzip_compress(body);
    if (gz.body.size() >= body.size()) gz.body.clear();
  }
  const std::string vary = gz.body.empty() ? "" : "Vary: Accept-Encoding\r\n";
  std::string head = "Content-Type: text/html; charset=utf-8\r\n" + vary + "ETag: " + etag + "\r\nCache-Control: public, max-age=300\r\n" + common;
  std::string personal_head =
      personal ? "Content-Type: text/html; charset=utf-8\r\n" + common + "Cache-Control: private, no-store\r\nVary: Cookie\r\n"
               : std::string();
  if (!gz.body.empty()) {
    gz.etag = '"' + content_hash(gz.body) + '"';
    gz.head = "Content-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n" + vary + "ETag: " + gz.etag +
              "\r\nCache-Control: public, max-age=300\r\n" + standard + "Content-Length: " + std::to_string(gz.body.size()) + "\r\n";
  }
  // Large pages also in a memory file, sent with sendfile (web/http.h BodyFile).
  std::shared_ptr<const BodyFile> file = BodyFile::of(body);
  return {std::move(body), std::move(etag), std::move(head), std::move(personal_head), std::move(gz), std::move(file)};
}

std::optional<CachedPage> render_question_page(const Site& site, const AppOptions& options,
                                               const services::WorkService* work, const std::string& path) {
  if (path.rfind("/q/", 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(path).substr(3);
  size_t hash = rest.find('#');
  std::string_view slug = rest.substr(0, hash), variant = hash == std::string_view::npos ? "" : rest.substr(hash + 1);
  const bank::Question* q = site.bank.find(std::string(slug));
  if (q == nullptr) return std::nullopt;
  if (variant.empty()) return make_cached_page(question_page(site, *q, work != nullptr && work->workable(q->slug)));
  // Only a paid question has the other copies (as when every page was rendered at start-up).
  if (q->free) return std::nullopt;
  if (variant == "locked") return make_cached_page(locked_question_page(site, *q), true);
  if (variant == "paywall") {
    return make_cached_page(paywall_question_page(site, *q, options.billing.price.display(), options.billing.enabled()), true);
  }
  return std::nullopt;
}

std::vector<std::string> listing_paths(const bank::Bank& bank) {
  std::vector<std::string> paths;
  for (const auto& t : bank.topics) paths.push_back("/topics/" + t.id);
  for (const auto& t : bank.tracks) paths.push_back("/tracks/" + t.id);
  for (bank::Difficulty d : {bank::Difficulty::kEasy, bank::Difficulty::kMedium, bank::Difficulty::kHard, bank::Difficulty::kExpert}) {
    paths.push_back('/' + std::string(bank::difficulty_name(d)));
  }
  for (const auto& [id, c] : bank.concepts) paths.push_back("/concepts/" + id);
  for (const auto& [id, c] : bank.companies) paths.push_back("/companies/" + id);
  return paths;
}

std::optional<CachedPage> render_listing_page(const Site& site, const std::string& path) {
  const bank::Bank& bank = site.bank;
  auto after = [&](std::string_view prefix) -> std::optional<std::string> {
    if (path.rfind(prefix, 0) != 0) return std::nullopt;
    return path.substr(prefix.size());
  };
  if (auto id = after("/topics/")) {
    if (const bank::Topic* t = bank.find_topic(*id)) return make_cached_page(topic_page(site, *t));
  } else if (auto tid = after("/tracks/")) {
    if (const bank::Track* t = bank.find_track(*tid)) return make_cached_page(track_page(site, *t));
  } else if (auto cid = after("/concepts/")) {
    if (auto it = bank.concepts.find(*cid); it != bank.concepts.end()) return make_cached_page(concept_page(site, it->second));
  } else if (auto co = after("/companies/")) {
    if (auto it = bank.companies.find(*co); it != bank.companies.end()) return make_cached_page(company_page(site, it->second));
  } else if (path.size() > 1) {
    if (auto d = bank::parse_difficulty(std::string_view(path).substr(1))) return make_cached_page(difficulty_page(site, *d));
  }
  return std::nullopt;
}

PageCache render_pages(const Site& site, const AppOptions& options, const services::WorkService* work, bool with_questions,
                       bool with_listings) {
  PageCache pages;
  const bank::Bank& bank = site.bank;
  auto cache = [&](std::string path, std::string body) { pages[std::move(path)] = make_cached_page(std::move(body)); };
  cache("/", home_page(site, Offer{options.billing.price.display(), options.billing.months}));
  cache("/hardware", hardware_page(site));
  cache("/topics", topics_index(site));
  cache("/concepts", concepts_index(site));
  cache("/companies", companies_index(site));
  cache("/calc", calculators_index(site, options.validation));
  cache("/diagrams", diagrams_page(site));
  for (const std::string& path : with_listings ? listing_paths(bank) : std::vector<std::string>{}) {
    if (auto page = render_listing_page(site, path)) pages[path] = std::move(*page);
  }
  cache("/courses", courses_index(site));
  for (const auto& [id, c] : bank.courses) cache("/courses/" + id, course_page(site, c, nullptr));
  for (size_t i = 0; with_questions && i < bank.questions.size(); ++i) {
    for (const char* variant : {"", "#locked", "#paywall"}) {
      std::string path = "/q/" + bank.questions[i].slug + variant;
      if (auto page = render_question_page(site, options, work, path)) pages[path] = std::move(*page);
    }
  }
  for (const auto& c : site.registry.all()) {
    calc::Given example = example_values(c);
    auto d = site.registry.evaluate(c.name, example, site.catalog);
    cache("/calc/" + c.name, calculator_page(site, c, example, &d));
  }
  return pages;
}

std::string page_path(const std::string& path) {
  return path.size() > 1 && path.back() == '/' ? path.substr(0, path.size() - 1) : path;
}

Response cached_page(const Request& req, const Context& ctx) { return page(ctx, page_path(req.path)); }

Response diagrams(const Request& req, const Context& ctx) { return page(ctx, req.path); }

Response question(const Request& req, const Params& p, const Context& ctx) {
  const bank::Question* q = ctx.bank.find(p.at("slug"));
  if (q == nullptr) return error(req, ctx, 404, "There is no question '" + p.at("slug") + "'.");
  if (!q->free) {
    services::Visitor v = visitor(req, ctx);
    if (v.user_id == 0) {
      Response r = page(ctx, "/q/" + q->slug + "#locked");
      r.personal = true;
      return r;
    }
    auto until = access_until(ctx, v.user_id);
    if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
    if (*until <= ctx.now()) {
      Response r = page(ctx, "/q/" + q->slug + "#paywall");
      r.status = 402;
      r.personal = true;
      return r;
    }
  }
  Response r = page(ctx, "/q/" + q->slug);
  if (!q->free) r.personal = true;
  return r;
}

Response api_questions(const Request& req, const Context& ctx) {
  std::string topic = req.param("topic").value_or(""), difficulty = req.param("difficulty").value_or(""),
              company = req.param("company").value_or("");
  calc::Errors errors;
  if (!topic.empty() && !ctx.bank.find_topic(topic)) {
    std::string known;
    for (const auto& t : ctx.bank.topics) known += (known.empty() ? "" : ", ") + t.id;
    errors.push_back({"topic", topic, "is not a topic", known});
  }
  if (!difficulty.empty() && !bank::parse_difficulty(difficulty)) {
    errors.push_back({"difficulty", difficulty, "is not a difficulty", "easy, medium, hard, expert"});
  }
  if (!company.empty() && !ctx.bank.companies.count(company)) {
    std::string known;
    for (const auto& [id, c] : ctx.bank.companies) known += (known.empty() ? "" : ", ") + id;
    errors.push_back({"company", company, "is not a company", known});
  }
  for (const auto& [k, v] : req.query) {
    if (k != "topic" && k != "difficulty" && k != "company") errors.push_back({k, v, "is not a filter", "topic, difficulty, company"});
  }
  if (!errors.empty()) return json_error(400, field_errors(errors));
  bool signed_in = visitor(req, ctx).user_id != 0;
  ordered_json list = ordered_json::array();
  for (const auto& q : ctx.bank.questions) {
    if (!topic.empty() && q.topic != topic) continue;
    if (!difficulty.empty() && bank::difficulty_name(q.difficulty) != difficulty) continue;
    if (!company.empty() && std::none_of(q.companies.begin(), q.companies.end(), [&](const bank::CompanyRef& c) { return c.id == company; })) continue;
    list.push_back(question_summary(q, signed_in));
  }
  Response r = json_text(200, ordered_json{{"questions", list}}.dump(2) + "\n");
  r.personal = signed_in;
  return r;
}

Response api_question(const Request& req, const Params& p, const Context& ctx) {
  const bank::Question* q = ctx.bank.find(p.at("slug"));
  if (q == nullptr) {
    return json_error(404, field_errors({{"slug", p.at("slug"), "is not a question", "a slug from /api/questions"}}));
  }
  bool personal = false;
  if (!q->free) {
    services::Visitor v = visitor(req, ctx);
    if (v.user_id == 0) {
      return json_error(401, field_errors({{"slug", q->slug, "is readable with an account", "POST /api/signin first"}}));
    }
    auto until = access_until(ctx, v.user_id);
    if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
    if (*until <= ctx.now()) return payment_required(*q, ctx);
    personal = true;
  }
  auto kept = ctx.question_pages.get(std::string(kApiQuestionKey) + q->slug);
  Response r;
  r.content_type = "application/json";
  if (kept) {
    r.held_body = std::shared_ptr<const std::string>(kept, &kept->body);
    r.shareable = !personal;
  } else {
    r.body = api_question_body(ctx, *q);
  }
  r.personal = personal;
  return r;
}

std::string api_question_body(const Context& ctx, const bank::Question& q) {
  ordered_json j = question_summary(q, true);
  ordered_json calcs = ordered_json::object();
  for (const auto& c : bank::evaluated_calcs(q, ctx.registry, ctx.catalog)) {
    if (!c.derivation) continue;
    ordered_json results = ordered_json::object();
    for (const auto& r : c.derivation->results()) results[r.key] = r.value;
    calcs[c.id] = {{"call", c.call}, {"results", results}};
  }
  j["calcs"] = calcs;
  j["html"] = answer_html(ctx, q);
  return j.dump(2) + "\n";
}

Response static_file(const Request& req, const Context& ctx) {
  const Asset* a = ctx.assets.find(req.path);
  if (a == nullptr) return error(req, ctx, 404, "No such asset: " + req.path);
  Response r;
  r.content_type = a->content_type;
  r.set("ETag", a->etag);
  r.set("Cache-Control", "public, max-age=31536000, immutable");
  if (req.header("if-none-match") == a->etag) {
    r.status = 304;
    return r;
  }
  r.body = a->body;
  return r;
}

}  // namespace ridge::web::routes
