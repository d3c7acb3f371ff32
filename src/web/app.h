// The web application: every route, as functions from a Request to a Response. Pages
// that do not depend on the query are rendered once, at construction, and served from
// memory. No sockets here: server.cc does the I/O and the tests call handle() directly.
#pragma once

#include <atomic>
#include <optional>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "account/clock.h"
#include "account/rate_limiter.h"
#include "bank/bank.h"
#include "billing/billing.h"
#include "store/store.h"
#include "calc/registry.h"
#include "mail/mail.h"
#include "web/assets.h"
#include "web/http.h"
#include "web/metrics.h"
#include "web/response_cache.h"
#include "web/router.h"
#include "web/search.h"
#include "web/services/outcome.h"
#include "web/services/account_service.h"
#include "web/services/billing_service.h"
#include "web/services/drill_service.h"
#include "web/services/random_source.h"
#include "web/services/readiness_service.h"
#include "web/services/review_service.h"
#include "web/services/subscription_service.h"

namespace ridge::web {

// Thrown by a handler when the store does not answer; App::handle turns it into 503 with a
// retry hint and a log line, never a user error.
struct StoreUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct AppOptions {
  // Accounts, reviews and progress live here; without a store those routes answer 503.
  store::Store* store = nullptr;
  // The time for sessions, schedules and rate limits (tests pass a FakeClock).
  const account::Clock* clock = nullptr;
  // Adds Secure to the session cookie (set when served behind TLS).
  bool secure_cookies = false;
  // Proxies whose X-Forwarded-For is believed ("10.0.0.0/8", "127.0.0.1/32", "::1/128").
  // A request from one of them is attributed to the last address in that header that is
  // not itself a trusted proxy; from anyone else the header is ignored.
  std::vector<std::string> trusted_proxies;
  // The price and the payment provider; without its keys the site is grant-only
  // (`ridge grant`) and /pricing says so.
  billing::BillingConfig billing;
  // This site's address as users reach it (links in mail, the provider's return URLs).
  std::string base_url = "http://localhost:8080";
  // Mail: the From address and links (config), their signing key (signer), and a nudge for
  // the sender after a message is queued. Without config and signer, mail routes answer 503.
  const mail::MailConfig* mail = nullptr;
  const mail::LinkSigner* signer = nullptr;
  std::function<void()> mail_wake;
  // Keys the readiness check's MAC (RIDGE_SECRET, read once by `ridge serve`, so servers of
  // one site accept each other's checks). Empty: a random key for this process.
  std::string secret;
  // Drill seeds and readiness nonces (tests pass a SeededRandom); null: libsodium's.
  services::RandomSource* random = nullptr;
  // `ridge validate --json`'s object, shown on /calc (null: no table).
  nlohmann::json validation;
};

class App {
 public:
  App(bank::Bank bank, calc::Catalog catalog, calc::Registry registry, Assets assets, AppOptions options = {});

  // Routes, runs the handler, and adds the headers every response carries (security,
  // caching). Never throws: a handler's exception becomes a 500 page.
  Response handle(const Request& req) const;
  // The same with the route already matched (the server matches once per request).
  Response handle(const Request& req, const Router::Match& match) const;
  Router::Match route(const Request& req) const;

  // True when `req` can be answered on the I/O thread: its handler only reads memory
  // (Router's Dispatch). Everything else goes to the server's worker pool.
  bool runs_inline(const Request& req, const Router::Match& match) const;

  // A plain-text error with the standard headers, for failures before routing (a request
  // too large or malformed to parse).
  Response plain_error(int status, const std::string& message) const;

  const bank::Bank& bank() const { return bank_; }
  const Metrics& metrics() const { return metrics_; }
  size_t cached_pages() const { return pages_.size(); }
  const ResponseCache& calc_cache() const { return *calc_cache_; }
  const ResponseCache& search_cache() const { return *search_cache_; }

 private:
  void add_routes();
  Response page(const std::string& path) const;
  Response error(const Request& req, int status, const std::string& message) const;
  void add_standard_headers(Response& res) const;
  // Cache-Control: private, no-store and Vary: Cookie, replacing a cached page's headers.
  void make_personal(Response& res) const;
  // A signed-in visitor's copy of an HTML page: the nav's "Sign in" becomes "Progress".
  void personalize_nav(const Request& req, Response& res) const;

  Response calc_page(const Request& req, const Params& p) const;
  Response search(const Request& req) const;
  // GET /api/search?q=...&limit=N: the top hits as JSON, for the search box's suggestions.
  Response api_search(const Request& req) const;
  // The cached body that answers `req` on a kInlineWhenCached route, or nullptr.
  std::shared_ptr<const std::string> cached_answer(const Request& req, const Router::Match& match) const;
  // The search cache's key for `req`, or nullopt when its parameters are refused.
  std::optional<std::string> search_key(const Request& req) const;
  Response calc_diagram(const Request& req, const Params& p) const;

  // Practice (practice_routes.cc): accounts, reviews, bookmarks, notes, drills, readiness.
  struct Visitor {
    int64_t user_id = 0;  // 0: not signed in
    std::string email;
    std::string csrf;
    std::string token_hash;
    double retention = 0.9;
    std::string account_id;
    int64_t email_verified_at = 0;
    int new_per_day = 20;  // the daily new-card limit from settings
  };
  void add_practice_routes();
  Visitor visitor(const Request& req) const;
  bool csrf_ok(const Request& req, const Visitor& v, const std::string& form_token = "") const;
  // Parses a POSTed form into `form` and checks its CSRF token; the refusal to send, if any.
  std::optional<Response> read_post_form(const Request& req, const Visitor& v,
                                         std::vector<std::pair<std::string, std::string>>& form) const;
  Response start_session(int64_t user_id, bool as_json, const std::string& next) const;
  Response question(const Request& req, const Params& p) const;
  Response course(const Request& req, const Params& p) const;
  // 503, a retry hint and a log line for a failed store call.
  Response store_unavailable(const Request& req, const std::string& why) const;
  Response auth_form(const Request& req, bool signup, int status, const std::string& message) const;
  // The client's address: the peer, or with a trusted proxy the X-Forwarded-For hop before it.
  std::string client_address(const Request& req) const;
  Response api_signup(const Request& req) const;
  Response api_signin(const Request& req) const;
  Response form_auth(const Request& req, bool signup) const;
  Response signout(const Request& req) const;
  Response api_me(const Request& req) const;
  Response api_review(const Request& req) const;
  Response api_due(const Request& req) const;
  Response api_progress(const Request& req) const;
  Response api_bookmark(const Request& req) const;
  Response api_note(const Request& req, const Params& p) const;
  Response review_page(const Request& req) const;
  Response dashboard(const Request& req) const;
  Response drill(const Request& req) const;
  Response readiness(const Request& req) const;
  Response settings(const Request& req) const;
  // A service's failure as the answer: 503 and a log line for the store, else the status of
  // its kind with the error shape (API paths) or the error page.
  Response failure(const Request& req, const services::Failure& f) const;
  int64_t now() const;
  // Billing (billing_routes.cc): the price, checkout, the provider's webhook.
  void add_billing_routes();
  // The end of the user's paid access, 0 without; nullopt when the store failed.
  std::optional<int64_t> access_until(int64_t user_id) const;
  Response pricing(const Request& req) const;
  Response checkout(const Request& req) const;
  Response webhook(const Request& req) const;
  Response payment_required(const bank::Question& q) const;
  // Mail (mail_routes.cc): subscriptions with double opt-in, one-click unsubscribe, email
  // verification and password reset. Everything sent is queued; nothing waits for SMTP.
  void add_mail_routes();
  // Queues the verification mail of a new account (or a notice to an existing one).
  void send_account_mail(int64_t user_id, const std::string& email, bool existing) const;
  Response api_subscribe(const Request& req) const;
  Response subscribe_page(const Request& req) const;
  Response subscribe_confirm(const Request& req) const;
  Response unsubscribe(const Request& req) const;
  Response verify_email(const Request& req) const;
  Response reset_request(const Request& req) const;
  Response reset_confirm(const Request& req) const;
  Response api_calc_list() const;
  Response api_calc(const Request& req, const Params& p) const;
  Response api_calc_post(const Request& req, const Params& p) const;
  Response api_questions(const Request& req) const;
  Response api_question(const Request& req, const Params& p) const;

  bank::Bank bank_;
  calc::Catalog catalog_;
  calc::Registry registry_;
  Assets assets_;
  AppOptions options_;
  std::unique_ptr<SearchIndex> search_;
  std::vector<Cidr> trusted_;
  Metrics metrics_;
  // Rendered answers of the calculator API and of search (bounded; see response_cache.h).
  std::unique_ptr<ResponseCache> calc_cache_, search_cache_;
  // The services over the store (null without one).
  std::unique_ptr<services::SodiumRandom> system_random_;  // when options_.random is null
  std::unique_ptr<services::AccountService> accounts_;
  std::unique_ptr<services::ReviewService> reviews_;
  std::unique_ptr<services::BillingService> billing_;  // also without a store (nobody has access)
  std::unique_ptr<services::SubscriptionService> subscriptions_;  // with a store, mail config and signer only
  std::unique_ptr<services::DrillService> drills_;  // also without a store (nothing recorded)
  std::unique_ptr<services::ReadinessService> readiness_;  // one readiness submission checked and saved at a time
  Router router_;
  struct Cached {
    std::string body;
    std::string etag;
    std::string head;  // every header line of the 200 response, Content-Length included
    std::string personal_head;  // the same lines for a personal answer, for pages only served so (else empty)
  };
  std::map<std::string, Cached, std::less<>> pages_;
  std::unique_ptr<account::SystemClock> system_clock_;
};

}  // namespace ridge::web
