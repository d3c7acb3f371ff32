// What `ridge serve` (or a test) chooses when it builds the App: the store, the clock, billing,
// mail and the keys. Plain values and borrowed pointers; the App keeps a copy.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "account/clock.h"
#include "billing/billing.h"
#include "design/challenge.h"
#include "mail/mail.h"
#include "store/store.h"
#include "web/services/random_source.h"

namespace ridge::web {

struct AppOptions {
  // Accounts, reviews and progress live here; without a store those routes answer 503.
  store::Store* store = nullptr;
  // The time for sessions, schedules and rate limits (tests pass a FakeClock).
  const account::Clock* clock = nullptr;
  // Adds Secure to the session cookie (set when served behind TLS).
  bool secure_cookies = false;
  // Proxies whose X-Forwarded-For is believed ("10.0.0.0/8", "127.0.0.1/32", "::1/128").
  // A request from one of them is attributed to the last address in that header that is
  // not itself a trusted proxy; from anyone else the header is ignored.
  std::vector<std::string> trusted_proxies;
  // The price and the payment provider; without its keys the site is grant-only
  // (`ridge grant`) and /pricing says so.
  billing::BillingConfig billing;
  // This site's address as users reach it (links in mail, the provider's return URLs).
  std::string base_url = "http://localhost:8080";
  // Mail: the From address and links (config), their signing key (signer), and a nudge for
  // the sender after a message is queued. Without config and signer, mail routes answer 503.
  const mail::MailConfig* mail = nullptr;
  const mail::LinkSigner* signer = nullptr;
  std::function<void()> mail_wake;
  // Keys the readiness check's MAC (RIDGE_SECRET, read once by `ridge serve`, so servers of
  // one site accept each other's checks). Empty: a random key for this process.
  std::string secret;
  // Drill seeds and readiness nonces (tests pass a SeededRandom); null: libsodium's.
  services::RandomSource* random = nullptr;
  // `ridge validate --json`'s object, shown on /calc (null: no table).
  nlohmann::json validation;
  // Design rounds (issue 35): the challenges of content/challenges, loaded once by `ridge
  // serve` (or a test); empty: /design lists none.
  std::vector<design::Challenge> design_challenges;
  // Question pages are rendered on first request and kept up to this many bytes, least
  // recently used out first (issue 30: `ridge serve --page-cache-mb`). 64 MB keeps about
  // 2,500 answers of 25 KB; every other page is rendered at start-up and always kept.
  size_t page_cache_bytes = size_t{64} << 20;
};

}  // namespace ridge::web
