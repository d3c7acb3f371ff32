// Accounts: sign-up, sign-in under three failure budgets, sessions and who a session cookie
// belongs to, sign-out, the account mails (verification, the notice to an address's owner,
// the password reset link) and their single-use tokens. Passwords are argon2id (libsodium); session tokens are 256-bit,
// stored as hashes. Answers never tell a registered address from a new one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "account/clock.h"
#include "account/rate_limiter.h"
#include "mail/mail.h"
#include "store/store.h"
#include "common/result.h"
#include "web/services/random_source.h"
#include "web/services/subscription_service.h"

namespace ridge::web::services {

constexpr int64_t kSessionSeconds = 30 * 86400;

struct SignUp {
  int64_t user_id = 0;    // the new account
  int64_t existing = 0;   // or the account that already has the address (no session for it)
};

// Who sent a request, from its session cookie (user_id 0: nobody signed in).
struct Visitor {
  int64_t user_id = 0;
  std::string email;
  std::string csrf;        // the session's CSRF token
  std::string token_hash;  // the session's key in the store
  double retention = 0.9;
  std::string account_id;
  int64_t email_verified_at = 0;
  int new_per_day = 20;  // the daily new-card limit from settings
};

// What account mail needs: the queue and budgets (SubscriptionService), the site's mail
// settings, and the key that signs links. All must outlive the service.
struct AccountMail {
  const SubscriptionService& queue;
  const mail::MailConfig& config;
  const mail::LinkSigner& signer;
};

struct NewSession {
  std::string token;  // the cookie's value (64 hex digits); only its hash is stored
  std::string csrf;   // the session's CSRF token
};

// Thread-safe (the store and the limiters are). Everything passed in must outlive the service.
class AccountService {
 public:
  // `mail` null: no account mail is sent (the routes that need it answer 503).
  AccountService(store::Store& store, const account::Clock& clock, RandomSource& random, const AccountMail* mail = nullptr);

  // The visitor of a session cookie's value: anonymous for a malformed token, an unknown or
  // expired session (an expired one is deleted, a failure to delete logged) or a deleted
  // user. Unavailable: the store did not answer.
  Result<Visitor> visitor(const std::string& session_token) const;

  // Invalid: "email" or "password" (with why); limited: 10 sign-ups per address, then one
  // every 30 s; unavailable. A registered address is not an error: SignUp::existing is set.
  Result<SignUp> sign_up(const std::string& email, const std::string& password, const std::string& client_address) const;

  // The user id. Budgets that count failures only (OWASP ASVS 2.2.1): the (address, account)
  // pair 5 then one a minute, the address 30 then one per 10 s, the account 100 then one a
  // minute. The pair's token is reserved before hashing and given back when the password is
  // right, so concurrent guesses cannot overrun it. Unauthorized: a wrong email or password
  // (the same message and argon2id work either way); limited; unavailable (also when a
  // failure could not be counted, and with retry_after when password hashing is full).
  //
  // Issue 28: only the pair's budget refuses. When the address's or the account's budget is
  // spent (other people's failures: a shared NAT, a distributed guess), the password is not
  // checked and, with mail configured, a single-use sign-in link is mailed to the account
  // (within the recipient's mail budget); the answer is limited with the same message whether
  // or not an account exists. Without mail it is limited as before. Addresses are keyed by
  // account::network_key (IPv6 by /64).
  Result<int64_t> sign_in(const std::string& email, const std::string& password, const std::string& client_address) const;
  // Spends a mailed sign-in token: the user id (the address counts as verified). Invalid
  // "token": used, expired or unknown; unavailable.
  Result<int64_t> sign_in_by_link(const std::string& token) const;

  Result<NewSession> start_session(int64_t user_id) const;
  Result<Done> end_session(const std::string& token_hash) const;

  // A password reset by its mailed token: the password is checked before the token is spent
  // (a weak one does not burn the link), then every session of the account ends and the
  // address counts as verified. The user id. Invalid: "password"; invalid "token": used,
  // expired or unknown; unavailable.
  Result<int64_t> reset_password(const std::string& token, const std::string& password) const;

  // Queues the verification mail of a new account (`existing` false), or the notice to the
  // owner of an address someone tried to sign up with again. Quiet, as the answer to the
  // sign-up is the same either way: nothing is sent without mail configured or past the
  // recipient's budget, and a store failure is logged.
  void send_account_mail(int64_t user_id, const std::string& email, bool existing) const;
  // Queues a reset link to `email` when an account uses it, within the recipient's budget;
  // Done either way (the caller's answer never tells). Unavailable: the store did not answer.
  // Precondition: mail is configured.
  Result<Done> send_reset_link(const std::string& email) const;
  // Spends a verification token from a mailed link: true when it verified the address, false
  // when the token was used, expired or unknown. Unavailable: the store did not answer.
  Result<bool> verify_email(const std::string& token) const;

  // Settings. Each answers the value set; invalid names the field with the accepted range.
  // Invalid "retention": 0.70 to 0.97.
  Result<double> set_retention(int64_t user_id, const std::string& text) const;
  // Invalid "new_per_day": a whole number from 0 to practice::kMaxNewPerDay.
  Result<int> set_new_per_day(int64_t user_id, const std::string& text) const;
  // Unauthorized: the current password is wrong; invalid "new": a weak password. Every
  // session of the account ends (the caller starts a new one for this visitor).
  Result<Done> change_password(int64_t user_id, const std::string& current, const std::string& next) const;
  // Deletes the account and all it holds. Unauthorized: the password is wrong.
  // Both check the current password under a per-account budget (5 wrong, then one a minute;
  // limited past it) and answer unavailable with retry_after when password hashing is full.
  Result<Done> delete_account(int64_t user_id, const std::string& current) const;

 private:
  store::Store& store_;
  const account::Clock& clock_;
  RandomSource& random_;
  std::optional<AccountMail> mail_;
  class Reservation;
  // Queues a sign-in link when an account uses `email` and its mailbox budget allows; Done either way.
  Result<Done> send_signin_link(const std::string& email) const;
  // A stored single-use token for `purpose`, as a signed link to `path`. Precondition: mail is configured.
  Result<std::string> token_link(int64_t user_id, const std::string& purpose, const std::string& path) const;
  std::optional<Failure> check_current(int64_t user_id, const std::string& hash, const std::string& current,
                                       const std::string& wrong) const;
  std::unique_ptr<account::StoreRateLimiter> by_signup_, by_pair_, by_address_, by_account_, by_settings_;
};

}  // namespace ridge::web::services
