#include "web/app.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string_view>

#include "bank/loader.h"
#include "web/gzip.h"
#include "web/log.h"
#include "web/routes/account_routes.h"
#include "web/routes/billing_routes.h"
#include "web/routes/calc_routes.h"
#include "web/routes/content_routes.h"
#include "web/routes/course_routes.h"
#include "web/routes/export_routes.h"
#include "web/routes/health_routes.h"
#include "web/routes/mail_routes.h"
#include "web/routes/practice_routes.h"
#include "web/routes/rehearse_routes.h"
#include "web/routes/work_routes.h"
#include "web/routes/design_routes.h"
#include "web/routes/response.h"
#include "web/routes/search_routes.h"
#include "web/routes/site_routes.h"

namespace ridge::web {

namespace {

// Bounds of the two caches: about 4,096 calculator answers (a few KB each) and 1,024 search
// pages (tens of KB each), whichever bound is reached first.
constexpr size_t kCalcCacheEntries = 4096, kCalcCacheBytes = size_t{32} << 20;
constexpr size_t kSearchCacheEntries = 1024, kSearchCacheBytes = size_t{48} << 20;
// Prepared answers for the quick path: about 200 bytes each with a page, 1 KB with a kept answer.
constexpr size_t kHotAnswers = 8192;

bool has_session(const Request& req) { return req.header("cookie").find("ridge_session=") != std::string::npos; }

// The routes of the pages that list questions (routes::listing_paths), kept in the lazy cache.
constexpr std::string_view kListingPatterns[] = {"/topics/{id}", "/tracks/{id}", "/concepts/{id}", "/companies/{id}",
                                                 "/easy", "/medium", "/hard", "/expert"};

}  // namespace

App::App(bank::Bank bank, calc::Catalog catalog, calc::Registry registry, Assets assets, AppOptions options)
    : bank_(std::move(bank)),
      catalog_(std::move(catalog)),
      registry_(std::move(registry)),
      assets_(std::move(assets)),
      options_(std::move(options)),
      calc_cache_(std::make_unique<ResponseCache>(kCalcCacheEntries, kCalcCacheBytes)),
      search_cache_(std::make_unique<ResponseCache>(kSearchCacheEntries, kSearchCacheBytes)),
      hot_(std::make_unique<HotAnswers>(kHotAnswers)) {
  catalog_.read_config = nullptr;  // the web never reads a path it was sent
  // A TL;DR left to its first read (issue 30) is made with the registry and catalog this App
  // holds for its life: the loader's were moved into it (`ridge serve`) or are gone.
  for (auto& q : bank_.questions) q.rebind_tldr(registry_, catalog_);
  if (options_.clock == nullptr) {
    system_clock_ = std::make_unique<account::SystemClock>();
    options_.clock = system_clock_.get();
  }
  if (options_.random == nullptr) {
    system_random_ = std::make_unique<services::SodiumRandom>();
    options_.random = system_random_.get();
  }
  const account::Clock& clock = *options_.clock;
  billing_ = std::make_unique<services::BillingService>(options_.billing, options_.store, clock);
  drills_ = std::make_unique<services::DrillService>(registry_, catalog_, options_.store, clock, *options_.random);
  // Mail a visitor can cause, within budgets kept in the store (see SubscriptionService).
  if (options_.store && options_.mail && options_.signer) {
    subscriptions_ = std::make_unique<services::SubscriptionService>(*options_.store, *options_.mail, *options_.signer, clock,
                                                                     options_.mail_wake);
  }
  if (options_.store) {
    std::optional<services::AccountMail> mail;
    if (subscriptions_) mail.emplace(services::AccountMail{*subscriptions_, *options_.mail, *options_.signer});
    accounts_ = std::make_unique<services::AccountService>(*options_.store, clock, *options_.random, mail ? &*mail : nullptr);
    reviews_ = std::make_unique<services::ReviewService>(bank_, *options_.store, clock);
    readiness_ = std::make_unique<services::ReadinessService>(bank_, registry_, catalog_, *options_.store, clock, *options_.random,
                                                              options_.secret);
    // Work it (issue 34).
    work_signer_ = std::make_unique<mail::LinkSigner>(options_.secret);
    work_ = std::make_unique<services::WorkService>(bank_, registry_, catalog_, *options_.store, clock, *options_.random, *reviews_,
                                                    *work_signer_);
  }
  // Issue 30 (start-up): the search index builds on a thread of its own while the rest
  // starts; a search waits for it. Once built, the prose it indexed is read by nothing else in
  // the server (the lint and the seed check are `ridge check`'s), so it is let go.
  search_ = std::make_unique<SearchIndex>(bank_, SearchIndex::Background{}, [this] {
    for (auto& q : bank_.questions) std::string().swap(q.plain_text);
  });
  for (const auto& t : options_.trusted_proxies) {
    if (auto c = parse_cidr(t)) trusted_.push_back(*c);
  }
  // Design rounds (issue 35): the challenges and the trust table, once per process.
  design_ = std::make_unique<services::DesignService>(options_.design_challenges, registry_, catalog_, options_.store, clock,
                                                      options_.validation.is_null() ? std::string() : options_.validation.dump());
  // Work it (issue 34): the question pages link to it where the question is workable.
  // Question pages on first request (issue 30): start-up no longer grows with their rendering.
  // The pages that list questions too (lazy: they grow with the bank, 52 MB at 10,000).
  pages_ = routes::render_pages(Site{bank_, catalog_, registry_, assets_}, options_, work_.get(), /*with_questions=*/false,
                                /*with_listings=*/false);
  question_pages_ = std::make_unique<routes::LazyPages>(options_.page_cache_bytes, [this](const std::string& path) {
    Site site{bank_, catalog_, registry_, assets_};
    if (path.rfind("/q/", 0) == 0) return routes::render_question_page(site, options_, work_.get(), path);
    if (path.rfind(routes::kAnswerKey, 0) == 0) {  // an answer alone (routes::answer_html): no headers, no gzip
      const bank::Question* q = bank_.find(path.substr(routes::kAnswerKey.size()));
      if (q == nullptr) return std::optional<routes::CachedPage>();
      routes::CachedPage answer;
      answer.body = bank::answer_html(*q, registry_, catalog_);
      return std::optional<routes::CachedPage>(std::move(answer));
    }
    if (path.rfind(routes::kApiQuestionKey, 0) == 0) {  // /api/questions/SLUG's JSON: who may read it is checked per request
      const bank::Question* q = bank_.find(path.substr(routes::kApiQuestionKey.size()));
      if (q == nullptr) return std::optional<routes::CachedPage>();
      routes::CachedPage api;
      api.body = routes::api_question_body(*context_, *q);
      return std::optional<routes::CachedPage>(std::move(api));
    }
    return routes::render_listing_page(site, path);
  });
  context_.reset(new routes::Context{bank_, catalog_, registry_, assets_, options_, pages_, *question_pages_, *search_, *calc_cache_, *search_cache_,
                                     metrics_, trusted_, *billing_, *drills_, accounts_.get(), reviews_.get(), readiness_.get(),
                                     subscriptions_.get(), work_.get(), design_.get()});
  add_routes();
}

// The route table: each pattern, the free function that answers it (web/routes/), and where
// the server runs it (Dispatch).
void App::add_routes() {
  const routes::Context* ctx = context_.get();
  using Plain = Response (*)(const Request&, const routes::Context&);
  using WithParams = Response (*)(const Request&, const Params&, const routes::Context&);
  auto to = [ctx](Plain f) -> Handler { return [ctx, f](const Request& r, const Params&) { return f(r, *ctx); }; };
  auto with = [ctx](WithParams f) -> Handler { return [ctx, f](const Request& r, const Params& p) { return f(r, p, *ctx); }; };
  // GET, and POST to the same function (forms that post back to their page).
  auto get_post = [&](const char* pattern, Plain f) {
    router_.add("GET", pattern, to(f));
    router_.add("POST", pattern, to(f));
  };

  // Content pages. With a session a page goes to a worker: its nav is filled in from the session.
  for (const char* pattern : {"/", "/topics", "/concepts", "/companies", "/calc", "/courses", "/hardware"}) {
    router_.add("GET", pattern, to(routes::cached_page), Dispatch::kInlineAnonymous);
  }
  // The pages that list questions are rendered on first request (on a worker), then inline.
  for (std::string_view pattern : kListingPatterns) router_.add("GET", std::string(pattern), to(routes::cached_page), Dispatch::kInlineWhenCached);
  router_.add("GET", "/diagrams", to(routes::diagrams), Dispatch::kInlineAnonymous);
  // A question page is rendered on its first request: that render runs on a worker, never
  // on an I/O thread; once kept, an anonymous visitor's copy is served inline.
  router_.add("GET", "/q/{slug}", with(routes::question), Dispatch::kInlineWhenCached);
  router_.add("GET", "/api/questions", to(routes::api_questions));
  router_.add("GET", "/api/questions/{slug}", with(routes::api_question));
  router_.add("GET", "/static/{file}", to(routes::static_file), Dispatch::kInline);
  // Calculators.
  router_.add("GET", "/calc/{name}", with(routes::calc_page));
  router_.add("GET", "/calc/{name}/diagram.svg", with(routes::calc_diagram));
  router_.add("GET", "/api/calc", to(routes::api_calc_list));
  router_.add("GET", "/api/calc/{name}", with(routes::api_calc), Dispatch::kInlineWhenCached);
  router_.add("POST", "/api/calc/{name}", with(routes::api_calc_post));
  // Search.
  router_.add("GET", "/search", to(routes::search), Dispatch::kInlineWhenCached);
  router_.add("GET", "/api/search", to(routes::api_search));
  // Accounts.
  router_.add("POST", "/api/signup", to(routes::api_signup));
  router_.add("POST", "/api/signin", to(routes::api_signin));
  router_.add("POST", "/api/signout", to(routes::signout));
  router_.add("POST", "/signout", to(routes::signout));
  router_.add("GET", "/signup", to(routes::signup_form));
  router_.add("GET", "/signin", to(routes::signin_form));
  router_.add("POST", "/signup", to(routes::post_signup));
  router_.add("POST", "/signin", to(routes::post_signin));
  router_.add("GET", "/api/me", to(routes::api_me));
  get_post("/settings", routes::settings);
  // Practice.
  router_.add("POST", "/api/reviews", to(routes::api_review));
  router_.add("GET", "/api/reviews/due", to(routes::api_due));
  router_.add("GET", "/api/progress", to(routes::api_progress));
  router_.add("POST", "/api/bookmarks", to(routes::api_bookmark));
  router_.add("GET", "/api/notes/{slug}", with(routes::api_note));
  router_.add("PUT", "/api/notes/{slug}", with(routes::api_note));
  get_post("/review", routes::review_page);
  router_.add("GET", "/dashboard", to(routes::dashboard));
  get_post("/drill", routes::drill);
  get_post("/readiness", routes::readiness);
  // Courses.
  router_.add("GET", "/courses/{id}", with(routes::course), Dispatch::kInlineAnonymous);
  // Billing.
  router_.add("GET", "/pricing", to(routes::pricing));
  router_.add("POST", "/billing/checkout", to(routes::checkout));
  router_.add("POST", "/billing/webhook", to(routes::webhook));
  // Mail.
  router_.add("POST", "/api/subscribe", to(routes::api_subscribe));
  get_post("/subscribe", routes::subscribe_page);
  get_post("/subscribe/confirm", routes::subscribe_confirm);
  get_post("/unsubscribe", routes::unsubscribe);
  get_post("/verify", routes::verify_email);
  get_post("/reset", routes::reset_request);
  get_post("/reset/confirm", routes::reset_confirm);
  get_post("/signin/link", routes::signin_link);
  // Health and metrics.
  // Mock loops (issue 36): start, rounds, report, API.
  router_.add("GET", "/rehearse", to(routes::rehearse_start));
  router_.add("POST", "/companies/{id}/rehearse", with(routes::rehearse_company));
  router_.add("POST", "/tracks/{id}/rehearse", with(routes::rehearse_track));
  router_.add("GET", "/rehearsals/{id}", with(routes::rehearsal_page));
  router_.add("POST", "/rehearsals/{id}", with(routes::rehearsal_page));
  router_.add("GET", "/api/rehearsals/{id}", with(routes::api_rehearsal));
  // issue 33 (polish): what crawlers and browsers ask every site for.
  router_.add("GET", "/robots.txt", to(routes::robots_txt), Dispatch::kInline);
  router_.add("GET", "/sitemap.xml", to(routes::sitemap_xml));
  router_.add("GET", "/favicon.ico", to(routes::favicon), Dispatch::kInline);

  router_.add("GET", "/healthz", to(routes::healthz), Dispatch::kInline);
  router_.add("GET", "/metrics", to(routes::metrics), Dispatch::kInline);
  router_.add("GET", "/readyz", to(routes::readyz));
  // Work it (issue 34): a question's chain with new inputs, graded step by step.
  router_.add("GET", "/q/{slug}/work", with(routes::work_page));
  router_.add("POST", "/q/{slug}/work", with(routes::work_page));
  router_.add("POST", "/api/work/{slug}", with(routes::api_work_start));
  router_.add("POST", "/api/work/{slug}/{seed}/grade", with(routes::api_work_grade));
  // Design rounds (issue 35): the challenges, a challenge's form and verdict, the JSON API.
  router_.add("GET", "/design", to(routes::design_index));
  router_.add("GET", "/design/{id}", with(routes::design_page));
  router_.add("POST", "/design/{id}", with(routes::design_page));
  router_.add("POST", "/api/design/{id}", with(routes::api_design));
  // Exports (issue 37): Anki decks, printable courses, and the OpenAPI description, made once
  // from this table (so it is added last, and sees every route above).
  router_.add("GET", "/export/anki", to(routes::export_anki));
  router_.add("GET", "/courses/{id}/print", with(routes::course_print));
  auto openapi_cache = std::make_shared<routes::OpenApiCache>();
  router_.add("GET", "/api/openapi.json", [this, openapi_cache](const Request& r, const Params&) {
    std::vector<exports::RouteEntry> table;
    for (auto& [method, pattern] : router_.table()) table.push_back({method, pattern});
    return routes::openapi(r, *context_, table, *openapi_cache);
  });
}

Router::Match App::route(const Request& req) const { return router_.match(req.method, req.path); }

bool App::runs_inline(const Request& req, const Router::Match& match) const {
  switch (match.dispatch) {
    case Dispatch::kInline: return true;
    case Dispatch::kInlineAnonymous: return !has_session(req);
    case Dispatch::kWorker: return false;
    // With a session the nav is filled in from the store: that is a worker's job.
    case Dispatch::kInlineWhenCached: return !has_session(req) && cached_answer(req, match) != nullptr;
  }
  return false;
}

std::shared_ptr<const std::string> App::cached_answer(const Request& req, const Router::Match& match) const {
  if (match.pattern == nullptr) return nullptr;
  if (*match.pattern == "/search") return routes::cached_search_answer(req, *context_);
  if (*match.pattern == "/api/calc/{name}") return routes::cached_calc_answer(req, match.params, *context_);
  if (std::find(std::begin(kListingPatterns), std::end(kListingPatterns), *match.pattern) != std::end(kListingPatterns)) {
    auto page = question_pages_->peek(routes::page_path(req.path));
    return page ? std::shared_ptr<const std::string>(page, &page->body) : nullptr;
  }
  if (*match.pattern == "/q/{slug}") {
    // Without a session: a free question's page, a paid one's locked copy (routes::question).
    const bank::Question* q = bank_.find(match.params.at("slug"));
    if (q == nullptr) return nullptr;
    auto page = question_pages_->peek("/q/" + q->slug + (q->free ? "" : "#locked"));
    return page ? std::shared_ptr<const std::string>(page, &page->body) : nullptr;
  }
  return nullptr;
}

Response App::handle(const Request& req) const { return handle(req, route(req)); }

Response App::handle(const Request& req, const Router::Match& match) const {
  auto started = std::chrono::steady_clock::now();
  metrics_.in_flight(1);
  const std::string request_id = log::next_request_id();
  const routes::Context& ctx = *context_;
  Response res;
  PlainPage plain;  // a cached page's identity copy, before a gzip'd one replaces it
  try {
    if (match.handler != nullptr) {
      res = (*match.handler)(req, match.params);
      plain = {res.prebuilt_headers, res.shared_body, res.file};
      // A cached page's gzip'd copy for an anonymous client that accepts gzip (its own header
      // block and ETag, so a 304 below answers per encoding); a personal or signed-in answer
      // (its nav is rewritten, its caching private) stays identity.
      if (res.gzip != nullptr && res.status == 200 && !res.personal && !has_session(req)) {
        res.set("Vary", "Accept-Encoding");  // what a 304 says (a 200 sends the prepared block)
        if (accepts_gzip(req.header("accept-encoding"))) {
          res.shared_body = &res.gzip->body;
          res.prebuilt_headers = &res.gzip->head;
          for (auto& [k, v] : res.headers) {
            if (k == "ETag") v = res.gzip->etag;
          }
        }
      }
      // A signed-in visitor gets the page with their nav, never a 304 for a copy cached
      // before they signed in.
      if (res.status == 200 && !has_session(req)) {
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
      res = routes::error(req, ctx, 405, req.method + " is not allowed on " + req.path + "; allowed: " + match.allow);
      res.set("Allow", match.allow);
    } else {
      res = routes::error(req, ctx, 404, "There is no page at " + req.path + ".");
    }
  } catch (const StoreUnavailable& ex) {
    res = routes::store_unavailable(req, ctx, ex.what());
  } catch (const std::exception& ex) {
    log::error("500 on " + req.method + " " + req.path + ": " + ex.what(), request_id);
    res = routes::error(req, ctx, 500, "Something broke while answering this request (request id " + request_id + ").");
  }
  // Whatever depends on the visitor is never stored by a shared cache: a response marked
  // personal, and any answer to a request that carries a session (except static assets,
  // which are the same for everyone).
  bool session = has_session(req);
  if (session && match.dispatch != Dispatch::kInline) personalize_nav(req, res);
  if (res.personal || (session && req.path.rfind("/static/", 0) != 0)) make_personal(res);
  bool has_csp = std::any_of(res.headers.begin(), res.headers.end(), [](const auto& h) { return h.first == "Content-Security-Policy"; });
  if (res.prebuilt_headers == nullptr && !has_csp) routes::add_standard_headers(res);
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
  if (res.shareable) prepare_hot(req, match, res, plain);
  metrics_.in_flight(-1);
  auto elapsed = std::chrono::steady_clock::now() - started;
  metrics_.request(match.pattern ? *match.pattern : (match.allow.empty() ? "unmatched" : "wrong-method"), res.status,
                   std::chrono::duration<double>(elapsed).count());
  uint64_t bytes = res.head_only ? 0 : res.view().size();  // a kept answer's too (held_body)
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
    if (routes::visitor(req, *context_).user_id == 0) return;
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
      } else if (name != "Content-Length" && name != "Cache-Control" && name != "ETag" && name != "Vary") {
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

Response App::plain_error(int status, const std::string& message) const { return routes::plain_error(status, message); }

}  // namespace ridge::web
