#include "web/services/subscription_service.h"

#include <algorithm>
#include <cmath>

#include "account/security.h"
#include "calc/derivation.h"
#include "web/log.h"

namespace ridge::web::services {

namespace {

bool is_digits(const std::string& s) {
  return !s.empty() && s.size() < 16 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool SubscriptionService::queue(const mail::Message& m) const {
  auto id = store_.enqueue_mail(m.to, mail::render(mail_, m, clock_.now()), clock_.now());
  if (!id.ok()) {
    log::error("cannot queue mail: " + id.error().detail);
    return false;
  }
  if (wake_) wake_();
  return true;
}

Result<int> SubscriptionService::address_wait(const std::string& client_address) const {
  double retry = 0;
  switch (by_address_.allow("mail:" + account::network_key(client_address), &retry)) {
    case account::StoreRateLimiter::Answer::kAllowed: return 0;
    case account::StoreRateLimiter::Answer::kLimited: return std::max(1, static_cast<int>(std::ceil(retry)));
    case account::StoreRateLimiter::Answer::kUnavailable: break;
  }
  return Failure::unavailable("the mail budget of " + client_address + " could not be read");
}

Result<Done> SubscriptionService::subscribe(const std::string& email, const std::string& client_address) const {
  if (auto why = account::check_email(email); !why.empty()) return Failure::invalid({"email", email, "email " + why, "an email address"});
  auto wait = address_wait(client_address);
  if (!wait) return wait.error();
  if (*wait > 0) return Failure::limited({"", "", "too many requests; try again in " + std::to_string(*wait) + " s", ""}, *wait);
  auto sub = store_.subscribe(email, clock_.now());
  if (!sub.ok()) return Failure::unavailable("subscribe failed: " + sub.error().detail);
  if (sub->status == "pending" && recipient_allowed(email)) {
    std::string link = mail::confirm_url(mail_, signer_, email, clock_.now() + kConfirmSeconds);
    mail::Message m;
    m.to = email;
    m.subject = "Confirm your subscription to the ridge weekly question";
    m.unsubscribe_url = mail::unsubscribe_url(mail_, signer_, email);
    m.text = "Someone, perhaps you, asked for the ridge weekly question at this address: one free interview question a week, "
             "with its TL;DR.\n\nConfirm (the link works for 7 days):\n" + link + "\n\nIf it was not you, ignore this mail and nothing "
             "will be sent.\n";
    m.html = "<p>Someone, perhaps you, asked for the ridge weekly question at this address: one free interview question a week, "
             "with its TL;DR.</p><p><a href=\"" + calc::html_escape(link) + "\">Confirm the subscription</a> (the link works for 7 days).</p>"
             "<p>If it was not you, ignore this mail and nothing will be sent.</p>";
    queue(m);  // a failure is logged; the answer stays the same for every address
  }
  return Done{};
}

Result<Done> SubscriptionService::check_confirmation(const std::string& email, const std::string& expires, const std::string& sig) const {
  if (!is_digits(expires) || !signer_.verify("confirm", {email, expires}, sig)) {
    return Failure::invalid({"sig", "", "This confirmation link is not valid (the email, expires or sig field was changed). Subscribe again at /subscribe.",
                             "the link from the mail, unchanged"});
  }
  if (std::strtoll(expires.c_str(), nullptr, 10) < clock_.now()) {
    return Failure::invalid({"expires", expires, "This confirmation link has expired. Subscribe again at /subscribe.", "a link under 7 days old"});
  }
  return Done{};
}

Result<Done> SubscriptionService::confirm(const std::string& email, const std::string& expires, const std::string& sig) const {
  if (auto checked = check_confirmation(email, expires, sig); !checked) return checked.error();
  auto done = store_.confirm_subscription(email, clock_.now());
  if (!done.ok()) return done.error();
  if (!*done) {
    return Failure::conflict({"email", email, "This subscription was cancelled after the link was sent. Subscribe again at /subscribe.",
                              "a pending subscription"});
  }
  return Done{};
}

Result<Done> SubscriptionService::check_unsubscribe(const std::string& email, const std::string& sig) const {
  if (!signer_.verify("unsubscribe", {email}, sig)) {
    return Failure::invalid({"sig", "", "This unsubscribe link is not valid (the email or sig field was changed). Use the link from the mail as it is.",
                             "the link from the mail, unchanged"});
  }
  return Done{};
}

Result<Done> SubscriptionService::unsubscribe(const std::string& email, const std::string& sig) const {
  if (auto checked = check_unsubscribe(email, sig); !checked) return checked.error();
  auto done = store_.unsubscribe(email, clock_.now());
  if (!done.ok()) return done.error();
  return Done{};
}

}  // namespace ridge::web::services
