// The web application: builds the routes' Context (the services, the caches, the pages
// rendered at start-up), wires the route table to the free functions of web/routes/, and adds
// what every response carries (security headers, caching, the personal marking, metrics and
// the access log). No sockets here: server.cc does the I/O and the tests call handle() directly.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "calc/registry.h"
#include "web/app_options.h"
#include "web/assets.h"
#include "web/hot_answers.h"
#include "web/http.h"
#include "web/metrics.h"
#include "web/response_cache.h"
#include "web/router.h"
#include "web/routes/context.h"
#include "web/search.h"

namespace ridge::web {

class App {
 public:
  App(bank::Bank bank, calc::Catalog catalog, calc::Registry registry, Assets assets, AppOptions options = {});
  // The Context points into the App: it stays where it was built.
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Routes, runs the handler, and adds the headers every response carries (security,
  // caching). Never throws: a handler's exception becomes a 500 page.
  Response handle(const Request& req) const;
  // The same with the route already matched (the server matches once per request).
  Response handle(const Request& req, const Router::Match& match) const;
  Router::Match route(const Request& req) const;

  // True when `req` can be answered on the I/O thread: its handler only reads memory
  // (Router's Dispatch). Everything else goes to the server's worker pool.
  bool runs_inline(const Request& req, const Router::Match& match) const;

  // The server's quick path (web/quick_request.h, web/hot_answers.h): the prepared answer to
  // an anonymous GET of `target` that handle() found to be the same for every such visitor, or
  // a miss (answer null): the request then takes handle().
  HotAnswers::Hit hot_answer(std::string_view target) const { return hot_->find(target); }
  // Counts a quick answer in the metrics and the access log as handle() counts the others.
  void count_quick(const HotAnswer& answer, std::string_view path, uint64_t bytes,
                   std::chrono::steady_clock::time_point started, std::string_view request_id) const;
  size_t hot_answers() const { return hot_->size(); }

  // A plain-text error with the standard headers, for failures before routing (a request
  // too large or malformed to parse).
  Response plain_error(int status, const std::string& message) const;

  const bank::Bank& bank() const { return bank_; }
  const Metrics& metrics() const { return metrics_; }
  size_t cached_pages() const { return pages_.size(); }  // rendered at start-up (not the question pages)
  const routes::LazyPages& question_pages() const { return *question_pages_; }
  const ResponseCache& calc_cache() const { return *calc_cache_; }
  const ResponseCache& search_cache() const { return *search_cache_; }
  const SearchIndex& search_index() const { return *search_; }

 private:
  void add_routes();
  // The cached body that answers `req` on a kInlineWhenCached route, or nullptr.
  std::shared_ptr<const std::string> cached_answer(const Request& req, const Router::Match& match) const;
  // Keeps `res` (answered to `req`) for the quick path when it is the same for every anonymous
  // GET of its target. `plain`: the handler's identity header block, body and memory file,
  // before a gzip'd copy replaced them.
  struct PlainPage {
    const std::string* head = nullptr;
    const std::string* body = nullptr;
    const BodyFile* file = nullptr;
  };
  void prepare_hot(const Request& req, const Router::Match& match, const Response& res, const PlainPage& plain) const;
  // Cache-Control: private, no-store and Vary: Cookie, replacing a cached page's headers.
  void make_personal(Response& res) const;
  // A signed-in visitor's copy of an HTML page: the nav's "Sign in" becomes "Progress".
  void personalize_nav(const Request& req, Response& res) const;

  bank::Bank bank_;
  calc::Catalog catalog_;
  calc::Registry registry_;
  Assets assets_;
  AppOptions options_;
  std::unique_ptr<account::SystemClock> system_clock_;  // when options_.clock is null
  std::unique_ptr<services::SodiumRandom> system_random_;  // when options_.random is null
  std::unique_ptr<SearchIndex> search_;
  std::vector<Cidr> trusted_;
  Metrics metrics_;
  // Rendered answers of the calculator API and of search (bounded; see response_cache.h).
  std::unique_ptr<ResponseCache> calc_cache_, search_cache_;
  std::unique_ptr<HotAnswers> hot_;  // the quick path's prepared answers
  routes::PageCache pages_;
  std::unique_ptr<routes::LazyPages> question_pages_;
  // The services over the store (see routes::Context for which exist when).
  std::unique_ptr<services::BillingService> billing_;
  std::unique_ptr<services::DrillService> drills_;
  std::unique_ptr<services::SubscriptionService> subscriptions_;
  std::unique_ptr<services::AccountService> accounts_;
  std::unique_ptr<services::ReviewService> reviews_;
  std::unique_ptr<services::ReadinessService> readiness_;
  // Work it (issue 34): exercises signed with a key from RIDGE_SECRET (options.secret).
  std::unique_ptr<mail::LinkSigner> work_signer_;
  std::unique_ptr<services::WorkService> work_;
  std::unique_ptr<services::DesignService> design_;  // design rounds (issue 35)
  std::unique_ptr<const routes::Context> context_;
  Router router_;
};

}  // namespace ridge::web
