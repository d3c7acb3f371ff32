// Practice routes of the App: accounts, sessions, CSRF, reviews scheduled by FSRS, bookmarks,
// notes, drills, the readiness check and the dashboard. Handlers stay pure over the store
// and the injected clock; nothing here touches a socket.
#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "account/security.h"
#include "calc/units.h"
#include "practice/card_state.h"
#include "practice/drills.h"
#include "practice/fsrs.h"
#include "web/app.h"
#include "web/log.h"
#include "web/course_pages.h"
#include "web/routes/response.h"
#include "web/views/practice_views.h"

#include <iostream>
#include "web/pages.h"

namespace ridge::web {

using Json = nlohmann::json;
using routes::redirect;

namespace {

constexpr const char* kCookie = "ridge_session";
constexpr const char* kPreCookie = "ridge_pre";


Json parse_json(const std::string& body) { return Json::parse(body, nullptr, false); }

std::string form_value(const std::vector<std::pair<std::string, std::string>>& form, const std::string& key) {
  for (const auto& [k, v] : form) {
    if (k == key) return v;
  }
  return {};
}

// {"email", "password"} from a JSON body; the email in lower case.
bool read_credentials(const std::string& body_text, std::string& email, std::string& password) {
  Json body = Json::parse(body_text, nullptr, false);
  if (!body.is_object() || !body["email"].is_string() || !body["password"].is_string()) return false;
  email = body["email"];
  password = body["password"];
  std::transform(email.begin(), email.end(), email.begin(), [](unsigned char c) { return std::tolower(c); });
  return true;
}

// The HTTP status of a service failure (one mapping, for the API and the pages).
int failure_status(const services::Failure& f) {
  using Kind = services::Failure::Kind;
  switch (f.kind) {
    case Kind::kInvalid: return 400;
    case Kind::kUnauthorized: return 401;
    case Kind::kForbidden: return 403;
    case Kind::kConflict: return 409;
    case Kind::kLimited: return 429;
    case Kind::kInternal: return 500;
    case Kind::kUpstream: return 502;
    case Kind::kUnavailable: return 503;
  }
  return 500;
}

}  // namespace

int64_t App::now() const { return options_.clock->now(); }

App::Visitor App::visitor(const Request& req) const {
  Visitor v;
  if (options_.store == nullptr) return v;
  std::string token = cookie_value(req.header("cookie"), kCookie);
  if (token.size() != 64) return v;
  std::string hash = account::token_hash(token);
  auto session = options_.store->find_session(hash);
  // A store that does not answer is the server's failure, not an anonymous visitor: 503.
  if (!session.ok()) throw StoreUnavailable(session.error().message);
  if (!session->has_value()) return v;
  if ((*session)->expires_at <= now()) {
    // An expired session is anonymous whether or not the clean-up is written.
    if (auto done = options_.store->delete_session(hash); !done.ok()) log::error("expired session not deleted: " + done.error().message);
    return v;
  }
  auto user = options_.store->get_user((*session)->user_id);
  if (!user.ok()) throw StoreUnavailable(user.error().message);
  if (!user->has_value()) return v;
  v.user_id = (*user)->id;
  v.email = (*user)->email;
  v.csrf = (*session)->csrf_token;
  v.token_hash = hash;
  v.retention = (*user)->desired_retention;
  v.account_id = (*user)->account_id;
  v.email_verified_at = (*user)->email_verified_at;
  v.new_per_day = (*user)->new_per_day;
  return v;
}

bool App::csrf_ok(const Request& req, const Visitor& v, const std::string& form_token) const {
  std::string given = !form_token.empty() ? form_token : req.header("x-csrf-token");
  return v.user_id != 0 && account::equal_tokens(given, v.csrf);
}

Response App::start_session(int64_t user_id, bool as_json, const std::string& next) const {
  auto session = accounts_->start_session(user_id);
  if (!session) throw StoreUnavailable("start_session: " + session.error().detail);
  Response r = as_json ? routes::json(200, nlohmann::json{{"csrf_token", session->csrf}}) : redirect(safe_next(next));
  r.set("Set-Cookie", std::string(kCookie) + "=" + session->token + "; Path=/; HttpOnly; SameSite=Lax; Max-Age=" +
                          std::to_string(services::kSessionSeconds) + (options_.secure_cookies ? "; Secure" : ""));
  return r;
}

void App::add_practice_routes() {
  auto bind = [this](Response (App::*fn)(const Request&) const) {
    return [this, fn](const Request& r, const Params&) { return (this->*fn)(r); };
  };
  router_.add("GET", "/q/{slug}", [this](const Request& r, const Params& p) { return question(r, p); },
              Dispatch::kInlineAnonymous);
  router_.add("POST", "/api/signup", bind(&App::api_signup));
  router_.add("POST", "/api/signin", bind(&App::api_signin));
  router_.add("POST", "/api/signout", bind(&App::signout));
  router_.add("POST", "/signout", bind(&App::signout));
  router_.add("GET", "/signup", [this](const Request& r, const Params&) { return auth_form(r, true, 200, ""); });
  router_.add("GET", "/signin", [this](const Request& r, const Params&) { return auth_form(r, false, 200, ""); });
  router_.add("POST", "/signup", [this](const Request& r, const Params&) { return form_auth(r, true); });
  router_.add("POST", "/signin", [this](const Request& r, const Params&) { return form_auth(r, false); });
  router_.add("GET", "/api/me", bind(&App::api_me));
  router_.add("POST", "/api/reviews", bind(&App::api_review));
  router_.add("GET", "/api/reviews/due", bind(&App::api_due));
  router_.add("GET", "/api/progress", bind(&App::api_progress));
  router_.add("POST", "/api/bookmarks", bind(&App::api_bookmark));
  router_.add("GET", "/api/notes/{slug}", [this](const Request& r, const Params& p) { return api_note(r, p); });
  router_.add("PUT", "/api/notes/{slug}", [this](const Request& r, const Params& p) { return api_note(r, p); });
  router_.add("GET", "/review", bind(&App::review_page));
  router_.add("POST", "/review", bind(&App::review_page));
  router_.add("GET", "/dashboard", bind(&App::dashboard));
  router_.add("GET", "/drill", bind(&App::drill));
  router_.add("POST", "/drill", bind(&App::drill));
  router_.add("GET", "/readiness", bind(&App::readiness));
  router_.add("POST", "/readiness", bind(&App::readiness));
  router_.add("GET", "/settings", bind(&App::settings));
  router_.add("POST", "/settings", bind(&App::settings));
  add_billing_routes();
  add_mail_routes();
}

Response App::course(const Request& req, const Params& p) const {
  auto it = bank_.courses.find(p.at("id"));
  if (it == bank_.courses.end()) return error(req, 404, "There is no course '" + p.at("id") + "'; see /courses.");
  Visitor v = visitor(req);
  if (v.user_id == 0) return page("/courses/" + it->first);
  auto cards = options_.store->cards(v.user_id);
  if (!cards.ok()) return store_unavailable(req, cards.error().message);
  auto progress = course_progress(it->second, *cards, now());
  Site site{bank_, catalog_, registry_, assets_};
  Response r;
  r.body = course_page(site, it->second, &progress);
  r.personal = true;
  return r;
}

Response App::store_unavailable(const Request& req, const std::string& why) const {
  // A store failure is the server's problem, not the user's: 503 with a retry hint, logged.
  log::error("store error on " + req.method + " " + req.path + ": " + why);
  Response r = req.path.rfind("/api/", 0) == 0 ? routes::json_error(503, {"", "", "the database is unavailable; try again in a few seconds", ""})
                                               : error(req, 503, "The database is unavailable; try again in a few seconds.");
  r.set("Retry-After", "5");
  return r;
}

Response App::question(const Request& req, const Params& p) const {
  const bank::Question* q = bank_.find(p.at("slug"));
  if (q == nullptr) return error(req, 404, "There is no question '" + p.at("slug") + "'.");
  if (!q->free) {
    Visitor v = visitor(req);
    if (v.user_id == 0) {
      Response r = page("/q/" + q->slug + "#locked");
      r.personal = true;
      return r;
    }
    auto until = access_until(v.user_id);
    if (!until) return store_unavailable(req, "entitlement lookup failed");
    if (*until <= now()) {
      Response r = page("/q/" + q->slug + "#paywall");
      r.status = 402;
      r.personal = true;
      return r;
    }
  }
  Response r = page("/q/" + q->slug);
  if (!q->free) r.personal = true;
  return r;
}

Response App::api_signup(const Request& req) const {
  std::string email, password;
  if (!read_credentials(req.body, email, password)) {
    return routes::json_error(400, {"body", "", "expected {\"email\": \"...\", \"password\": \"...\"}", ""});
  }
  if (!accounts_) return routes::json_error(503, {"", "", "no database configured", ""});
  auto o = accounts_->sign_up(email, password, client_address(req));
  if (!o) return failure(req, o.error());
  if (o->user_id == 0) {
    // A registered address gets the same status and body as a new one (a token bound to
    // nothing, no session), and its owner a notice by mail.
    if (o->existing) send_account_mail(o->existing, email, true);
    return routes::json(201, nlohmann::json{{"csrf_token", account::random_token()}});
  }
  send_account_mail(o->user_id, email, false);
  Response r = start_session(o->user_id, true, "");
  r.status = r.status == 200 ? 201 : r.status;
  return r;
}

Response App::api_signin(const Request& req) const {
  std::string email, password;
  if (!read_credentials(req.body, email, password)) {
    return routes::json_error(400, {"body", "", "expected {\"email\": \"...\", \"password\": \"...\"}", ""});
  }
  if (!accounts_) return routes::json_error(503, {"", "", "no database configured", ""});
  auto user = accounts_->sign_in(email, password, client_address(req));
  if (!user) {
    if (user.error().kind == services::Failure::Kind::kLimited) metrics_.signin_refused();
    return failure(req, user.error());
  }
  return start_session(*user, true, "");
}

Response App::auth_form(const Request& req, bool signup, int status, const std::string& message) const {
  // A pre-session token (double-submit): the cookie and the hidden field must match on POST,
  // which a cross-site form cannot arrange (no login CSRF).
  std::string pre = account::random_token();
  Site site{bank_, catalog_, registry_, assets_};
  Response r;
  r.status = status;
  r.body = auth_page(site, signup, message, safe_next(req.param("next").value_or(""), ""), pre);
  r.set("Set-Cookie", std::string(kPreCookie) + "=" + pre + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600" +
                          (options_.secure_cookies ? "; Secure" : ""));
  r.personal = true;
  return r;
}

Response App::form_auth(const Request& req, bool signup) const {
  std::vector<std::pair<std::string, std::string>> form;
  std::string next = safe_next(req.param("next").value_or(""));
  if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string pre = cookie_value(req.header("cookie"), kPreCookie);
  if (pre.empty() || !account::equal_tokens(form_value(form, "pre"), pre)) {
    return auth_form(req, signup, 403, "This form expired or was sent from another site; please try again.");
  }
  std::string email = form_value(form, "email");
  std::transform(email.begin(), email.end(), email.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string password = form_value(form, "password");
  if (!accounts_) return auth_form(req, signup, 503, "no database configured");
  // A refusal shown on the form, with the status the API gives it.
  auto refused = [&](const services::Failure& f) {
    if (f.kind == services::Failure::Kind::kLimited && !signup) metrics_.signin_refused();
    Response r = auth_form(req, signup, failure_status(f),
                           f.kind == services::Failure::Kind::kUnavailable ? "the database is unavailable; try again in a few seconds" : f.message());
    if (f.retry_after > 0) r.set("Retry-After", std::to_string(f.retry_after));
    return r;
  };
  int64_t user_id = 0;
  if (signup) {
    auto o = accounts_->sign_up(email, password, client_address(req));
    if (!o) return refused(o.error());
    if (o->user_id == 0) {
      if (o->existing) send_account_mail(o->existing, email, true);
      return auth_form(req, signup, 200, "If this address is new, the account is ready: sign in with it.");
    }
    send_account_mail(o->user_id, email, false);
    user_id = o->user_id;
  } else {
    auto o = accounts_->sign_in(email, password, client_address(req));
    if (!o) return refused(o.error());
    user_id = *o;
  }
  Response go = start_session(user_id, false, next);
  go.set("Set-Cookie", std::string(kPreCookie) + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  return go;
}

Response App::signout(const Request& req) const {
  Visitor v = visitor(req);
  bool api = req.path.rfind("/api/", 0) == 0;
  std::vector<std::pair<std::string, std::string>> form;
  parse_form(req.body, form);
  if (v.user_id == 0) return api ? routes::json_error(401, {"", "", "not signed in", ""}) : redirect("/");
  if (!csrf_ok(req, v, form_value(form, "csrf"))) return api ? routes::json_error(403, {"csrf", "", "missing or wrong CSRF token", ""}) : plain_error(403, "missing or wrong CSRF token");
  if (auto done = accounts_->end_session(v.token_hash); !done) return failure(req, done.error());
  Response r = api ? routes::json(200, nlohmann::json::object()) : redirect("/");
  r.set("Set-Cookie", std::string(kCookie) + "=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
  return r;
}

Response App::api_me(const Request& req) const {
  Visitor v = visitor(req);
  if (v.user_id == 0) return routes::json(200, nlohmann::json{{"signed_in", false}});
  auto until = access_until(v.user_id);
  if (!until) return store_unavailable(req, "entitlement lookup failed");
  nlohmann::json j = {{"signed_in", true}, {"email", v.email}, {"csrf_token", v.csrf}, {"desired_retention", v.retention},
                      {"account_id", v.account_id}};
  j["access_until"] = *until > 0 ? nlohmann::json(billing::rfc3339(*until)) : nlohmann::json(nullptr);
  j["has_access"] = *until > now();
  j["email_verified"] = v.email_verified_at != 0;
  if (auto slug = req.param("slug")) {
    auto card = options_.store->get_card(v.user_id, *slug);
    if (card.ok() && card->has_value()) j["card"] = {{"due", (*card)->due}, {"stability", (*card)->stability}, {"reps", (*card)->reps}};
    auto marks = options_.store->bookmarks(v.user_id);
    j["bookmarked"] = marks.ok() && std::find(marks->begin(), marks->end(), *slug) != marks->end();
  }
  return routes::json(200, j);
}

Response App::failure(const Request& req, const services::Failure& f) const {
  using Kind = services::Failure::Kind;
  if (f.kind == Kind::kUnavailable) return store_unavailable(req, f.detail);
  if (f.kind == Kind::kUpstream) log::error(f.detail);
  int status = failure_status(f);
  Response r = req.path.rfind("/api/", 0) == 0 ? routes::json_error(status, f.errors) : error(req, status, f.message());
  if (f.retry_after > 0) r.set("Retry-After", std::to_string(f.retry_after));
  return r;
}

Response App::api_review(const Request& req) const {
  if (!options_.store) return routes::json_error(503, {"", "", "no database configured", ""});
  Visitor v = visitor(req);
  if (v.user_id == 0) return routes::json_error(401, {"", "", "sign in to save reviews", ""});
  if (!csrf_ok(req, v)) return routes::json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
  Json body = parse_json(req.body);
  if (!body.is_object() || !body["slug"].is_string() || !body["grade"].is_number_integer()) {
    return routes::json_error(400, {"body", "", "expected {\"slug\": \"...\", \"grade\": 1..4}", ""});
  }
  auto graded = reviews_->grade(v.user_id, v.retention, body["slug"], body["grade"].get<int>());
  if (!graded) return failure(req, graded.error());
  return routes::json(200, views::graded_card_json(*graded));
}

Response App::api_due(const Request& req) const {
  Visitor v = visitor(req);
  if (v.user_id == 0) return routes::json_error(401, {"", "", "sign in to see your reviews", ""});
  auto cards = options_.store->cards(v.user_id);
  if (!cards.ok()) return store_unavailable(req, cards.error().message);
  // ?all=1 lists every card with its state (new, due, seen, mastered) and the bookmarks, for
  // the lists' marks and filters; without it, only what is due.
  bool all = req.param("all").value_or("") == "1";
  nlohmann::json due = nlohmann::json::array();
  for (const auto& c : *cards) {
    if (!all && c.due > now()) continue;
    const bank::Question* q = bank_.find(c.slug);
    due.push_back({{"slug", c.slug}, {"title", q ? q->title : c.slug}, {"due", c.due}, {"stability", c.stability},
                   {"state", practice::state_name(practice::card_state(&c, now()))}});
  }
  nlohmann::json out = {{"due", due}, {"now", now()}};
  if (all) {
    auto marks = options_.store->bookmarks(v.user_id);
    if (!marks.ok()) return store_unavailable(req, marks.error().message);
    out["bookmarks"] = *marks;
    out["mastered_stability_days"] = practice::kMasteredStabilityDays;
  }
  return routes::json(200, out);
}

Response App::api_progress(const Request& req) const {
  Visitor v = visitor(req);
  if (v.user_id == 0) return routes::json_error(401, {"", "", "sign in to see your progress", ""});
  return routes::json(200, views::progress_json(reviews_->progress(v.user_id, v.retention)));
}

Response App::api_bookmark(const Request& req) const {
  Visitor v = visitor(req);
  if (v.user_id == 0) return routes::json_error(401, {"", "", "sign in to bookmark", ""});
  if (!csrf_ok(req, v)) return routes::json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
  Json body = parse_json(req.body);
  if (!body.is_object() || !body["slug"].is_string() || !body["on"].is_boolean()) {
    return routes::json_error(400, {"body", "", "expected {\"slug\": \"...\", \"on\": true|false}", ""});
  }
  if (!bank_.find(body["slug"].get<std::string>())) return routes::json_error(400, {"slug", body["slug"], "is not a question", "a slug from /api/questions"});
  auto r = options_.store->set_bookmark(v.user_id, body["slug"], body["on"], now());
  if (!r.ok()) throw StoreUnavailable("set_bookmark: " + r.error().message);
  auto marks = options_.store->bookmarks(v.user_id);
  if (!marks.ok()) throw StoreUnavailable("bookmarks: " + marks.error().message);
  return routes::json(200, nlohmann::json{{"bookmarks", *marks}});
}

Response App::api_note(const Request& req, const Params& p) const {
  Visitor v = visitor(req);
  if (v.user_id == 0) return routes::json_error(401, {"", "", "sign in to keep notes", ""});
  const std::string& slug = p.at("slug");
  if (!bank_.find(slug)) return routes::json_error(404, {"slug", slug, "is not a question", "a slug from /api/questions"});
  if (req.method == "PUT") {
    if (!csrf_ok(req, v)) return routes::json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
    Json body = parse_json(req.body);
    if (!body.is_object() || !body["body"].is_string()) return routes::json_error(400, {"body", "", "expected {\"body\": \"...\"}", ""});
    std::string text = body["body"];
    if (text.size() > 20000) return routes::json_error(413, {"body", "", "a note holds at most 20,000 bytes of UTF-8 (about 20,000 characters of English, fewer of other scripts)", "at most 20,000 bytes"});
    auto r = options_.store->put_note(v.user_id, slug, text, now());
    if (!r.ok()) throw StoreUnavailable("put_note: " + r.error().message);
  }
  auto note = options_.store->get_note(v.user_id, slug);
  if (!note.ok()) throw StoreUnavailable("get_note: " + note.error().message);
  return routes::json(200, nlohmann::json{{"slug", slug}, {"body", note->value_or("")}});
}

}  // namespace ridge::web
