#include "web/services/billing_service.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace ridge::web::services {

Result<int64_t> BillingService::access_until(int64_t user_id) const {
  if (store_ == nullptr) return int64_t{0};
  auto until = store_->access_until(user_id);
  if (!until.ok()) return Failure::unavailable("entitlement lookup failed: " + until.error().detail);
  return *until;
}

Result<std::string> BillingService::checkout_url(const std::string& account_id, const std::string& email,
                                                  const std::string& base_url) const {
  if (by_account_) {
    double retry = 0;
    switch (by_account_->allow("checkout:" + account_id, &retry)) {
      case account::StoreRateLimiter::Answer::kAllowed: break;
      case account::StoreRateLimiter::Answer::kLimited: {
        int seconds = std::max(1, static_cast<int>(std::ceil(retry)));
        return Failure::limited({"", "", "Too many checkouts started; try again in " + std::to_string(seconds) + " s.", ""}, seconds);
      }
      case account::StoreRateLimiter::Answer::kUnavailable: return Failure::unavailable("checkout budget unreadable");
    }
  }
  {
    std::lock_guard lock(in_flight_mutex_);
    if (in_flight_.count(account_id)) {
      return Failure::limited({"", "", "A checkout for this account is already being prepared; wait for it.", ""}, 5);
    }
    if (static_cast<int>(in_flight_.size()) >= kCheckoutsInFlight) {
      Failure f = Failure::unavailable("checkout: " + std::to_string(kCheckoutsInFlight) + " provider calls already waiting");
      f.retry_after = 10;
      return f;
    }
    in_flight_.insert(account_id);
  }
  struct Release {
    const BillingService& s;
    const std::string& id;
    ~Release() {
      std::lock_guard lock(s.in_flight_mutex_);
      s.in_flight_.erase(id);
    }
  } release{*this, account_id};
  auto session = billing::create_checkout_session(config_, account_id, email, base_url + "/settings?paid=1", base_url + "/pricing");
  if (session.url.empty()) {
    Failure f = Failure::upstream({"", "", "The payment provider did not answer; nothing was charged. Try again in a minute.", ""}, 30);
    f.detail = "checkout for account " + account_id + " failed: " + session.error;
    return f;
  }
  return session.url;
}

Result<WebhookResult> BillingService::webhook(const std::string& signature, const std::string& body) const {
  auto check = billing::verify_stripe_signature(signature, body, config_.webhook_secret, clock_.now());
  if (check != billing::Signature::kOk) {
    return Failure::invalid({"Stripe-Signature", "", billing::to_string(check), "a signature by this site's webhook secret"});
  }
  // Read through a const reference and find(): operator[] on a const object with a missing key
  // is undefined behaviour, and on a value of another type it throws (a 500 before).
  const nlohmann::json event = nlohmann::json::parse(body, nullptr, false);
  auto text = [](const nlohmann::json& o, const char* key) -> std::optional<std::string> {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (!event.is_object() || !text(event, "id") || !text(event, "type")) {
    return Failure::invalid({"body", "", "expected an event with \"id\" and \"type\"", "a Stripe event"});
  }
  WebhookResult r;
  r.event_id = *text(event, "id");
  const std::string type = *text(event, "type");
  const bool grants = type == "checkout.session.completed" || type == "checkout.session.async_payment_succeeded";
  const bool takes_back = type == "charge.refunded" || type == "charge.dispute.created";
  if (!grants && !takes_back) {
    r.ignored_type = type;
    return r;
  }
  auto data = event.find("data");
  if (data == event.end() || !data->is_object() || !data->contains("object") || !(*data)["object"].is_object()) {
    return Failure::invalid({"data.object", "", "missing or not an object", "the event's object (a Checkout Session, a charge or a dispute)"});
  }
  const nlohmann::json& object = (*data)["object"];
  if (store_ == nullptr) return Failure::unavailable("no store");

  if (takes_back) {
    // A refund (charge.refunded, fully: a partial refund keeps access) or a dispute of a
    // payment takes back the months it bought. Both name the payment by its payment_intent.
    auto payment = text(object, "payment_intent");
    if (!payment) return Failure::invalid({"data.object.payment_intent", "", "missing", "the payment the event is about"});
    if (type == "charge.refunded") {
      auto refunded = object.find("refunded");
      if (refunded == object.end() || !refunded->is_boolean() || !refunded->get<bool>()) {
        r.reason = "partial refund: access kept";
        return r;
      }
    }
    auto revoked = store_->revoke_for_payment(r.event_id, *payment, clock_.now());
    if (!revoked.ok()) return revoked.error();
    r.revoked = revoked->has_value();
    if (!r.revoked) r.reason = "nothing to revoke";
    return r;
  }

  auto account = text(object, "client_reference_id");
  if (!account) return Failure::invalid({"data.object.client_reference_id", "", "missing", "the account id sent to Checkout"});
  r.account_id = *account;
  if (auto status = text(object, "payment_status"); status && *status != "paid") {
    // An asynchronous payment method: checkout.session.async_payment_succeeded follows when the money arrives.
    r.reason = "not paid yet";
    return r;
  }
  // What was paid must be what this site sells: a one-time payment of at least the price, in its
  // currency (a signed 1-cent EUR session once bought six months).
  auto amount = object.find("amount_total");
  const auto currency = text(object, "currency");
  const auto mode = text(object, "mode");
  if (mode.value_or("") != "payment" || currency.value_or("") != config_.price.currency_lower() ||
      amount == object.end() || !amount->is_number_integer() || amount->get<int64_t>() < config_.price.minor) {
    r.reason = "amount, currency or mode is not this site's price (" + config_.price.display() + ", one payment)";
    return r;
  }
  auto user = store_->find_user_by_account_id(r.account_id);
  if (!user.ok()) return user.error();
  if (!user->has_value()) {
    r.reason = "unknown account";
    return r;
  }
  auto granted = store_->grant_for_event(r.event_id, (*user)->id, config_.months, clock_.now(),
                                         text(object, "payment_intent").value_or(""));
  if (!granted.ok()) return Failure::unavailable(granted.error().detail);
  r.granted = *granted;
  return r;
}

}  // namespace ridge::web::services
