// What every route reads, and the steps routes share. A route is a free function
//   Response f(const Request&, const Context&)       (or with the route's Params)
// that parses, calls a service and renders: it knows nothing of sockets (server.cc) nor of SQL
// (the services and the store). The App builds one Context, owns everything it points to, and
// passes it to every request on every thread: each member is safe to read or call at once
// from many threads (see its own header).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bank/bank.h"
#include "calc/registry.h"
#include "common/result.h"
#include "web/app_options.h"
#include "web/assets.h"
#include "web/http.h"
#include "web/metrics.h"
#include "web/pages.h"
#include "web/response_cache.h"
#include "web/routes/cached_page.h"
#include "web/routes/lazy_pages.h"
#include "web/search.h"
#include "web/services/account_service.h"
#include "web/services/billing_service.h"
#include "web/services/design_service.h"
#include "web/services/drill_service.h"
#include "web/services/readiness_service.h"
#include "web/services/review_service.h"
#include "web/services/subscription_service.h"
#include "web/services/work_service.h"

namespace ridge::web {

// Thrown by a route when the store does not answer; App::handle turns it into 503 with a
// retry hint and a log line, never a user error.
struct StoreUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace routes {

struct Context {
  const bank::Bank& bank;
  const calc::Catalog& catalog;  // read_config is null: the web never reads a path it was sent
  const calc::Registry& registry;
  const Assets& assets;
  // As the App completed them: `clock` and `random` are never null.
  const AppOptions& options;
  const PageCache& pages;  // rendered at start-up: every page but the questions'
  // The question pages (and a paid question's "#locked" and "#paywall" copies), rendered on
  // first request into a cache bounded by bytes (AppOptions::page_cache_bytes).
  const LazyPages& question_pages;
  const SearchIndex& search;
  // The calculator API's and search's answers, the same for everyone; filled in by the routes
  // that answer from them (locked inside: see response_cache.h).
  ResponseCache& calc_cache;
  ResponseCache& search_cache;
  const Metrics& metrics;
  const std::vector<Cidr>& trusted_proxies;
  // The services over the store. Always there: billing (without a store nobody has access)
  // and drills (without a store nothing is recorded). The others are null without a store;
  // subscriptions also without mail configuration and a link signer.
  const services::BillingService& billing;
  const services::DrillService& drills;
  const services::AccountService* accounts = nullptr;
  const services::ReviewService* reviews = nullptr;
  const services::ReadinessService* readiness = nullptr;
  const services::SubscriptionService* subscriptions = nullptr;
  const services::WorkService* work = nullptr;  // Work it (issue 34): null without a store
  // Design rounds (issue 35): always there; grading works
  // without a store, keeping attempts does not.
  const services::DesignService* design = nullptr;

  Site site() const { return {bank, catalog, registry, assets}; }
  int64_t now() const { return options.clock->now(); }
  store::Store* store() const { return options.store; }
};

// A POSTed form or a query: the pairs in order.
using Form = std::vector<std::pair<std::string, std::string>>;
// The first value of `key`, or "".
std::string form_value(const Form& form, const std::string& key);

constexpr const char* kSessionCookie = "ridge_session";
// The pre-session token of the forms that work without a session (sign-in, sign-up, the
// weekly question, reset): the cookie and the form's hidden field must match on POST, which
// a cross-site form cannot arrange (no login CSRF).
constexpr const char* kPreCookie = "ridge_pre";
// The Set-Cookie value that gives a visitor the pre-session token `token` for an hour.
std::string pre_cookie(const Context& ctx, const std::string& token);

// The cached page at `path` (a key of PageCache, or a question page's path, rendered now if
// it is not kept), served without a copy; 404 if none.
Response page(const Context& ctx, const std::string& path);
// A question's rendered answer, kept in the page cache under "answer:SLUG" (kAnswerKey), so the
// API, a rehearsal and a course's print page do not render the Markdown again on each request.
// Throws bank::BrokenBody as bank::answer_html does.
inline constexpr std::string_view kAnswerKey = "answer:";
// A question's /api/questions/SLUG body (its summary, every calc block's results and the answer),
// kept likewise under "api-question:SLUG": it is the same for everyone entitled to read it (who
// may read it is decided per request, before the cache), and evaluating its calc blocks on every
// request cost what rendering the page once did (issue 30).
inline constexpr std::string_view kApiQuestionKey = "api-question:";
std::string answer_html(const Context& ctx, const bank::Question& q);
// An error in the shape the path asks for: the JSON error shape under /api/, else the error page.
Response error(const Request& req, const Context& ctx, int status, const std::string& message);
// 503, a retry hint and a log line for a failed store call (the store's failure is the
// server's problem, never shown as the user's).
Response store_unavailable(const Request& req, const Context& ctx, const std::string& why);
// The HTTP status of a service failure (one mapping, for the API and the pages).
int failure_status(const Failure& f);
// A service's failure as the answer: 503 and a log line for the store, else the status of
// its kind with the error shape (API paths) or the error page.
Response failure(const Request& req, const Context& ctx, const Failure& f);
// The engine's errors in the one error shape: the message says the value and what is accepted.
std::vector<FieldError> field_errors(const calc::Errors& errors);

// The visitor of the request's session cookie: anonymous (user_id 0) without a store, a
// cookie, or a live session. Throws StoreUnavailable when the store does not answer.
services::Visitor visitor(const Request& req, const Context& ctx);
// The CSRF token of the visitor's session, from the form (`form_token`) or X-CSRF-Token.
bool csrf_ok(const Request& req, const services::Visitor& v, const std::string& form_token = "");
// Parses a POSTed form into `form` and checks its CSRF token; the refusal to send, if any.
std::optional<Response> read_post_form(const Request& req, const services::Visitor& v, Form& form);
// A new session for `user_id` and its cookie: {"csrf_token"} as JSON, or a redirect to `next`.
Response start_session(const Context& ctx, int64_t user_id, bool as_json, const std::string& next);
// The end of the user's paid access, 0 without; nullopt when the store failed.
std::optional<int64_t> access_until(const Context& ctx, int64_t user_id);
// The client's address: the peer, or with a trusted proxy the X-Forwarded-For hop before it.
std::string client_address(const Request& req, const Context& ctx);

}  // namespace routes
}  // namespace ridge::web
