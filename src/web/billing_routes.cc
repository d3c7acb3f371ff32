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
#include "web/views/billing_views.h"

namespace ridge::web {

using routes::redirect;

void App::add_billing_routes() {
  router_.add("GET", "/pricing", [this](const Request& r, const Params&) { return pricing(r); });
  router_.add("POST", "/billing/checkout", [this](const Request& r, const Params&) { return checkout(r); });
  router_.add("POST", "/billing/webhook", [this](const Request& r, const Params&) { return webhook(r); });
}

std::optional<int64_t> App::access_until(int64_t user_id) const {
  auto until = billing_->access_until(user_id);
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
  views::PricingView page;
  for (const auto& q : bank_.questions) (q.free ? page.free : page.paid) += 1;
  page.price = b.price.display();
  page.months = b.months;
  page.now = now();
  if (v.user_id != 0) {
    auto until = access_until(v.user_id);
    if (!until) return store_unavailable(req, "entitlement lookup failed");
    page.access_until = *until;
  }
  using views::PricingView;
  page.offer = !b.enabled() ? PricingView::Offer::kGrantOnly : v.user_id == 0 ? PricingView::Offer::kSignIn : PricingView::Offer::kCheckout;
  page.csrf = v.csrf;
  Response r;
  r.body = layout(site, "Pricing", "What paid access costs", views::pricing_page(page));
  r.personal = v.user_id != 0;
  return r;
}

Response App::checkout(const Request& req) const {
  if (!options_.billing.enabled()) return error(req, 503, "This site takes no payments (grant-only); see /pricing.");
  Visitor v = visitor(req);
  if (v.user_id == 0) return redirect("/signin?next=/pricing");
  std::vector<std::pair<std::string, std::string>> form;
  if (auto refused = read_post_form(req, v, form)) return *refused;
  auto url = billing_->checkout_url(v.account_id, v.email, options_.base_url);
  if (!url) return failure(req, url.error());
  Response r = redirect(*url);
  r.personal = true;
  return r;
}

Response App::webhook(const Request& req) const {
  if (!billing_->webhooks_configured()) return routes::json_error(503, {"", "", "webhooks are not configured on this site", ""});
  auto result = billing_->webhook(req.header("stripe-signature"), req.body);
  if (!result) {
    const auto& f = result.error();
    if (!f.errors.empty() && f.errors.front().field == "Stripe-Signature") {
      log::error("webhook refused from " + client_address(req) + ": " + f.message());
    }
    if (f.kind == services::Failure::Kind::kInvalid) return routes::json_error(400, f.errors);
    return failure(req, f);  // 503 on a store failure: the provider retries
  }
  const auto& r = *result;
  if (!r.ignored_type.empty()) return routes::json(200, nlohmann::json{{"received", true}, {"ignored", r.ignored_type}});
  if (r.reason == "unknown account") {
    log::error("webhook event " + r.event_id.substr(0, 80) + " names no account (" + r.account_id.substr(0, 80) + "); nothing granted");
  }
  if (r.revoked) log::info("event " + r.event_id.substr(0, 80) + " took back a payment's months (refund or dispute)");
  if (r.revoked) return routes::json(200, nlohmann::json{{"received", true}, {"revoked", true}});
  if (!r.reason.empty()) return routes::json(200, nlohmann::json{{"received", true}, {"granted", false}, {"reason", r.reason}});
  if (r.granted) log::info("event " + r.event_id.substr(0, 80) + " granted " + std::to_string(options_.billing.months) + " months to account " + r.account_id);
  return routes::json(200, nlohmann::json{{"received", true}, {"granted", r.granted}});
}

}  // namespace ridge::web
