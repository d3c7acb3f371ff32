// The weekly question's subscriptions: double opt-in (a pending subscription and a signed
// confirmation link by mail), confirmation, one-click unsubscribe (RFC 8058). Mail is queued
// in the store and sent by the Sender off the request path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "account/clock.h"
#include "account/rate_limiter.h"
#include "account/security.h"
#include "mail/mail.h"
#include "store/store.h"
#include "common/result.h"

namespace ridge::web::services {

constexpr int64_t kConfirmSeconds = 7 * 86400;  // a subscription's confirmation link

// Thread-safe (the rate limiters and the store are). Everything passed in must outlive the
// service. `wake` (may be empty) nudges the sender after a message is queued.
//
// The mail budgets live in the store (its rate_limits table), so every server on one database
// enforces one limit: 5 messages a client address may cause, then one a minute; 3 a recipient
// may get, then one every 10 minutes (nobody can turn the site into a mail cannon aimed at
// one inbox, however many servers it has).
class SubscriptionService {
 public:
  SubscriptionService(store::Store& store, const mail::MailConfig& mail, const mail::LinkSigner& signer, const account::Clock& clock,
                      std::function<void()> wake)
      : store_(store), mail_(mail), signer_(signer), clock_(clock), by_address_(store, clock, 5, 1.0 / 60),
        by_recipient_(store, clock, 3, 1.0 / 600), wake_(std::move(wake)) {}

  // Records a pending subscription and queues a confirmation link, the same answer for a new,
  // a pending and a confirmed address (only a pending one gets mail, within the recipient's
  // budget). Invalid: "email"; limited: the client address's mail budget; unavailable.
  Result<Done> subscribe(const std::string& email, const std::string& client_address) const;

  // Checks a confirmation link. Invalid: "sig" (a changed field) or "expires" (expired).
  Result<Done> check_confirmation(const std::string& email, const std::string& expires, const std::string& sig) const;
  // Checks the link and confirms. Conflict: unsubscribed after the link was sent.
  Result<Done> confirm(const std::string& email, const std::string& expires, const std::string& sig) const;

  // Checks an unsubscribe link. Invalid: "sig".
  Result<Done> check_unsubscribe(const std::string& email, const std::string& sig) const;
  Result<Done> unsubscribe(const std::string& email, const std::string& sig) const;

  // Queues `m` (rendered now) and wakes the sender; false when the store refused (logged).
  bool queue(const mail::Message& m) const;
  // Takes one from the client address's budget for mail it may cause: 0 when allowed, else
  // the seconds to wait; unavailable when the store did not answer.
  Result<int> address_wait(const std::string& client_address) const;
  // Takes one from the recipient's budget, checked quietly (the answer never tells one address
  // from another): false when spent or when the store did not answer (then nothing is sent).
  // One budget per mailbox (account::mailbox_key: case, +tags, Gmail's dots) across every kind
  // of mail, so a subscribe, a reset and an account notice share the documented 3.
  bool recipient_allowed(const std::string& email) const {
    return by_recipient_.allow("inbox:" + account::mailbox_key(email)) == account::StoreRateLimiter::Answer::kAllowed;
  }

 private:
  store::Store& store_;
  const mail::MailConfig& mail_;
  const mail::LinkSigner& signer_;
  const account::Clock& clock_;
  mutable account::StoreRateLimiter by_address_;
  mutable account::StoreRateLimiter by_recipient_;
  std::function<void()> wake_;
};

}  // namespace ridge::web::services
