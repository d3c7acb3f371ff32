// Billing routes of the App: the pricing page, Stripe Checkout and its webhook. The route
// parses and checks; the store grants (once per event, in one transaction); the provider's
// page takes the payment, so no card data ever reaches ridge.
#include <iostream>
#include <nlohmann/json.hpp>

#include "billing/billing.h"
#include "web/app.h"
#include "web/log.h"
#include "web/pages.h"
#include "web/routes/response.h"

namespace ridge::web {

using routes::redirect;

namespace {

std::string e(std::string_view s) { return calc::html_escape(s); }

}  // namespace

void App::add_billing_routes() {
  router_.add("GET", "/pricing", [this](const Request& r, const Params&) { return pricing(r); });
  router_.add("POST", "/billing/checkout", [this](const Request& r, const Params&) { return checkout(r); });
  router_.add("POST", "/billing/webhook", [this](const Request& r, const Params&) { return webhook(r); });
}

std::optional<int64_t> App::access_until(int64_t user_id) const {
  if (options_.store == nullptr) return int64_t{0};
  auto until = options_.store->access_until(user_id);
  if (!until.ok()) return std::nullopt;
  return *until;
}

Response App::payment_required(const bank::Question& q) const {
  const auto& price = options_.billing.price;
  nlohmann::ordered_json j = routes::error_json({{"slug", q.slug, "the worked answer needs paid access", "an account with access; see /pricing"}});
  j["price"] = {{"currency", price.currency}, {"amount", price.minor}, {"display", price.display()}, {"months", options_.billing.months}};
  j["pricing_url"] = "/pricing";
  j["checkout"] = options_.billing.enabled();
  Response r = routes::json_text(402, j.dump(2) + "\n");
  r.set("Cache-Control", "no-store");
  r.personal = true;
  return r;
}

Response App::pricing(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  Visitor v = visitor(req);
  const auto& b = options_.billing;
  size_t paid = 0, free = 0;
  for (const auto& q : bank_.questions) (q.free ? free : paid) += 1;
  std::string body = "<h1>Pricing</h1><p>" + std::to_string(free) + " questions are free, with their worked answers, for everyone. The other " +
                     std::to_string(paid) + " worked answers come with paid access: <strong id=\"price\">" + e(b.price.display()) +
                     "</strong> for " + std::to_string(b.months) + " months, one payment, no subscription. A second payment extends from the "
                     "end of the current period.</p>";
  if (v.user_id != 0) {
    auto until = access_until(v.user_id);
    if (!until) return store_unavailable(req, "entitlement lookup failed");
    if (*until > now()) body += "<p id=\"access\">You have access until " + e(billing::rfc3339(*until)) + ".</p>";
  }
  if (!b.enabled()) {
    body += "<p class=\"card\" id=\"grant-only\">This site takes no payments: it runs grant-only. Ask its operator for access "
            "(<code>ridge grant EMAIL --months 6</code>).</p>";
  } else if (v.user_id == 0) {
    body += "<p><a href=\"/signin?next=/pricing\">Sign in</a> or <a href=\"/signup?next=/pricing\">create an account</a> to pay.</p>";
  } else {
    body += "<form method=\"post\" action=\"/billing/checkout\" class=\"calc\"><input type=\"hidden\" name=\"csrf\" value=\"" + e(v.csrf) +
            "\"><div class=\"field\"><button type=\"submit\" id=\"checkout\">Pay " + e(b.price.display()) +
            "</button></div></form><p class=\"muted\">The payment page is the provider's (Stripe); ridge never sees card data.</p>";
  }
  Response r;
  r.body = layout(site, "Pricing", "What paid access costs", body);
  r.personal = v.user_id != 0;
  return r;
}

Response App::checkout(const Request& req) const {
  if (!options_.billing.enabled()) return error(req, 503, "This site takes no payments (grant-only); see /pricing.");
  Visitor v = visitor(req);
  if (v.user_id == 0) return redirect("/signin?next=/pricing");
  std::vector<std::pair<std::string, std::string>> form;
  if (auto refused = read_post_form(req, v, form)) return *refused;
  auto session = billing::create_checkout_session(options_.billing, v.account_id, v.email, options_.base_url + "/settings?paid=1",
                                                  options_.base_url + "/pricing");
  if (session.url.empty()) {
    log::error("checkout for account " + v.account_id + " failed: " + session.error);
    Response r = error(req, 502, "The payment provider did not answer; nothing was charged. Try again in a minute.");
    r.set("Retry-After", "30");
    return r;
  }
  Response r = redirect(session.url);
  r.personal = true;
  return r;
}

Response App::webhook(const Request& req) const {
  const auto& b = options_.billing;
  if (b.webhook_secret.empty()) return routes::json_error(503, {"", "", "webhooks are not configured on this site", ""});
  auto check = billing::verify_stripe_signature(req.header("stripe-signature"), req.body, b.webhook_secret, now());
  if (check != billing::Signature::kOk) {
    log::error("webhook refused from " + client_address(req) + ": " + std::string(billing::to_string(check)));
    return routes::json_error(400, {"Stripe-Signature", "", billing::to_string(check), ""});
  }
  auto event = nlohmann::json::parse(req.body, nullptr, false);
  if (!event.is_object() || !event["id"].is_string() || !event["type"].is_string()) {
    return routes::json_error(400, {"body", "", "expected an event with \"id\" and \"type\"", ""});
  }
  std::string id = event["id"], type = event["type"];
  if (type != "checkout.session.completed") return routes::json(200, nlohmann::json{{"received", true}, {"ignored", type}});
  const auto& object = event["data"]["object"];
  if (!object.is_object() || !object["client_reference_id"].is_string()) {
    return routes::json_error(400, {"data.object.client_reference_id", "", "missing", ""});
  }
  if (object.contains("payment_status") && object["payment_status"] != "paid") {
    // An asynchronous payment method: its own event follows when the money arrives.
    return routes::json(200, nlohmann::json{{"received", true}, {"granted", false}, {"reason", "not paid yet"}});
  }
  std::string account = object["client_reference_id"];
  auto user = options_.store ? options_.store->find_user_by_account_id(account) : store::Result<std::optional<store::User>>(store::StoreError{"no store"});
  if (!user.ok()) return store_unavailable(req, user.error().message);
  if (!user->has_value()) {
    log::error("webhook event " + id.substr(0, 80) + " names no account (" + account.substr(0, 80) + "); nothing granted");
    return routes::json(200, nlohmann::json{{"received", true}, {"granted", false}, {"reason", "unknown account"}});
  }
  auto granted = options_.store->grant_for_event(id, (*user)->id, b.months, now());
  if (!granted.ok()) return store_unavailable(req, granted.error().message);  // 503: the provider retries
  if (*granted) log::info("event " + id.substr(0, 80) + " granted " + std::to_string(b.months) + " months to account " + account);
  return routes::json(200, nlohmann::json{{"received", true}, {"granted", *granted}});
}

}  // namespace ridge::web
