#include "web/app.h"

#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "calc/model.h"
#include "diagram/diagrams.h"
#include "web/course_pages.h"
#include "web/log.h"
#include "web/pages.h"
#include "web/routes/response.h"

namespace ridge::web {

using nlohmann::ordered_json;

namespace {

constexpr const char* kCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// The engine's errors in the one error shape: the message says the value and what is accepted.
std::vector<services::FieldError> field_errors(const calc::Errors& errors) {
  std::vector<services::FieldError> out;
  for (const auto& e : errors) {
    std::string message = (e.value.empty() ? "" : "'" + e.value + "' ") + e.message +
                          (e.accepted.empty() ? "" : "; accepted: " + e.accepted);
    out.push_back({e.field, e.value, std::move(message), e.accepted});
  }
  return out;
}

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

// Bounds of the two caches: about 4,096 calculator answers (a few KB each) and 1,024 search
// pages (tens of KB each), whichever bound is reached first.
constexpr size_t kCalcCacheEntries = 4096, kCalcCacheBytes = size_t{32} << 20;
constexpr size_t kSearchCacheEntries = 1024, kSearchCacheBytes = size_t{48} << 20;

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
  if (q.free || may_read) j["tldr"] = q.tldr;
  if (!q.lab.empty()) j["lab"] = q.lab;
  j["updated"] = q.updated;
  j["url"] = "/q/" + q.slug;
  return j;
}

}  // namespace

App::App(bank::Bank bank, calc::Catalog catalog, calc::Registry registry, Assets assets, AppOptions options)
    : bank_(std::move(bank)),
      catalog_(std::move(catalog)),
      registry_(std::move(registry)),
      assets_(std::move(assets)),
      options_(std::move(options)),
      calc_cache_(std::make_unique<ResponseCache>(kCalcCacheEntries, kCalcCacheBytes)),
      search_cache_(std::make_unique<ResponseCache>(kSearchCacheEntries, kSearchCacheBytes)) {
  catalog_.read_config = nullptr;  // the web never reads a path it was sent
  if (options_.clock == nullptr) {
    system_clock_ = std::make_unique<account::SystemClock>();
    options_.clock = system_clock_.get();
  }
  if (options_.random == nullptr) {
    system_random_ = std::make_unique<services::SodiumRandom>();
    options_.random = system_random_.get();
  }
  billing_ = std::make_unique<services::BillingService>(options_.billing, options_.store, *options_.clock);
  drills_ = std::make_unique<services::DrillService>(registry_, catalog_, options_.store, *options_.clock, *options_.random);
  if (options_.store) {
    accounts_ = std::make_unique<services::AccountService>(*options_.store, *options_.clock, *options_.random);
    reviews_ = std::make_unique<services::ReviewService>(bank_, *options_.store, *options_.clock);
    readiness_ = std::make_unique<services::ReadinessService>(bank_, registry_, catalog_, *options_.store, *options_.clock,
                                                              *options_.random, options_.secret);
  }
  // Mail a visitor can cause, within budgets kept in the store (see SubscriptionService).
  if (options_.store && options_.mail && options_.signer) {
    subscriptions_ = std::make_unique<services::SubscriptionService>(*options_.store, *options_.mail, *options_.signer, *options_.clock,
                                                                     options_.mail_wake);
  }
  search_ = std::make_unique<SearchIndex>(bank_);
  for (const auto& t : options_.trusted_proxies) {
    if (auto c = parse_cidr(t)) trusted_.push_back(*c);
  }
  Site site{bank_, catalog_, registry_, assets_};
  // `personal`: the page is only ever answered as personal (the locked and paywalled copies of
  // a paid question), so its personal header block is prepared with it.
  auto cache = [&](std::string path, std::string body, bool personal = false) {
    std::string etag = "\"" + content_hash(body) + "\"";
    Response headers;
    add_standard_headers(headers);
    std::string common;
    for (const auto& [k, v] : headers.headers) common += k + ": " + v + "\r\n";
    common += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    std::string head = "Content-Type: text/html; charset=utf-8\r\nETag: " + etag +
                       "\r\nCache-Control: public, max-age=300\r\n" + common;
    std::string personal_head = personal ? "Content-Type: text/html; charset=utf-8\r\n" + common +
                                               "Cache-Control: private, no-store\r\nVary: Cookie\r\n"
                                         : std::string();
    pages_[std::move(path)] = {std::move(body), std::move(etag), std::move(head), std::move(personal_head)};
  };
  cache("/", home_page(site, Offer{options_.billing.price.display(), options_.billing.months}));
  cache("/hardware", hardware_page(site));
  cache("/topics", topics_index(site));
  cache("/concepts", concepts_index(site));
  cache("/companies", companies_index(site));
  cache("/calc", calculators_index(site, options_.validation));
  cache("/diagrams", diagrams_page(site));
  for (const auto& t : bank_.topics) cache("/topics/" + t.id, topic_page(site, t));
  for (const auto& t : bank_.tracks) cache("/tracks/" + t.id, track_page(site, t));
  for (bank::Difficulty d : {bank::Difficulty::kEasy, bank::Difficulty::kMedium, bank::Difficulty::kHard, bank::Difficulty::kExpert}) {
    cache("/" + std::string(bank::difficulty_name(d)), difficulty_page(site, d));
  }
  for (const auto& [id, c] : bank_.concepts) cache("/concepts/" + id, concept_page(site, c));
  for (const auto& [id, c] : bank_.companies) cache("/companies/" + id, company_page(site, c));
  cache("/courses", courses_index(site));
  for (const auto& [id, c] : bank_.courses) cache("/courses/" + id, course_page(site, c, nullptr));
  for (const auto& q : bank_.questions) {
    cache("/q/" + q.slug, question_page(site, q));
    if (!q.free) {
      cache("/q/" + q.slug + "#locked", locked_question_page(site, q), true);
      cache("/q/" + q.slug + "#paywall", paywall_question_page(site, q, options_.billing.price.display(), options_.billing.enabled()),
            true);
    }
  }
  for (const auto& c : registry_.all()) {
    calc::Given example = example_values(c);
    auto d = registry_.evaluate(c.name, example, catalog_);
    cache("/calc/" + c.name, calculator_page(site, c, example, &d));
  }
  add_routes();
}

void App::add_routes() {
  auto cached = [this](const Request& req, const Params&) { return page(req.path.size() > 1 && req.path.back() == '/' ? req.path.substr(0, req.path.size() - 1) : req.path); };
  for (const char* pattern : {"/", "/topics", "/concepts", "/companies", "/calc", "/topics/{id}", "/tracks/{id}",
                              "/concepts/{id}", "/companies/{id}", "/easy", "/medium", "/hard", "/expert", "/courses", "/hardware"}) {
    // With a session the page goes to a worker: its nav is filled in from the session.
    router_.add("GET", pattern, cached, Dispatch::kInlineAnonymous);
  }
  router_.add("GET", "/calc/{name}", [this](const Request& r, const Params& p) { return calc_page(r, p); });
  router_.add("GET", "/calc/{name}/diagram.svg", [this](const Request& r, const Params& p) { return calc_diagram(r, p); });
  router_.add("GET", "/diagrams", [this](const Request& r, const Params&) { return page(r.path); }, Dispatch::kInlineAnonymous);
  router_.add("GET", "/search", [this](const Request& r, const Params&) { return search(r); }, Dispatch::kInlineWhenCached);
  router_.add("GET", "/api/search", [this](const Request& r, const Params&) { return api_search(r); });
  router_.add("GET", "/api/calc", [this](const Request&, const Params&) { return api_calc_list(); });
  router_.add("GET", "/api/calc/{name}", [this](const Request& r, const Params& p) { return api_calc(r, p); },
              Dispatch::kInlineWhenCached);
  router_.add("POST", "/api/calc/{name}", [this](const Request& r, const Params& p) { return api_calc_post(r, p); });
  router_.add("GET", "/api/questions", [this](const Request& r, const Params&) { return api_questions(r); });
  router_.add("GET", "/api/questions/{slug}", [this](const Request& r, const Params& p) { return api_question(r, p); });
  add_practice_routes();
  router_.add("GET", "/courses/{id}", [this](const Request& r, const Params& p) { return course(r, p); },
              Dispatch::kInlineAnonymous);
  router_.add("GET", "/healthz", [](const Request&, const Params&) {
    Response r;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "ok\n";
    return r;
  }, Dispatch::kInline);
  router_.add("GET", "/metrics", [this](const Request& req, const Params&) {
    // Scrapes come from the operator's network: loopback, private addresses (RFC 1918, ULA)
    // and trusted proxies; anyone else gets 404, as for a page that does not exist. The client
    // is the resolved one: behind a trusted proxy, the address X-Forwarded-For names (the
    // socket peer is the proxy, which let anyone on the internet read the metrics through it).
    static const std::vector<Cidr> kPrivate = [] {
      std::vector<Cidr> v;
      for (const char* c : {"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1/128", "fc00::/7"}) v.push_back(*parse_cidr(c));
      return v;
    }();
    const std::string client = client_address(req);
    auto inside = [&](const std::vector<Cidr>& blocks) {
      return std::any_of(blocks.begin(), blocks.end(), [&](const Cidr& c) { return cidr_contains(c, client); });
    };
    if (!req.remote.empty() && !inside(kPrivate) && !inside(trusted_)) return error(req, 404, "There is no page at /metrics.");
    Response r;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    if (options_.store) {
      if (auto use = options_.store->pool_use()) metrics_.store_pool(use->in_use, use->size);
    }
    r.body = metrics_.text();
    r.set("Cache-Control", "no-store");
    return r;
  }, Dispatch::kInline);
  router_.add("GET", "/readyz", [this](const Request&, const Params&) {
    bool db = options_.store == nullptr || options_.store->ping();
    bool content = !bank_.topics.empty();
    Response r;
    r.status = db && content ? 200 : 503;
    r.content_type = "text/plain; charset=utf-8";
    r.body = std::string("content ") + (content ? "loaded (" + std::to_string(bank_.questions.size()) + " questions)" : "missing") +
             "\ndatabase " + (options_.store ? options_.store->backend() + (db ? " reachable" : " unreachable") : "not configured") + "\n";
    return r;
  });
  router_.add("GET", "/static/{file}", [this](const Request& req, const Params&) {
    const Asset* a = assets_.find(req.path);
    if (a == nullptr) return error(req, 404, "No such asset: " + req.path);
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
  }, Dispatch::kInline);
}

Router::Match App::route(const Request& req) const { return router_.match(req.method, req.path); }

bool App::runs_inline(const Request& req, const Router::Match& match) const {
  switch (match.dispatch) {
    case Dispatch::kInline: return true;
    case Dispatch::kInlineAnonymous: return req.header("cookie").find("ridge_session=") == std::string::npos;
    case Dispatch::kWorker: return false;
    // With a session the nav is filled in from the store: that is a worker's job.
    case Dispatch::kInlineWhenCached:
      return req.header("cookie").find("ridge_session=") == std::string::npos && cached_answer(req, match) != nullptr;
  }
  return false;
}

std::shared_ptr<const std::string> App::cached_answer(const Request& req, const Router::Match& match) const {
  if (match.pattern == nullptr) return nullptr;
  if (*match.pattern == "/search") {
    auto key = search_key(req);
    return key ? search_cache_->find(*key) : nullptr;
  }
  if (*match.pattern == "/api/calc/{name}") {
    auto name = match.params.find("name");
    if (name == match.params.end()) return nullptr;
    std::string key = calc_key(name->second, given_from(req));
    if (auto hit = calc_cache_->find(key)) return hit;
    return calc_cache_->find(key + std::string(kRefusalSuffix));
  }
  return nullptr;
}

std::optional<std::string> App::search_key(const Request& req) const {
  std::string q = req.param("q").value_or(""), topic = req.param("topic").value_or(""),
              difficulty = req.param("difficulty").value_or(""), page = req.param("page").value_or("1");
  if (q.size() > 200 || page.empty() || page.size() > 4) return std::nullopt;
  // The decoded parameters the page is rendered from, in a fixed order: "q=kv+cache" and
  // "q=kv%20cache&utm=x" share an entry; "page=01" and "page=1" too.
  char* end = nullptr;
  long n = std::strtol(page.c_str(), &end, 10);
  if (*end != 0 || n < 1 || n > 1000) return std::nullopt;
  std::string page_number = std::to_string(n);
  return cache_key("search", {{"q", q}, {"topic", topic}, {"difficulty", difficulty}, {"page", page_number}});
}

Response App::page(const std::string& path) const {
  auto it = pages_.find(path);
  if (it == pages_.end()) {
    Request req;
    req.path = path;
    return error(req, 404, "There is no page at " + path + ".");
  }
  Response r;
  r.shared_body = &it->second.body;
  r.prebuilt_headers = &it->second.head;
  if (!it->second.personal_head.empty()) r.prebuilt_personal_headers = &it->second.personal_head;
  r.set("ETag", it->second.etag);
  return r;
}

Response App::error(const Request& req, int status, const std::string& message) const {
  if (req.path.rfind("/api/", 0) == 0) {
    return routes::json_error(status, {"", "", message, ""});
  }
  Site site{bank_, catalog_, registry_, assets_};
  Response r;
  r.status = status;
  r.body = error_page(site, status, message);
  return r;
}

Response App::handle(const Request& req) const { return handle(req, route(req)); }

Response App::handle(const Request& req, const Router::Match& match) const {
  auto started = std::chrono::steady_clock::now();
  metrics_.in_flight(1);
  const std::string request_id = log::next_request_id();
  Response res;
  try {
    if (match.handler != nullptr) {
      res = (*match.handler)(req, match.params);
      // A signed-in visitor gets the page with their nav, never a 304 for a copy cached
      // before they signed in.
      bool session = req.header("cookie").find("ridge_session=") != std::string::npos;
      if (res.status == 200 && !session) {
        for (const auto& [k, v] : res.headers) {
          if (k == "ETag" && req.header("if-none-match") == v) {
            res.status = 304;
            res.body.clear();
            res.shared_body = nullptr;
            res.held_body.reset();
            res.prebuilt_headers = nullptr;
          }
        }
      }
    } else if (!match.allow.empty()) {
      res = error(req, 405, req.method + " is not allowed on " + req.path + "; allowed: " + match.allow);
      res.set("Allow", match.allow);
    } else {
      res = error(req, 404, "There is no page at " + req.path + ".");
    }
  } catch (const StoreUnavailable& ex) {
    res = store_unavailable(req, ex.what());
  } catch (const std::exception& ex) {
    log::error("500 on " + req.method + " " + req.path + ": " + ex.what(), request_id);
    res = error(req, 500, "Something broke while answering this request (request id " + request_id + ").");
  }
  // Whatever depends on the visitor is never stored by a shared cache: a response marked
  // personal, and any answer to a request that carries a session (except static assets,
  // which are the same for everyone).
  bool has_session = req.header("cookie").find("ridge_session=") != std::string::npos;
  if (has_session && match.dispatch != Dispatch::kInline) personalize_nav(req, res);
  if (res.personal || (has_session && req.path.rfind("/static/", 0) != 0)) make_personal(res);
  bool has_csp = std::any_of(res.headers.begin(), res.headers.end(), [](const auto& h) { return h.first == "Content-Security-Policy"; });
  if (res.prebuilt_headers == nullptr && !has_csp) add_standard_headers(res);
  // Header values are checked once, here, before anything is written: a value with CR or LF
  // (a redirect built from input) would split the response.
  for (const auto& [k, v] : res.headers) {
    if (!valid_header_name(k) || !valid_header_value(v)) {
      log::error("refused to send header " + k + " with a control character (" + req.method + " " + req.path + ")",
                 request_id);
      res = plain_error(500, "internal error: a response header held a control character");
      break;
    }
  }
  res.head_only = req.method == "HEAD";
  if (res.prebuilt_headers == nullptr) res.set("X-Request-Id", request_id);
  metrics_.in_flight(-1);
  auto elapsed = std::chrono::steady_clock::now() - started;
  metrics_.request(match.pattern ? *match.pattern : (match.allow.empty() ? "unmatched" : "wrong-method"), res.status,
                   std::chrono::duration<double>(elapsed).count());
  uint64_t bytes = res.head_only ? 0 : (res.shared_body ? res.shared_body->size() : res.body.size());
  log::access({req.method, req.path, res.status, bytes,
               std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count(), request_id});
  return res;
}

void App::personalize_nav(const Request& req, Response& res) const {
  if (res.status == 304 || res.content_type.rfind("text/html", 0) != 0) return;
  std::string_view body = res.view();
  size_t at = body.find(kNavSignedOut);
  if (at == std::string_view::npos) return;
  try {
    if (visitor(req).user_id == 0) return;
  } catch (const StoreUnavailable&) {
    return;  // the page still works; the script fills the nav in when the store answers
  }
  std::string personal;
  personal.reserve(body.size());
  personal.append(body.substr(0, at)).append(kNavSignedIn).append(body.substr(at + kNavSignedOut.size()));
  res.body = std::move(personal);
  res.shared_body = nullptr;
  res.prebuilt_personal_headers = nullptr;  // its Content-Length is the cached body's
  res.personal = true;
}

void App::make_personal(Response& res) const {
  if (res.prebuilt_headers != nullptr && res.prebuilt_personal_headers != nullptr) {
    // A cached page whose personal header block was prepared with it (the locked and
    // paywalled question pages every anonymous visitor gets).
    res.prebuilt_headers = res.prebuilt_personal_headers;
    std::erase_if(res.headers, [](const auto& h) { return h.first == "ETag"; });
    return;
  }
  if (res.prebuilt_headers != nullptr) {
    // Unfold the cached page's header block so its caching lines can be replaced.
    std::string_view block = *res.prebuilt_headers;
    std::vector<std::pair<std::string, std::string>> lines;
    while (!block.empty()) {
      size_t end = block.find("\r\n");
      std::string_view line = block.substr(0, end);
      block = end == std::string_view::npos ? std::string_view() : block.substr(end + 2);
      size_t colon = line.find(": ");
      if (colon == std::string_view::npos) continue;
      std::string name(line.substr(0, colon)), value(line.substr(colon + 2));
      if (name == "Content-Type") {
        res.content_type = value;
      } else if (name != "Content-Length" && name != "Cache-Control" && name != "ETag") {
        lines.emplace_back(std::move(name), std::move(value));
      }
    }
    for (auto& h : res.headers) {
      if (h.first != "ETag") lines.push_back(std::move(h));
    }
    res.headers = std::move(lines);
    res.prebuilt_headers = nullptr;
  }
  std::erase_if(res.headers, [](const auto& h) { return h.first == "Cache-Control" || h.first == "Vary" || h.first == "ETag"; });
  res.set("Cache-Control", "private, no-store");
  res.set("Vary", "Cookie");
}

std::string App::client_address(const Request& req) const {
  return web::client_address(req.remote, req.header("x-forwarded-for"), trusted_);
}

void App::add_standard_headers(Response& res) const {
  res.set("Content-Security-Policy", kCsp);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "strict-origin-when-cross-origin");
  res.set("X-Frame-Options", "DENY");
}

Response App::plain_error(int status, const std::string& message) const {
  Response res;
  res.status = status;
  res.content_type = "text/plain; charset=utf-8";
  res.body = message + "\n";
  add_standard_headers(res);
  return res;
}

Response App::calc_page(const Request& req, const Params& p) const {
  const calc::Calculator* c = registry_.find(p.at("name"));
  if (c == nullptr) return error(req, 404, "There is no calculator '" + p.at("name") + "'; see /calc.");
  calc::Given given = given_from(req);
  if (given.empty()) return page(req.path);
  Site site{bank_, catalog_, registry_, assets_};
  auto d = registry_.evaluate(c->name, given, catalog_);
  Response r;
  r.body = calculator_page(site, *c, given, &d);
  return r;
}

Response App::calc_diagram(const Request& req, const Params& p) const {
  const calc::Calculator* c = registry_.find(p.at("name"));
  auto kind = c ? diagram::kind_for_calculator(c->name) : std::nullopt;
  if (!kind) return error(req, 404, "There is no diagram for '" + p.at("name") + "'.");
  calc::Given given = given_from(req);
  if (given.empty()) given = example_values(*c);
  auto d = registry_.evaluate(c->name, given, catalog_);
  if (!d) return plain_error(400, calc::to_string(d.errors()));
  diagram::Options options;
  options.standalone = true;
  auto drawn = diagram::draw(*kind, {}, registry_, catalog_, options, &*d);
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

Response App::search(const Request& req) const {
  std::string q = req.param("q").value_or(""), topic = req.param("topic").value_or(""),
              difficulty = req.param("difficulty").value_or("");
  if (q.size() > 200) return error(req, 400, "The search query is longer than 200 characters.");
  if (!topic.empty() && !bank_.find_topic(topic)) return error(req, 400, "Unknown topic '" + topic + "'.");
  if (!difficulty.empty() && !bank::parse_difficulty(difficulty)) {
    return error(req, 400, "Unknown difficulty '" + difficulty + "'; accepted: easy, medium, hard, expert.");
  }
  int page = 1;
  if (auto p = req.param("page")) {
    char* end = nullptr;
    long n = std::strtol(p->c_str(), &end, 10);
    if (p->empty() || *end != 0 || n < 1 || n > 1000) return error(req, 400, "page '" + p->substr(0, 20) + "' is not a page number; accepted: 1 to 1000.");
    page = static_cast<int>(n);
  }
  // The bank does not change while serving, and the page does not depend on who asks: one
  // rendering serves every later request with the same parameters.
  auto key = search_key(req);
  Response r;
  if (key) {
    if (auto hit = search_cache_->find(*key)) {
      r.held_body = std::move(hit);
      return r;
    }
  }
  constexpr int kPerPage = 20;
  int total = 0;
  bool timed_out = false;
  auto hits = search_->search_page(q, topic, difficulty, kPerPage, (page - 1) * kPerPage, &total, &timed_out);
  Site site{bank_, catalog_, registry_, assets_};
  std::string body = search_page(site, q, topic, difficulty, hits, SearchPaging{page, kPerPage, total, timed_out});
  // A search cut short by its time limit is a partial answer: served, never kept.
  if (key && !timed_out) {
    r.held_body = search_cache_->insert(*key, std::move(body));
  } else {
    r.body = std::move(body);
  }
  return r;
}

Response App::api_search(const Request& req) const {
  std::string q = req.param("q").value_or("");
  calc::Errors errors;
  if (q.size() > 200) errors.push_back({"q", q.substr(0, 20) + "...", "is longer than 200 characters", "up to 200 characters"});
  int limit = 8;
  if (auto l = req.param("limit")) {
    char* end = nullptr;
    long n = std::strtol(l->c_str(), &end, 10);
    if (l->empty() || *end != 0 || n < 1 || n > 20) {
      errors.push_back({"limit", l->substr(0, 20), "is not a result count", "1 to 20"});
    } else {
      limit = static_cast<int>(n);
    }
  }
  for (const auto& [k, v] : req.query) {
    if (k != "q" && k != "limit") errors.push_back({k, v.substr(0, 20), "is not a parameter", "q, limit"});
  }
  if (!errors.empty()) return routes::json_error(400, field_errors(errors));
  int total = 0;
  bool timed_out = false;
  auto hits = search_->search_page(q, "", "", limit, 0, &total, &timed_out);
  ordered_json results = ordered_json::array();
  for (const auto& h : hits) {
    results.push_back({{"kind", h.kind}, {"id", h.id}, {"title", h.title},
                       {"url", h.kind == "question" ? "/q/" + h.id : "/concepts/" + h.id}, {"topic", h.topic},
                       {"difficulty", h.difficulty}});
  }
  return routes::json_text(200, ordered_json{{"query", q}, {"total", total}, {"timed_out", timed_out}, {"results", results}}.dump() + "\n");
}

Response App::api_calc_list() const {
  ordered_json list = ordered_json::array();
  for (const auto& c : registry_.all()) {
    ordered_json params = ordered_json::array();
    for (const auto& s : c.params) {
      if (s.type == calc::ParamType::kConfig) continue;
      ordered_json spec = {{"name", s.name},
                           {"type", calc::type_name(s.type)},
                           {"unit", calc::unit_symbol(s.unit)},
                           {"default", s.default_value},
                           {"required", s.required},
                           {"help", s.help},
                           {"accepted", calc::accepted_range(s, catalog_)}};
      if (s.type == calc::ParamType::kNumber || s.type == calc::ParamType::kCount) {
        spec["min"] = s.min;
        spec["max"] = s.max;
      }
      params.push_back(spec);
    }
    list.push_back({{"name", c.name}, {"summary", c.summary}, {"params", params}, {"results", c.result_keys},
                    {"url", "/api/calc/" + c.name}});
  }
  return routes::json_text(200, ordered_json{{"calculators", list}}.dump(2) + "\n");
}

Response App::api_calc(const Request& req, const Params& p) const {
  if (registry_.find(p.at("name")) == nullptr) {
    return routes::json_error(404, field_errors({{"calculator", p.at("name"), "is not a known calculator", registry_.name_list()}}));
  }
  // Every input is in the key and the engine reads nothing else (no files, no clock): the
  // same key is the same bytes for everyone, so one rendering serves every later call.
  calc::Given given = given_from(req);
  std::string key = calc_key(p.at("name"), given);
  Response r = routes::json_text(200, "");
  if (auto hit = calc_cache_->find(key)) {
    r.held_body = std::move(hit);
    return r;
  }
  // A refusal is as deterministic as an answer, and as costly to compute: it is kept too,
  // under its own key, so a repeated hostile call is answered from memory.
  const std::string refusal_key = key + std::string(kRefusalSuffix);
  if (auto hit = calc_cache_->find(refusal_key)) {
    r.status = 400;
    r.set("Cache-Control", "no-store");
    r.held_body = std::move(hit);
    return r;
  }
  auto d = registry_.evaluate(p.at("name"), given, catalog_);
  if (!d) {
    Response refused = routes::json_error(400, field_errors(d.errors()));
    r.status = 400;
    r.set("Cache-Control", "no-store");
    r.held_body = calc_cache_->insert(refusal_key, std::move(refused.body));
    return r;
  }
  r.held_body = calc_cache_->insert(key, calc::render_json(*d) + "\n");
  return r;
}

Response App::api_calc_post(const Request& req, const Params& p) const {
  // {"config": <a config.json object>, "<param>": value, ...}: what `ridge calc NAME --config
  // FILE ...` prints with --json. The config is parsed by the same engine, never read from disk.
  const calc::Calculator* c = registry_.find(p.at("name"));
  if (c == nullptr) {
    return routes::json_error(404, field_errors({{"calculator", p.at("name"), "is not a known calculator", registry_.name_list()}}));
  }
  if (int depth = calc::json_nesting_depth(req.body); depth > 40) {
    return routes::json_error(400, field_errors({{"body", "", "nests " + std::to_string(depth) + " levels deep", "a JSON object nested at most 40 deep"}}));
  }
  nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return routes::json_error(400, field_errors({{"body", "", "is not a JSON object", "{\"config\": {...}, \"gpu\": \"h100-sxm\", ...}"}}));
  }
  calc::Given given = given_from(req);
  std::string config_text;
  for (const auto& [k, v] : body.items()) {
    if (k == "config") {
      if (!v.is_object()) return routes::json_error(400, field_errors({{"config", "", "must be a config.json object", "{\"hidden_size\": ..., ...}"}}));
      config_text = v.dump();
      continue;
    }
    std::string value = v.is_string() ? v.get<std::string>() : v.is_number() || v.is_boolean() ? v.dump() : "";
    if (value.empty()) {
      return routes::json_error(400, field_errors({{k.substr(0, 80), "", "must be a string or a number", "a value as the CLI takes it"}}));
    }
    given[calc::normalize_param_name(k)] = value;
  }
  calc::Catalog catalog = catalog_;
  if (!config_text.empty()) {
    given["config"] = "config.json";
    catalog.read_config = [&config_text](const std::string&) -> calc::Result<std::string> { return config_text; };
  }
  auto d = registry_.evaluate(c->name, given, catalog);
  if (!d) return routes::json_error(400, field_errors(d.errors()));
  return routes::json_text(200, calc::render_json(*d) + "\n");
}

Response App::api_questions(const Request& req) const {
  std::string topic = req.param("topic").value_or(""), difficulty = req.param("difficulty").value_or(""),
              company = req.param("company").value_or("");
  calc::Errors errors;
  if (!topic.empty() && !bank_.find_topic(topic)) {
    std::string known;
    for (const auto& t : bank_.topics) known += (known.empty() ? "" : ", ") + t.id;
    errors.push_back({"topic", topic, "is not a topic", known});
  }
  if (!difficulty.empty() && !bank::parse_difficulty(difficulty)) {
    errors.push_back({"difficulty", difficulty, "is not a difficulty", "easy, medium, hard, expert"});
  }
  if (!company.empty() && !bank_.companies.count(company)) {
    std::string known;
    for (const auto& [id, c] : bank_.companies) known += (known.empty() ? "" : ", ") + id;
    errors.push_back({"company", company, "is not a company", known});
  }
  for (const auto& [k, v] : req.query) {
    if (k != "topic" && k != "difficulty" && k != "company") errors.push_back({k, v, "is not a filter", "topic, difficulty, company"});
  }
  if (!errors.empty()) return routes::json_error(400, field_errors(errors));
  bool signed_in = visitor(req).user_id != 0;
  ordered_json list = ordered_json::array();
  for (const auto& q : bank_.questions) {
    if (!topic.empty() && q.topic != topic) continue;
    if (!difficulty.empty() && bank::difficulty_name(q.difficulty) != difficulty) continue;
    if (!company.empty() && std::none_of(q.companies.begin(), q.companies.end(), [&](const bank::CompanyRef& c) { return c.id == company; })) continue;
    list.push_back(question_summary(q, signed_in));
  }
  Response r = routes::json_text(200, ordered_json{{"questions", list}}.dump(2) + "\n");
  r.personal = signed_in;
  return r;
}

Response App::api_question(const Request& req, const Params& p) const {
  const bank::Question* q = bank_.find(p.at("slug"));
  if (q == nullptr) {
    return routes::json_error(404, field_errors({{"slug", p.at("slug"), "is not a question", "a slug from /api/questions"}}));
  }
  bool personal = false;
  if (!q->free) {
    Visitor v = visitor(req);
    if (v.user_id == 0) {
      return routes::json_error(401, field_errors({{"slug", q->slug, "is readable with an account", "POST /api/signin first"}}));
    }
    auto until = access_until(v.user_id);
    if (!until) return store_unavailable(req, "entitlement lookup failed");
    if (*until <= now()) return payment_required(*q);
    personal = true;
  }
  ordered_json j = question_summary(*q, true);
  ordered_json calcs = ordered_json::object();
  for (const auto& c : q->calcs) {
    if (!c.derivation) continue;
    ordered_json results = ordered_json::object();
    for (const auto& r : c.derivation->results()) results[r.key] = r.value;
    calcs[c.id] = {{"call", c.call}, {"results", results}};
  }
  j["calcs"] = calcs;
  j["html"] = q->html;
  Response r = routes::json_text(200, j.dump(2) + "\n");
  r.personal = personal;
  return r;
}

}  // namespace ridge::web
