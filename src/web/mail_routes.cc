// Mail routes of the App: the weekly question's subscription (double opt-in), one-click
// unsubscribe (RFC 8058), email verification and password reset. Every mail is queued in the
// store and sent by the Sender off the request path, so a slow or dead SMTP server never
// slows a page. Links are signed (mail::LinkSigner); account links also carry a random,
// single-use, 30-minute token that the store keeps hashed.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "account/security.h"
#include "web/app.h"
#include "web/log.h"
#include "web/pages.h"
#include "web/routes/response.h"
#include "web/views/account_views.h"

namespace ridge::web {

using routes::redirect;

namespace {

constexpr const char* kPreCookie = "ridge_pre";
constexpr int64_t kAccountTokenSeconds = 30 * 60;  // verification and reset links

std::string value_of(const std::vector<std::pair<std::string, std::string>>& form, const std::string& key) {
  for (const auto& [k, v] : form) {
    if (k == key) return v;
  }
  return {};
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_token(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A query or form value: the form wins on POST.
std::string input(const Request& req, const std::vector<std::pair<std::string, std::string>>& form, const std::string& key) {
  std::string v = value_of(form, key);
  return v.empty() ? req.param(key).value_or("") : v;
}

}  // namespace

void App::add_mail_routes() {
  auto bind = [this](Response (App::*fn)(const Request&) const) {
    return [this, fn](const Request& r, const Params&) { return (this->*fn)(r); };
  };
  router_.add("POST", "/api/subscribe", bind(&App::api_subscribe));
  router_.add("GET", "/subscribe", bind(&App::subscribe_page));
  router_.add("POST", "/subscribe", bind(&App::subscribe_page));
  router_.add("GET", "/subscribe/confirm", bind(&App::subscribe_confirm));
  router_.add("POST", "/subscribe/confirm", bind(&App::subscribe_confirm));
  router_.add("GET", "/unsubscribe", bind(&App::unsubscribe));
  router_.add("POST", "/unsubscribe", bind(&App::unsubscribe));
  router_.add("GET", "/verify", bind(&App::verify_email));
  router_.add("POST", "/verify", bind(&App::verify_email));
  router_.add("GET", "/reset", bind(&App::reset_request));
  router_.add("POST", "/reset", bind(&App::reset_request));
  router_.add("GET", "/reset/confirm", bind(&App::reset_confirm));
  router_.add("POST", "/reset/confirm", bind(&App::reset_confirm));
}

void App::send_account_mail(int64_t user_id, const std::string& email, bool existing) const {
  if (!subscriptions_) return;  // mail is not configured
  if (!subscriptions_->recipient_allowed("account:" + email)) return;  // quietly: the answer is the same
  mail::Message m;
  m.to = email;
  if (existing) {
    m.subject = "Someone tried to create a ridge account with your address";
    m.text = "Someone, perhaps you, tried to create a ridge account with this address. You already have one.\n\n"
             "Sign in: " + options_.mail->base_url + "/signin\nForgot the password? " + options_.mail->base_url + "/reset\n\n"
             "If it was not you, nothing changed and you can ignore this mail.\n";
  } else {
    std::string token = account::random_token();
    auto saved = options_.store->create_account_token(account::token_hash(token), user_id, "verify", now() + kAccountTokenSeconds, now());
    if (!saved.ok()) {
      log::error("cannot store a verification token: " + saved.error().message);
      return;
    }
    std::string link = mail::token_url(*options_.mail, *options_.signer, "/verify", "verify", token);
    m.subject = "Verify your ridge account";
    m.text = "Welcome to ridge. Verify this address (the link works once, for 30 minutes):\n\n" + link +
             "\n\nIf you did not create an account, ignore this mail.\n";
    m.html = views::verify_mail_html(link);
  }
  subscriptions_->queue(m);
}

Response App::api_subscribe(const Request& req) const {
  // JSON only: a cross-site form cannot send application/json without a CORS preflight.
  if (req.header("content-type").rfind("application/json", 0) != 0) {
    return routes::json_error(415, {"Content-Type", req.header("content-type").substr(0, 80), "expected application/json", "application/json"});
  }
  auto body = nlohmann::json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body["email"].is_string()) return routes::json_error(400, {"email", "", "expected {\"email\": \"...\"}", ""});
  if (!subscriptions_) return routes::json_error(503, {"", "", "mail is not configured on this site", ""});
  auto done = subscriptions_->subscribe(lower(body["email"]), client_address(req));
  if (!done) return failure(req, done.error());
  return routes::json(202, nlohmann::json{{"status", "check your inbox"},
                                          {"message", "If the address can receive mail, a confirmation link is on its way."}});
}

Response App::subscribe_page(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  std::string message, field_error;
  int status = 200;
  std::vector<std::pair<std::string, std::string>> form;
  if (req.method == "POST") {
    if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
    std::string pre = cookie_value(req.header("cookie"), kPreCookie);
    if (pre.empty() || !account::equal_tokens(value_of(form, "pre"), pre)) {
      status = 403;
      field_error = "This form expired or was sent from another site; please try again.";
    } else if (!subscriptions_) {
      status = 503;
      field_error = "mail is not configured on this site";
    } else if (auto done = subscriptions_->subscribe(lower(value_of(form, "email")), client_address(req)); done) {
      message = "Check your inbox: if the address can receive mail, a confirmation link is on its way.";
    } else {
      using Kind = services::Failure::Kind;
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
  r.body = layout(site, "The weekly question", "One free question a week by mail", body);
  r.set("Set-Cookie", std::string(kPreCookie) + "=" + pre + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600" +
                          (options_.secure_cookies ? "; Secure" : ""));
  r.personal = true;
  return r;
}

Response App::subscribe_confirm(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  if (!subscriptions_) return error(req, 503, "Mail is not configured on this site.");
  std::vector<std::pair<std::string, std::string>> form;
  if (req.method == "POST" && !parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string email = lower(input(req, form, "email")), expires = input(req, form, "expires"), sig = input(req, form, "sig");
  Response r;
  if (req.method == "GET") {
    if (auto checked = subscriptions_->check_confirmation(email, expires, sig); !checked) return failure(req, checked.error());
    // A button, not a state change on GET: mail scanners follow links.
    r.body = layout(site, "Confirm", "Confirm the subscription", views::subscribe_confirm_page({email, expires, sig}));
    return r;
  }
  if (auto done = subscriptions_->confirm(email, expires, sig); !done) return failure(req, done.error());
  r.body = layout(site, "Subscribed", "Subscribed", views::subscribed_page(email));
  return r;
}

Response App::unsubscribe(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  if (!subscriptions_) return error(req, 503, "Mail is not configured on this site.");
  std::vector<std::pair<std::string, std::string>> form;
  if (req.method == "POST") parse_form(req.body, form);  // RFC 8058 sends List-Unsubscribe=One-Click
  std::string email = lower(input(req, form, "email")), sig = input(req, form, "sig");
  Response r;
  if (req.method == "GET") {
    if (auto checked = subscriptions_->check_unsubscribe(email, sig); !checked) return failure(req, checked.error());
    r.body = layout(site, "Unsubscribe", "Unsubscribe", views::unsubscribe_page({email, sig}));
    return r;
  }
  if (auto done = subscriptions_->unsubscribe(email, sig); !done) return failure(req, done.error());
  r.body = layout(site, "Unsubscribed", "Unsubscribed", views::unsubscribed_page(email));
  return r;
}

Response App::verify_email(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  if (!options_.store || !options_.signer) return error(req, 503, "Mail is not configured on this site.");
  std::vector<std::pair<std::string, std::string>> form;
  if (req.method == "POST" && !parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string token = input(req, form, "token"), sig = input(req, form, "sig");
  if (!is_token(token) || !options_.signer->verify("verify", {token}, sig)) {
    return error(req, 400, "This verification link is not valid (the token or sig field was changed).");
  }
  Response r;
  if (req.method == "GET") {
    r.body = layout(site, "Verify", "Verify the address", views::verify_page({token, sig}));
    return r;
  }
  auto user = options_.store->use_account_token(account::token_hash(token), "verify", now());
  if (!user.ok()) return store_unavailable(req, user.error().message);
  if (!user->has_value()) return error(req, 400, "This verification link was used or has expired (they work once, for 30 minutes).");
  auto done = options_.store->set_email_verified(**user, now());
  if (!done.ok()) return store_unavailable(req, done.error().message);
  r.body = layout(site, "Verified", "Verified", views::verified_page());
  return r;
}

Response App::reset_request(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  std::string message, problem;
  int status = 200, retry = 0;
  if (req.method == "POST") {
    std::vector<std::pair<std::string, std::string>> form;
    if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
    std::string pre = cookie_value(req.header("cookie"), kPreCookie), email = lower(value_of(form, "email"));
    if (pre.empty() || !account::equal_tokens(value_of(form, "pre"), pre)) {
      status = 403;
      problem = "This form expired or was sent from another site; please try again.";
    } else if (auto why = account::check_email(email); !why.empty()) {
      status = 400;
      problem = "email " + why;
    } else if (!options_.store || !options_.mail || !options_.signer) {
      return error(req, 503, "Mail is not configured on this site; ask its operator to reset the password.");
    } else if (auto wait = subscriptions_->address_wait(client_address(req)); !wait) {
      return store_unavailable(req, wait.error().detail);
    } else if ((retry = *wait) > 0) {
      status = 429;
      problem = "Too many requests; try again in " + std::to_string(retry) + " s.";
    } else {
      auto user = options_.store->find_user_by_email(email);
      if (!user.ok()) return store_unavailable(req, user.error().message);
      if (user->has_value() && subscriptions_->recipient_allowed("reset:" + email)) {
        std::string token = account::random_token();
        auto saved = options_.store->create_account_token(account::token_hash(token), (*user)->id, "reset", now() + kAccountTokenSeconds, now());
        if (!saved.ok()) return store_unavailable(req, saved.error().message);
        std::string link = mail::token_url(*options_.mail, *options_.signer, "/reset/confirm", "reset", token);
        mail::Message m;
        m.to = email;
        m.subject = "Reset your ridge password";
        m.text = "Someone, perhaps you, asked to reset the password of the ridge account of this address.\n\nChoose a new password "
                 "(the link works once, for 30 minutes; it signs out every other session):\n" + link +
                 "\n\nIf it was not you, ignore this mail: nothing changes.\n";
        m.html = views::reset_mail_html(link);
        subscriptions_->queue(m);
      }
      // The same answer whether or not an account uses the address.
      message = "If an account uses this address, a link to reset its password is on its way. It works once, for 30 minutes.";
    }
  }
  std::string pre = account::random_token();
  Response r;
  r.status = status;
  r.body = layout(site, "Reset the password", "Reset the password", views::reset_request_page({message, problem, pre}));
  if (retry) r.set("Retry-After", std::to_string(retry));
  r.set("Set-Cookie", std::string(kPreCookie) + "=" + pre + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600" +
                          (options_.secure_cookies ? "; Secure" : ""));
  r.personal = true;
  return r;
}

Response App::reset_confirm(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  if (!options_.store || !options_.signer) return error(req, 503, "Mail is not configured on this site.");
  std::vector<std::pair<std::string, std::string>> form;
  if (req.method == "POST" && !parse_form(req.body, form)) return plain_error(400, "malformed form");
  std::string token = input(req, form, "token"), sig = input(req, form, "sig");
  if (!is_token(token) || !options_.signer->verify("reset", {token}, sig)) {
    return error(req, 400, "This reset link is not valid (the token or sig field was changed). Ask for a new one at /reset.");
  }
  auto page = [&](int status, const std::string& problem) {
    Response r;
    r.status = status;
    r.body = layout(site, "New password", "Choose a new password", views::reset_confirm_page({problem, token, sig}));
    r.personal = true;
    return r;
  };
  if (req.method == "GET") return page(200, "");
  if (!accounts_) return error(req, 503, "Mail is not configured on this site.");
  auto user = accounts_->reset_password(token, value_of(form, "password"));
  if (!user) {
    const auto& f = user.error();
    bool weak_password = f.kind == services::Failure::Kind::kInvalid && !f.errors.empty() && f.errors.front().field == "password";
    return weak_password ? page(400, f.message()) : failure(req, f);
  }
  Response go = start_session(*user, false, "/dashboard");
  go.set("Set-Cookie", std::string(kPreCookie) + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  return go;
}

}  // namespace ridge::web
