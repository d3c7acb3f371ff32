// The weekly question's subscriptions: double opt-in (a pending subscription and a signed
// confirmation link by mail), confirmation, one-click unsubscribe (RFC 8058). Mail is queued
// in the store and sent by the Sender off the request path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "account/clock.h"
#include "account/rate_limiter.h"
#include "mail/mail.h"
#include "store/store.h"
#include "web/services/outcome.h"

namespace ridge::web::services {

constexpr int64_t kConfirmSeconds = 7 * 86400;  // a subscription's confirmation link

// Thread-safe (the rate limiters and the store are). Everything passed in must outlive the
// service. `wake` (may be empty) nudges the sender after a message is queued.
class SubscriptionService {
 public:
  SubscriptionService(store::Store& store, const mail::MailConfig& mail, const mail::LinkSigner& signer, const account::Clock& clock,
                      account::RateLimiter& by_address, account::RateLimiter& by_recipient, std::function<void()> wake)
      : store_(store), mail_(mail), signer_(signer), clock_(clock), by_address_(by_address), by_recipient_(by_recipient),
        wake_(std::move(wake)) {}

  // Records a pending subscription and queues a confirmation link, the same answer for a new,
  // a pending and a confirmed address (only a pending one gets mail, within the recipient's
  // budget). Invalid: "email"; limited: the client address's mail budget; unavailable.
  Outcome<Done> subscribe(const std::string& email, const std::string& client_address) const;

  // Checks a confirmation link. Invalid: "sig" (a changed field) or "expires" (expired).
  Outcome<Done> check_confirmation(const std::string& email, const std::string& expires, const std::string& sig) const;
  // Checks the link and confirms. Conflict: unsubscribed after the link was sent.
  Outcome<Done> confirm(const std::string& email, const std::string& expires, const std::string& sig) const;

  // Checks an unsubscribe link. Invalid: "sig".
  Outcome<Done> check_unsubscribe(const std::string& email, const std::string& sig) const;
  Outcome<Done> unsubscribe(const std::string& email, const std::string& sig) const;

  // Queues `m` (rendered now) and wakes the sender; false when the store refused (logged).
  bool queue(const mail::Message& m) const;
  // The client address's budget for mail it may cause; seconds to wait when it is spent.
  int address_wait(const std::string& client_address) const;
  // The recipient's budget, checked quietly (the answer never tells one address from another).
  bool recipient_allowed(const std::string& key) const { return by_recipient_.allow(key); }

 private:
  store::Store& store_;
  const mail::MailConfig& mail_;
  const mail::LinkSigner& signer_;
  const account::Clock& clock_;
  account::RateLimiter& by_address_;
  account::RateLimiter& by_recipient_;
  std::function<void()> wake_;
};

}  // namespace ridge::web::services
