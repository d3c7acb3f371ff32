#include "web/routes/billing_routes.h"

#include <nlohmann/json.hpp>

#include "billing/billing.h"
#include "web/log.h"
#include "web/routes/response.h"
#include "web/views/billing_views.h"

namespace ridge::web::routes {

Response payment_required(const bank::Question& q, const Context& ctx) {
  const auto& b = ctx.options.billing;
  nlohmann::ordered_json j = error_json({{"slug", q.slug, "the worked answer needs paid access", "an account with access; see /pricing"}});
  j["price"] = {{"currency", b.price.currency}, {"amount", b.price.minor}, {"display", b.price.display()}, {"months", b.months}};
  j["pricing_url"] = "/pricing";
  j["checkout"] = b.enabled();
  Response r = json_text(402, j.dump(2) + "\n");
  r.set("Cache-Control", "no-store");
  r.personal = true;
  return r;
}

Response pricing(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  const auto& b = ctx.options.billing;
  views::PricingView page;
  for (const auto& q : ctx.bank.questions) (q.free ? page.free : page.paid) += 1;
  page.price = b.price.display();
  page.months = b.months;
  page.now = ctx.now();
  if (v.user_id != 0) {
    auto until = access_until(ctx, v.user_id);
    if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
    page.access_until = *until;
  }
  using views::PricingView;
  page.offer = !b.enabled() ? PricingView::Offer::kGrantOnly : v.user_id == 0 ? PricingView::Offer::kSignIn : PricingView::Offer::kCheckout;
  page.csrf = v.csrf;
  Response r;
  r.body = layout(ctx.site(), "Pricing", "What paid access costs", views::pricing_page(page));
  r.personal = v.user_id != 0;
  return r;
}

Response checkout(const Request& req, const Context& ctx) {
  if (!ctx.options.billing.enabled()) return error(req, ctx, 503, "This site takes no payments (grant-only); see /pricing.");
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/pricing");
  Form form;
  if (auto refused = read_post_form(req, v, form)) return *refused;
  auto url = ctx.billing.checkout_url(v.account_id, v.email, ctx.options.base_url);
  if (!url) return failure(req, ctx, url.error());
  Response r = redirect(*url);
  r.personal = true;
  return r;
}

Response webhook(const Request& req, const Context& ctx) {
  if (!ctx.billing.webhooks_configured()) return json_error(503, {"", "", "webhooks are not configured on this site", ""});
  auto result = ctx.billing.webhook(req.header("stripe-signature"), req.body);
  if (!result) {
    const auto& f = result.error();
    if (!f.errors.empty() && f.errors.front().field == "Stripe-Signature") {
      log::error("webhook refused from " + client_address(req, ctx) + ": " + f.message());
    }
    if (f.kind == Failure::Kind::kInvalid) return json_error(400, f.errors);
    return failure(req, ctx, f);  // 503 on a store failure: the provider retries
  }
  const auto& r = *result;
  if (!r.ignored_type.empty()) return json(200, nlohmann::json{{"received", true}, {"ignored", r.ignored_type}});
  if (r.reason == "unknown account") {
    log::error("webhook event " + r.event_id.substr(0, 80) + " names no account (" + r.account_id.substr(0, 80) + "); nothing granted");
  }
  if (r.revoked) log::info("event " + r.event_id.substr(0, 80) + " took back a payment's months (refund or dispute)");
  if (r.revoked) return json(200, nlohmann::json{{"received", true}, {"revoked", true}});
  if (!r.reason.empty()) return json(200, nlohmann::json{{"received", true}, {"granted", false}, {"reason", r.reason}});
  if (r.granted) {
    log::info("event " + r.event_id.substr(0, 80) + " granted " + std::to_string(ctx.options.billing.months) + " months to account " + r.account_id);
  }
  return json(200, nlohmann::json{{"received", true}, {"granted", r.granted}});
}

}  // namespace ridge::web::routes
