// Paid access: how long an account has it, a Checkout session at the provider, and the
// provider's signed webhook turned into a grant (once per event id, in one store
// transaction, so a replayed or retried event grants nothing more).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "account/clock.h"
#include "account/rate_limiter.h"
#include "billing/billing.h"
#include "store/store.h"
#include "common/result.h"

namespace ridge::web::services {

// What a verified webhook event came to.
struct WebhookResult {
  std::string event_id;
  std::string ignored_type;  // set: an event type ridge does not act on
  bool granted = false;      // access was extended by this event (false on a replay)
  bool revoked = false;      // a refund or dispute took back what its payment bought
  std::string reason;        // why nothing was granted: "not paid yet", "unknown account"
  std::string account_id;    // the event's client_reference_id
};

// Thread-safe; the config, the store and the clock must outlive the service. `store` may be
// null: nobody has access then, and webhooks answer unavailable.
class BillingService {
 public:
  BillingService(const billing::BillingConfig& config, store::Store* store, const account::Clock& clock)
      : config_(config), store_(store), clock_(clock) {
    if (store_ != nullptr) by_account_ = std::make_unique<account::StoreRateLimiter>(*store_, clock_, 5, 1.0 / 60);
  }

  // Provider calls wait on a worker for up to the provider's timeout (20 s): at most this many
  // run at once on a server (past it: unavailable with retry_after), one per account (past
  // it: limited), and an account starts 5 checkouts, then one a minute (issue 28: 20
  // checkouts from one account against a slow provider held workers and /api/me timed out).
  static constexpr int kCheckoutsInFlight = 4;

  // The end of the account's paid access (unix seconds), 0 without; unavailable: the store.
  Result<int64_t> access_until(int64_t user_id) const;

  // The provider's payment page for the account. Failure kUpstream when the provider did
  // not answer (nothing was charged); limited or unavailable under the bounds above.
  Result<std::string> checkout_url(const std::string& account_id, const std::string& email, const std::string& base_url) const;

  // Verifies the Stripe-Signature header over `body`. Grants on checkout.session.completed (paid)
  // and checkout.session.async_payment_succeeded when the session is one payment of at least
  // the price in its currency; takes the months back on charge.refunded (in full) and
  // charge.dispute.created. Other types are ignored.
  // Invalid: "Stripe-Signature" (with the reason), "body", "data.object.client_reference_id";
  // unavailable: the store (the provider retries on a 5xx).
  Result<WebhookResult> webhook(const std::string& signature, const std::string& body) const;

  bool webhooks_configured() const { return !config_.webhook_secret.empty(); }

 private:
  const billing::BillingConfig& config_;
  store::Store* store_;
  const account::Clock& clock_;
  std::unique_ptr<account::StoreRateLimiter> by_account_;
  mutable std::mutex in_flight_mutex_;
  mutable std::set<std::string> in_flight_;  // accounts with a provider call running
};

}  // namespace ridge::web::services
