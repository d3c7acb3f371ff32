#include "web/routes/mail_routes.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "account/security.h"
#include "web/log.h"
#include "web/routes/response.h"
#include "web/views/account_views.h"

namespace ridge::web::routes {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_token(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A query or form value: the form wins on POST.
std::string input(const Request& req, const Form& form, const std::string& key) {
  std::string v = form_value(form, key);
  return v.empty() ? req.param(key).value_or("") : v;
}

}  // namespace

Response api_subscribe(const Request& req, const Context& ctx) {
  // JSON only: a cross-site form cannot send application/json without a CORS preflight.
  if (req.header("content-type").rfind("application/json", 0) != 0) {
    return json_error(415, {"Content-Type", req.header("content-type").substr(0, 80), "expected application/json", "application/json"});
  }
  auto body = nlohmann::json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body["email"].is_string()) return json_error(400, {"email", "", "expected {\"email\": \"...\"}", ""});
  if (!ctx.subscriptions) return json_error(503, {"", "", "mail is not configured on this site", ""});
  auto done = ctx.subscriptions->subscribe(lower(body["email"]), client_address(req, ctx));
  if (!done) return failure(req, ctx, done.error());
  return json(202, nlohmann::json{{"status", "check your inbox"},
                                  {"message", "If the address can receive mail, a confirmation link is on its way."}});
}

Response subscribe_page(const Request& req, const Context& ctx) {
  std::string message, field_error;
  int status = 200;
  Form form;
  if (req.method == "POST") {
    if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
    std::string pre = cookie_value(req.header("cookie"), kPreCookie);
    if (pre.empty() || !account::equal_tokens(form_value(form, "pre"), pre)) {
      status = 403;
      field_error = "This form expired or was sent from another site; please try again.";
    } else if (!ctx.subscriptions) {
      status = 503;
      field_error = "mail is not configured on this site";
    } else if (auto done = ctx.subscriptions->subscribe(lower(form_value(form, "email")), client_address(req, ctx)); done) {
      message = "Check your inbox: if the address can receive mail, a confirmation link is on its way.";
    } else {
      using Kind = Failure::Kind;
      const auto& f = done.error();
      status = f.kind == Kind::kInvalid ? 400 : f.kind == Kind::kLimited ? 429 : 503;
      if (f.kind == Kind::kUnavailable) log::error(f.detail);
      field_error = f.kind == Kind::kUnavailable ? "the database is unavailable; try again in a few seconds" : f.message();
    }
  }
  std::string pre = account::random_token();
  std::string body = views::subscribe_page({message, field_error, pre, req.param("email").value_or("")});
  Response r;
  r.status = status;
  r.body = layout(ctx.site(), "The weekly question", "One free question a week by mail", body);
  r.set("Set-Cookie", pre_cookie(ctx, pre));
  r.personal = true;
  return r;
}

Response subscribe_confirm(const Request& req, const Context& ctx) {
  if (!ctx.subscriptions) return error(req, ctx, 503, "Mail is not configured on this site.");
  Form form;
  if (req.method == "POST" && !parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string email = lower(input(req, form, "email")), expires = input(req, form, "expires"), sig = input(req, form, "sig");
  Response r;
  if (req.method == "GET") {
    if (auto checked = ctx.subscriptions->check_confirmation(email, expires, sig); !checked) return failure(req, ctx, checked.error());
    // A button, not a state change on GET: mail scanners follow links.
    r.body = layout(ctx.site(), "Confirm", "Confirm the subscription", views::subscribe_confirm_page({email, expires, sig}));
    return r;
  }
  if (auto done = ctx.subscriptions->confirm(email, expires, sig); !done) return failure(req, ctx, done.error());
  r.body = layout(ctx.site(), "Subscribed", "Subscribed", views::subscribed_page(email));
  return r;
}

Response unsubscribe(const Request& req, const Context& ctx) {
  if (!ctx.subscriptions) return error(req, ctx, 503, "Mail is not configured on this site.");
  Form form;
  if (req.method == "POST") parse_form(req.body, form);  // RFC 8058 sends List-Unsubscribe=One-Click
  std::string email = lower(input(req, form, "email")), sig = input(req, form, "sig");
  Response r;
  if (req.method == "GET") {
    if (auto checked = ctx.subscriptions->check_unsubscribe(email, sig); !checked) return failure(req, ctx, checked.error());
    r.body = layout(ctx.site(), "Unsubscribe", "Unsubscribe", views::unsubscribe_page({email, sig}));
    return r;
  }
  if (auto done = ctx.subscriptions->unsubscribe(email, sig); !done) return failure(req, ctx, done.error());
  r.body = layout(ctx.site(), "Unsubscribed", "Unsubscribed", views::unsubscribed_page(email));
  return r;
}

Response verify_email(const Request& req, const Context& ctx) {
  if (!ctx.accounts || !ctx.options.signer) return error(req, ctx, 503, "Mail is not configured on this site.");
  Form form;
  if (req.method == "POST" && !parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string token = input(req, form, "token"), sig = input(req, form, "sig");
  if (!is_token(token) || !ctx.options.signer->verify("verify", {token}, sig)) {
    return error(req, ctx, 400, "This verification link is not valid (the token or sig field was changed).");
  }
  Response r;
  if (req.method == "GET") {
    r.body = layout(ctx.site(), "Verify", "Verify the address", views::verify_page({token, sig}));
    return r;
  }
  auto verified = ctx.accounts->verify_email(token);
  if (!verified) return store_unavailable(req, ctx, verified.error().detail);
  if (!*verified) return error(req, ctx, 400, "This verification link was used or has expired (they work once, for 30 minutes).");
  r.body = layout(ctx.site(), "Verified", "Verified", views::verified_page());
  return r;
}

Response reset_request(const Request& req, const Context& ctx) {
  std::string message, problem;
  int status = 200, retry = 0;
  if (req.method == "POST") {
    Form form;
    if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
    std::string pre = cookie_value(req.header("cookie"), kPreCookie), email = lower(form_value(form, "email"));
    if (pre.empty() || !account::equal_tokens(form_value(form, "pre"), pre)) {
      status = 403;
      problem = "This form expired or was sent from another site; please try again.";
    } else if (auto why = account::check_email(email); !why.empty()) {
      status = 400;
      problem = "email " + why;
    } else if (!ctx.subscriptions || !ctx.accounts) {
      return error(req, ctx, 503, "Mail is not configured on this site; ask its operator to reset the password.");
    } else if (auto wait = ctx.subscriptions->address_wait(client_address(req, ctx)); !wait) {
      return store_unavailable(req, ctx, wait.error().detail);
    } else if ((retry = *wait) > 0) {
      status = 429;
      problem = "Too many requests; try again in " + std::to_string(retry) + " s.";
    } else {
      if (auto sent = ctx.accounts->send_reset_link(email); !sent) return store_unavailable(req, ctx, sent.error().detail);
      // The same answer whether or not an account uses the address.
      message = "If an account uses this address, a link to reset its password is on its way. It works once, for 30 minutes.";
    }
  }
  std::string pre = account::random_token();
  Response r;
  r.status = status;
  r.body = layout(ctx.site(), "Reset the password", "Reset the password", views::reset_request_page({message, problem, pre}));
  if (retry) r.set("Retry-After", std::to_string(retry));
  r.set("Set-Cookie", pre_cookie(ctx, pre));
  r.personal = true;
  return r;
}

Response reset_confirm(const Request& req, const Context& ctx) {
  if (!ctx.store() || !ctx.options.signer) return error(req, ctx, 503, "Mail is not configured on this site.");
  Form form;
  if (req.method == "POST" && !parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string token = input(req, form, "token"), sig = input(req, form, "sig");
  if (!is_token(token) || !ctx.options.signer->verify("reset", {token}, sig)) {
    return error(req, ctx, 400, "This reset link is not valid (the token or sig field was changed). Ask for a new one at /reset.");
  }
  auto page = [&](int status, const std::string& problem) {
    Response r;
    r.status = status;
    r.body = layout(ctx.site(), "New password", "Choose a new password", views::reset_confirm_page({problem, token, sig}));
    r.personal = true;
    return r;
  };
  if (req.method == "GET") return page(200, "");
  if (!ctx.accounts) return error(req, ctx, 503, "Mail is not configured on this site.");
  auto user = ctx.accounts->reset_password(token, form_value(form, "password"));
  if (!user) {
    const auto& f = user.error();
    bool weak_password = f.kind == Failure::Kind::kInvalid && !f.errors.empty() && f.errors.front().field == "password";
    return weak_password ? page(400, f.message()) : failure(req, ctx, f);
  }
  Response go = start_session(ctx, *user, false, "/dashboard");
  go.set("Set-Cookie", std::string(kPreCookie) + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  return go;
}

// The sign-in link mailed when the wide sign-in budgets are spent (issue 28): GET shows a
// button (mail scanners follow links and must not spend it), POST spends it and signs in.
Response signin_link(const Request& req, const Context& ctx) {
  if (!ctx.store() || !ctx.options.signer) return error(req, ctx, 503, "Mail is not configured on this site.");
  Form form;
  if (req.method == "POST" && !parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string token = input(req, form, "token"), sig = input(req, form, "sig");
  if (!is_token(token) || !ctx.options.signer->verify("signin", {token}, sig)) {
    return error(req, ctx, 400, "This sign-in link is not valid (the token or sig field was changed).");
  }
  if (req.method == "GET") {
    Response r;
    r.body = layout(ctx.site(), "Sign in", "Sign in by link", views::signin_link_page({token, sig}));
    r.personal = true;
    return r;
  }
  if (!ctx.accounts) return error(req, ctx, 503, "Mail is not configured on this site.");
  auto user = ctx.accounts->sign_in_by_link(token);
  if (!user) {
    const auto& f = user.error();
    return f.kind == Failure::Kind::kInvalid ? error(req, ctx, 400, f.message()) : failure(req, ctx, f);
  }
  return start_session(ctx, *user, false, "/dashboard");
}

}  // namespace ridge::web::routes
