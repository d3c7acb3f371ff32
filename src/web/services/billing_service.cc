#include "web/services/billing_service.h"

#include <nlohmann/json.hpp>

namespace ridge::web::services {

Outcome<int64_t> BillingService::access_until(int64_t user_id) const {
  if (store_ == nullptr) return int64_t{0};
  auto until = store_->access_until(user_id);
  if (!until.ok()) return Failure::unavailable("entitlement lookup failed: " + until.error().message);
  return *until;
}

Outcome<std::string> BillingService::checkout_url(const std::string& account_id, const std::string& email,
                                                  const std::string& base_url) const {
  auto session = billing::create_checkout_session(config_, account_id, email, base_url + "/settings?paid=1", base_url + "/pricing");
  if (session.url.empty()) {
    Failure f = Failure::upstream({"", "", "The payment provider did not answer; nothing was charged. Try again in a minute.", ""}, 30);
    f.detail = "checkout for account " + account_id + " failed: " + session.error;
    return f;
  }
  return session.url;
}

Outcome<WebhookResult> BillingService::webhook(const std::string& signature, const std::string& body) const {
  auto check = billing::verify_stripe_signature(signature, body, config_.webhook_secret, clock_.now());
  if (check != billing::Signature::kOk) {
    return Failure::invalid({"Stripe-Signature", "", billing::to_string(check), "a signature by this site's webhook secret"});
  }
  auto event = nlohmann::json::parse(body, nullptr, false);
  if (!event.is_object() || !event["id"].is_string() || !event["type"].is_string()) {
    return Failure::invalid({"body", "", "expected an event with \"id\" and \"type\"", "a Stripe event"});
  }
  WebhookResult r;
  r.event_id = event["id"];
  std::string type = event["type"];
  if (type != "checkout.session.completed") {
    r.ignored_type = type;
    return r;
  }
  const auto& object = event["data"]["object"];
  if (!object.is_object() || !object["client_reference_id"].is_string()) {
    return Failure::invalid({"data.object.client_reference_id", "", "missing", "the account id sent to Checkout"});
  }
  if (object.contains("payment_status") && object["payment_status"] != "paid") {
    // An asynchronous payment method: its own event follows when the money arrives.
    r.reason = "not paid yet";
    return r;
  }
  r.account_id = object["client_reference_id"];
  if (store_ == nullptr) return Failure::unavailable("no store");
  auto user = store_->find_user_by_account_id(r.account_id);
  if (!user.ok()) return Failure::unavailable(user.error().message);
  if (!user->has_value()) {
    r.reason = "unknown account";
    return r;
  }
  auto granted = store_->grant_for_event(r.event_id, (*user)->id, config_.months, clock_.now());
  if (!granted.ok()) return Failure::unavailable(granted.error().message);
  r.granted = *granted;
  return r;
}

}  // namespace ridge::web::services
