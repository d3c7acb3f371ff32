#include "web/routes/account_routes.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "account/security.h"
#include "billing/billing.h"
#include "web/routes/response.h"
#include "web/views/practice_views.h"

namespace ridge::web::routes {

namespace {

// {"email", "password"} from a JSON body; the email in lower case.
bool read_credentials(const std::string& body_text, std::string& email, std::string& password) {
  nlohmann::json body = nlohmann::json::parse(body_text, nullptr, false);
  if (!body.is_object() || !body["email"].is_string() || !body["password"].is_string()) return false;
  email = body["email"];
  password = body["password"];
  std::transform(email.begin(), email.end(), email.begin(), [](unsigned char c) { return std::tolower(c); });
  return true;
}

// The sign-in or sign-up form with `message` above it, and a new pre-session token.
Response auth_form(const Request& req, const Context& ctx, bool signup, int status, const std::string& message) {
  std::string pre = account::random_token();
  Response r;
  r.status = status;
  r.body = auth_page(ctx.site(), signup, message, safe_next(req.param("next").value_or(""), ""), pre);
  r.set("Set-Cookie", pre_cookie(ctx, pre));
  r.personal = true;
  return r;
}

Response form_auth(const Request& req, const Context& ctx, bool signup) {
  Form form;
  std::string next = safe_next(req.param("next").value_or(""));
  if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string pre = cookie_value(req.header("cookie"), kPreCookie);
  if (pre.empty() || !account::equal_tokens(form_value(form, "pre"), pre)) {
    return auth_form(req, ctx, signup, 403, "This form expired or was sent from another site; please try again.");
  }
  std::string email = form_value(form, "email");
  std::transform(email.begin(), email.end(), email.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string password = form_value(form, "password");
  if (!ctx.accounts) return auth_form(req, ctx, signup, 503, "no database configured");
  // A refusal shown on the form, with the status the API gives it.
  auto refused = [&](const Failure& f) {
    if (f.kind == Failure::Kind::kLimited && !signup) ctx.metrics.signin_refused();
    Response r = auth_form(req, ctx, signup, failure_status(f),
                           f.kind == Failure::Kind::kUnavailable ? "the database is unavailable; try again in a few seconds" : f.message());
    if (f.retry_after > 0) r.set("Retry-After", std::to_string(f.retry_after));
    return r;
  };
  int64_t user_id = 0;
  if (signup) {
    auto o = ctx.accounts->sign_up(email, password, client_address(req, ctx));
    if (!o) return refused(o.error());
    if (o->user_id == 0) {
      if (o->existing) ctx.accounts->send_account_mail(o->existing, email, true);
      return auth_form(req, ctx, signup, 200, "If this address is new, the account is ready: sign in with it.");
    }
    ctx.accounts->send_account_mail(o->user_id, email, false);
    user_id = o->user_id;
  } else {
    auto o = ctx.accounts->sign_in(email, password, client_address(req, ctx));
    if (!o) return refused(o.error());
    user_id = *o;
  }
  Response go = start_session(ctx, user_id, false, next);
  go.set("Set-Cookie", std::string(kPreCookie) + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  return go;
}

}  // namespace

Response api_signup(const Request& req, const Context& ctx) {
  std::string email, password;
  if (!read_credentials(req.body, email, password)) {
    return json_error(400, {"body", "", "expected {\"email\": \"...\", \"password\": \"...\"}", ""});
  }
  if (!ctx.accounts) return json_error(503, {"", "", "no database configured", ""});
  auto o = ctx.accounts->sign_up(email, password, client_address(req, ctx));
  if (!o) return failure(req, ctx, o.error());
  if (o->user_id == 0) {
    // A registered address gets the same status and body as a new one (a token bound to
    // nothing, no session), and its owner a notice by mail.
    if (o->existing) ctx.accounts->send_account_mail(o->existing, email, true);
    return json(201, nlohmann::json{{"csrf_token", account::random_token()}});
  }
  ctx.accounts->send_account_mail(o->user_id, email, false);
  Response r = start_session(ctx, o->user_id, true, "");
  r.status = r.status == 200 ? 201 : r.status;
  return r;
}

Response api_signin(const Request& req, const Context& ctx) {
  std::string email, password;
  if (!read_credentials(req.body, email, password)) {
    return json_error(400, {"body", "", "expected {\"email\": \"...\", \"password\": \"...\"}", ""});
  }
  if (!ctx.accounts) return json_error(503, {"", "", "no database configured", ""});
  auto user = ctx.accounts->sign_in(email, password, client_address(req, ctx));
  if (!user) {
    if (user.error().kind == Failure::Kind::kLimited) ctx.metrics.signin_refused();
    return failure(req, ctx, user.error());
  }
  return start_session(ctx, *user, true, "");
}

Response signup_form(const Request& req, const Context& ctx) { return auth_form(req, ctx, true, 200, ""); }
Response signin_form(const Request& req, const Context& ctx) { return auth_form(req, ctx, false, 200, ""); }
Response post_signup(const Request& req, const Context& ctx) { return form_auth(req, ctx, true); }
Response post_signin(const Request& req, const Context& ctx) { return form_auth(req, ctx, false); }

Response signout(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  bool api = req.path.rfind("/api/", 0) == 0;
  Form form;
  parse_form(req.body, form);
  if (v.user_id == 0) return api ? json_error(401, {"", "", "not signed in", ""}) : redirect("/");
  if (!csrf_ok(req, v, form_value(form, "csrf"))) {
    return api ? json_error(403, {"csrf", "", "missing or wrong CSRF token", ""}) : plain_error(403, "missing or wrong CSRF token");
  }
  if (auto done = ctx.accounts->end_session(v.token_hash); !done) return failure(req, ctx, done.error());
  Response r = api ? json(200, nlohmann::json::object()) : redirect("/");
  r.set("Set-Cookie", std::string(kSessionCookie) + "=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
  return r;
}

Response api_me(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json(200, nlohmann::json{{"signed_in", false}});
  auto until = access_until(ctx, v.user_id);
  if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
  nlohmann::json j = {{"signed_in", true}, {"email", v.email}, {"csrf_token", v.csrf}, {"desired_retention", v.retention},
                      {"account_id", v.account_id}};
  j["access_until"] = *until > 0 ? nlohmann::json(billing::rfc3339(*until)) : nlohmann::json(nullptr);
  j["has_access"] = *until > ctx.now();
  j["email_verified"] = v.email_verified_at != 0;
  if (auto slug = req.param("slug")) {
    auto card = ctx.store()->get_card(v.user_id, *slug);
    if (card.ok() && card->has_value()) j["card"] = {{"due", (*card)->due}, {"stability", (*card)->stability}, {"reps", (*card)->reps}};
    auto marks = ctx.store()->bookmarks(v.user_id);
    j["bookmarked"] = marks.ok() && std::find(marks->begin(), marks->end(), *slug) != marks->end();
  }
  return json(200, j);
}

Response settings(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/settings");
  std::string message;
  int status = 200;
  int64_t retry_after = 0;
  if (req.method == "POST") {
    Form form;
    if (auto refused = read_post_form(req, v, form)) return *refused;
    std::string action = form_value(form, "action");
    using Kind = Failure::Kind;
    // A refusal the user can act on is shown on the page (a spent password budget as a 429 with
    // Retry-After, so a client or a proxy sees the limit); a store failure is a 503.
    auto shown = [&](const Failure& f) -> std::optional<Response> {
      if (f.kind == Kind::kUnavailable) return store_unavailable(req, ctx, f.detail);
      if (f.kind == Kind::kInternal) return plain_error(500, f.message());
      if (f.kind == Kind::kLimited) {
        status = 429;
        retry_after = f.retry_after;
      }
      message = f.message();
      return std::nullopt;
    };
    if (action == "retention") {
      auto r = ctx.accounts->set_retention(v.user_id, form_value(form, "retention"));
      if (!r) {
        if (auto stop = shown(r.error())) return *stop;
      } else {
        v.retention = *r;
        message = "Desired retention set to " + views::percent(*r) + ".";
      }
    } else if (action == "new-per-day") {
      auto n = ctx.accounts->set_new_per_day(v.user_id, form_value(form, "new_per_day"));
      if (!n) {
        if (auto stop = shown(n.error())) return *stop;
      } else {
        v.new_per_day = *n;
        message = "The review page offers up to " + std::to_string(*n) + " new question" + (*n == 1 ? "" : "s") + " a day.";
      }
    } else if (action == "password") {
      auto done = ctx.accounts->change_password(v.user_id, form_value(form, "current"), form_value(form, "new"));
      if (done) return start_session(ctx, v.user_id, false, "/settings");
      if (auto stop = shown(done.error())) return *stop;
    } else if (action == "verify") {
      if (v.email_verified_at == 0) ctx.accounts->send_account_mail(v.user_id, v.email, false);
      message = "A new verification link is on its way to " + v.email + " (it works once, for 30 minutes).";
    } else if (action == "delete") {
      auto done = ctx.accounts->delete_account(v.user_id, form_value(form, "current"));
      if (done) {
        Response r = redirect("/");
        r.set("Set-Cookie", "ridge_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
        return r;
      }
      if (auto stop = shown(done.error())) return *stop;
    }
  }
  auto until = access_until(ctx, v.user_id);
  if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
  views::SettingsView view{message, *until, ctx.now(), req.param("paid").has_value(), v.email, v.email_verified_at != 0,
                           v.csrf, v.retention, v.new_per_day};
  Response r = html(status, layout(ctx.site(), "Settings", "Account settings", views::settings_page(view)));
  r.set("Cache-Control", "no-store");
  if (retry_after > 0) r.set("Retry-After", std::to_string(retry_after));
  return r;
}

}  // namespace ridge::web::routes
