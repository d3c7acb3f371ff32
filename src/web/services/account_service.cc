#include "web/services/account_service.h"

#include <algorithm>
#include <cmath>

#include "account/security.h"
#include "practice/card_state.h"
#include "web/views/account_views.h"
#include "web/log.h"

namespace ridge::web::services {

namespace {

constexpr int64_t kAccountTokenSeconds = 30 * 60;  // verification and reset links
constexpr const char* kStepUpMessage =
    "Too many failed sign-ins for this account or from your network, so passwords are not checked for it for a while. "
    "If an account uses this address, a sign-in link is on its way to it (it works once, for 30 minutes).";
constexpr const char* kDatabase = "the database is unavailable; try again in a few seconds";

// Password hashing is full (cores running, kHashWaiting waiting): 503 with Retry-After, and
// the worker goes back to the pool at once.
Failure hashing_busy() {
  Failure f = Failure::unavailable("password hashing is busy");
  f.retry_after = 2;
  return f;
}

Failure limited(const std::string& what, double retry) {
  int seconds = std::max(1, static_cast<int>(std::ceil(retry)));
  return Failure::limited({"", "", what + "; try again in " + std::to_string(seconds) + " s", ""}, seconds);
}

}  // namespace

AccountService::AccountService(store::Store& store, const account::Clock& clock, RandomSource& random, const AccountMail* mail)
    : store_(store), clock_(clock), random_(random) {
  if (mail != nullptr) mail_.emplace(*mail);
  // The buckets live in the store, so every server on one database shares them.
  by_signup_ = std::make_unique<account::StoreRateLimiter>(store, clock, 10, 1.0 / 30);
  by_pair_ = std::make_unique<account::StoreRateLimiter>(store, clock, 5, 1.0 / 60);
  by_address_ = std::make_unique<account::StoreRateLimiter>(store, clock, 30, 1.0 / 10);
  by_account_ = std::make_unique<account::StoreRateLimiter>(store, clock, 100, 1.0 / 60);
  // The current password on /settings (change, delete): 5 wrong, then one a minute, per account.
  by_settings_ = std::make_unique<account::StoreRateLimiter>(store, clock, 5, 1.0 / 60);
}

// Reserves a token of `limiter` for `key` before a password is hashed, and puts it back unless
// the attempt is counted: concurrent attempts each hold their token while they hash, so no
// more than the bucket's capacity of guesses are ever in flight (checking first and charging
// after let 120 concurrent attempts put 20 guesses through a budget of 5).
class AccountService::Reservation {
 public:
  Reservation(account::StoreRateLimiter& limiter, std::string key) : limiter_(limiter), key_(std::move(key)) {
    answer_ = limiter_.allow(key_, &retry_);
  }
  ~Reservation() {
    if (answer_ == account::StoreRateLimiter::Answer::kAllowed && !counted_) (void)limiter_.give_back(key_);
  }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  account::StoreRateLimiter::Answer answer() const { return answer_; }
  double retry() const { return retry_; }
  void count() { counted_ = true; }  // the attempt failed: the token stays taken

 private:
  account::StoreRateLimiter& limiter_;
  std::string key_;
  account::StoreRateLimiter::Answer answer_;
  double retry_ = 0;
  bool counted_ = false;
};

Result<SignUp> AccountService::sign_up(const std::string& email, const std::string& password, const std::string& client_address) const {
  if (auto why = account::check_email(email); !why.empty()) return Failure::invalid({"email", email, "email " + why, "an email address"});
  if (auto why = account::check_password(password); !why.empty()) {
    return Failure::invalid({"password", "", "password " + why, "10 characters or more, not a common password"});
  }
  // Every hashing place taken: busy before the budget's write (a busy answer spends no token).
  if (account::hashing_full()) return hashing_busy();
  double retry = 0;
  using Answer = account::StoreRateLimiter::Answer;
  Answer signup = by_signup_->allow(account::network_key(client_address), &retry);
  if (signup == Answer::kUnavailable) return Failure::unavailable("sign-up budget unreadable");
  if (signup == Answer::kLimited) return limited("too many attempts", retry);
  // Hashed before the lookup, so a registered address costs the same time as a new one.
  auto hashed = account::hash_password_bounded(password);
  if (!hashed) return hashing_busy();
  std::string hash = std::move(*hashed);
  auto existing = store_.find_user_by_email(email);
  if (!existing.ok()) return existing.error();
  if (existing->has_value()) return SignUp{0, (*existing)->id};
  auto id = store_.create_user(email, hash, clock_.now());
  if (!id.ok()) return SignUp{0, 0};  // lost a race with the same address: the same answer
  return SignUp{*id, 0};
}

Result<int64_t> AccountService::sign_in(const std::string& email, const std::string& password, const std::string& client_address) const {
  const std::string network = account::network_key(client_address);
  std::string pair = "pair:" + network + "|" + email, addr = "addr:" + network, acct = "acct:" + email;
  double retry = 0;
  using Answer = account::StoreRateLimiter::Answer;
  // Every hashing place taken (a flood): busy at once, before the five store round trips (two of
  // them writes) that a refusal after the budgets costs; nothing is learnt or counted either way.
  if (account::hashing_full()) return hashing_busy();
  // Refused outright only for this (network, account) pair's own failures.
  Answer verdict = by_pair_->exhausted(pair, &retry);
  if (verdict == Answer::kUnavailable) return Failure::unavailable("sign-in budget unreadable");
  if (verdict == Answer::kLimited) return limited("too many failed sign-ins", retry);
  // The wide budgets (this network across accounts: spraying; this account across networks:
  // a distributed guess) are other people's failures too: the owner behind a shared NAT, or
  // of an account under attack. When one is spent the password is not checked (that would
  // give a botnet unlimited guesses), but nobody is locked out: a single-use sign-in link goes
  // to the account's address, and the answer is the same whether or not an account exists.
  Answer wide = by_address_->exhausted(addr, &retry);
  if (wide == Answer::kAllowed) wide = by_account_->exhausted(acct, &retry);
  if (wide == Answer::kUnavailable) return Failure::unavailable("sign-in budget unreadable");
  if (wide == Answer::kLimited) {
    if (!mail_) return limited("too many failed sign-ins", retry);  // no mail: only waiting is left
    if (auto sent = send_signin_link(email); !sent) return sent.error();
    return Failure::limited({"", "", kStepUpMessage, ""}, std::max(1, static_cast<int>(std::ceil(retry))));
  }
  // The pair's token is taken before hashing and given back if the password is right.
  Reservation reserved(*by_pair_, pair);
  if (reserved.answer() == Answer::kUnavailable) return Failure::unavailable("sign-in budget unreadable");
  if (reserved.answer() == Answer::kLimited) return limited("too many failed sign-ins", reserved.retry());
  auto user = store_.find_user_by_email(email);
  if (!user.ok()) return user.error();
  // Same message and (argon2id) work whether the email is unknown or the password wrong.
  static const std::string kDummy = account::hash_password("not a real password, only for timing");
  const account::Verified verified = account::verify_password_bounded(user->has_value() ? (*user)->password_hash : kDummy, password);
  if (verified == account::Verified::kBusy) return hashing_busy();
  const bool ok = user->has_value() && verified == account::Verified::kMatch;
  if (!ok) {
    // A failure the store could not count is not answered as one: no uncounted guesses.
    reserved.count();
    bool counted = true;
    counted = by_address_->take(addr) != Answer::kUnavailable && counted;
    counted = by_account_->take(acct) != Answer::kUnavailable && counted;
    if (!counted) return Failure::unavailable("a failed sign-in could not be counted");
    return Failure::unauthorized({"", "", "email or password is wrong", ""});
  }
  return (*user)->id;
}

Result<Visitor> AccountService::visitor(const std::string& session_token) const {
  Visitor v;
  if (session_token.size() != 64) return v;
  std::string hash = account::token_hash(session_token);
  auto session = store_.find_session(hash);
  if (!session.ok()) return session.error();
  if (!session->has_value()) return v;
  if ((*session)->expires_at <= clock_.now()) {
    // An expired session is anonymous whether or not the clean-up is written.
    if (auto done = store_.delete_session(hash); !done.ok()) log::error("expired session not deleted: " + done.error().detail);
    return v;
  }
  auto user = store_.get_user((*session)->user_id);
  if (!user.ok()) return user.error();
  if (!user->has_value()) return v;
  v.user_id = (*user)->id;
  v.email = (*user)->email;
  v.csrf = (*session)->csrf_token;
  v.token_hash = hash;
  v.retention = (*user)->desired_retention;
  v.account_id = (*user)->account_id;
  v.email_verified_at = (*user)->email_verified_at;
  v.new_per_day = (*user)->new_per_day;
  return v;
}

void AccountService::send_account_mail(int64_t user_id, const std::string& email, bool existing) const {
  if (!mail_) return;  // mail is not configured
  if (!mail_->queue.recipient_allowed(email)) return;  // quietly: the answer is the same
  mail::Message m;
  m.to = email;
  if (existing) {
    m.subject = "Someone tried to create a ridge account with your address";
    m.text = "Someone, perhaps you, tried to create a ridge account with this address. You already have one.\n\n"
             "Sign in: " + mail_->config.base_url + "/signin\nForgot the password? " + mail_->config.base_url + "/reset\n\n"
             "If it was not you, nothing changed and you can ignore this mail.\n";
  } else {
    auto link = token_link(user_id, "verify", "/verify");
    if (!link) {
      log::error("cannot store a verification token: " + link.error().detail);
      return;
    }
    m.subject = "Verify your ridge account";
    m.text = "Welcome to ridge. Verify this address (the link works once, for 30 minutes):\n\n" + *link +
             "\n\nIf you did not create an account, ignore this mail.\n";
    m.html = views::verify_mail_html(*link);
  }
  mail_->queue.queue(m);
}

// A single-use token for `purpose` (30 minutes) stored for the user, as a signed link to `path`.
Result<std::string> AccountService::token_link(int64_t user_id, const std::string& purpose, const std::string& path) const {
  std::string token = account::random_token();
  const int64_t now = clock_.now();
  auto saved = store_.create_account_token(account::token_hash(token), user_id, purpose, now + kAccountTokenSeconds, now);
  if (!saved.ok()) return Failure::unavailable(saved.error().detail);
  return mail::token_url(mail_->config, mail_->signer, path, purpose, token);
}

Result<Done> AccountService::send_reset_link(const std::string& email) const {
  auto user = store_.find_user_by_email(email);
  if (!user.ok()) return user.error();
  if (!user->has_value() || !mail_ || !mail_->queue.recipient_allowed(email)) return Done{};
  auto link = token_link((*user)->id, "reset", "/reset/confirm");
  if (!link) return link.error();
  mail::Message m;
  m.to = email;
  m.subject = "Reset your ridge password";
  m.text = "Someone, perhaps you, asked to reset the password of the ridge account of this address.\n\nChoose a new password "
           "(the link works once, for 30 minutes; it signs out every other session):\n" + *link +
           "\n\nIf it was not you, ignore this mail: nothing changes.\n";
  m.html = views::reset_mail_html(*link);
  mail_->queue.queue(m);
  return Done{};
}

Result<Done> AccountService::send_signin_link(const std::string& email) const {
  auto user = store_.find_user_by_email(email);
  if (!user.ok()) return user.error();
  if (!user->has_value() || !mail_ || !mail_->queue.recipient_allowed(email)) return Done{};
  auto link = token_link((*user)->id, "signin", "/signin/link");
  if (!link) return link.error();
  mail::Message m;
  m.to = email;
  m.subject = "Your ridge sign-in link";
  m.text = "There have been many failed sign-ins on your ridge account or from the network you are on, so ridge no longer "
           "checks passwords for it for a while. To sign in, use this link (it works once, for 30 minutes):\n\n" + *link +
           "\n\nIf you did not try to sign in, someone else may be guessing your password: nothing changed, and you can ignore "
           "this mail or choose a new password at " + mail_->config.base_url + "/reset\n";
  mail_->queue.queue(m);
  return Done{};
}

Result<int64_t> AccountService::sign_in_by_link(const std::string& token) const {
  const int64_t now = clock_.now();
  auto user = store_.use_account_token(account::token_hash(token), "signin", now);
  if (!user.ok()) return user.error();
  if (!user->has_value()) {
    return Failure::invalid({"token", "", "This sign-in link was used or has expired (they work once, for 30 minutes). Sign in again to get a new one.",
                             "a link from a sign-in mail, once, within 30 minutes"});
  }
  // The link proved the mailbox.
  if (auto verified = store_.set_email_verified(**user, now); !verified.ok()) {
    log::error("email not marked verified after a sign-in link: " + verified.error().detail);
  }
  return **user;
}

Result<bool> AccountService::verify_email(const std::string& token) const {
  const int64_t now = clock_.now();
  auto user = store_.use_account_token(account::token_hash(token), "verify", now);
  if (!user.ok()) return user.error();
  if (!user->has_value()) return false;
  if (auto done = store_.set_email_verified(**user, now); !done.ok()) return done.error();
  return true;
}

Result<NewSession> AccountService::start_session(int64_t user_id) const {
  NewSession s{random_.hex(32), random_.hex(32)};
  const int64_t now = clock_.now();
  auto ok = store_.create_session(account::token_hash(s.token), {user_id, s.csrf, now + kSessionSeconds}, now);
  if (!ok.ok()) return Failure::unavailable("could not start a session: " + ok.error().detail);
  return s;
}

Result<Done> AccountService::end_session(const std::string& token_hash) const {
  if (auto done = store_.delete_session(token_hash); !done.ok()) return done.error();
  return Done{};
}

Result<int64_t> AccountService::reset_password(const std::string& token, const std::string& password) const {
  // Checked before the token is spent, so a weak password does not burn the link.
  if (auto why = account::check_password(password); !why.empty()) {
    return Failure::invalid({"password", "", "password " + why, "10 characters or more, not a common password"});
  }
  const int64_t now = clock_.now();
  auto user = store_.use_account_token(account::token_hash(token), "reset", now);
  if (!user.ok()) return user.error();
  if (!user->has_value()) {
    return Failure::invalid({"token", "", "This reset link was used or has expired (they work once, for 30 minutes). Ask for a new one at /reset.",
                             "a link from a reset mail, once, within 30 minutes"});
  }
  int64_t id = **user;
  // Hashed with a wait for a slot (not bounded): the token is spent, so giving up here would
  // burn the link. A reset is rare and rate-limited by the mail that carries its link.
  if (auto set = store_.set_password(id, account::hash_password(password)); !set.ok()) return set.error();
  // Every other session ends here.
  if (auto ended = store_.delete_sessions_of(id); !ended.ok()) return ended.error();
  // The link proved the mailbox; the password is already changed, so a failure here is logged, not shown.
  if (auto verified = store_.set_email_verified(id, now); !verified.ok()) {
    log::error("email not marked verified after a reset: " + verified.error().detail);
  }
  return id;
}

Result<double> AccountService::set_retention(int64_t user_id, const std::string& text) const {
  char* end = nullptr;
  double r = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != 0 || !(r >= 0.7 && r <= 0.97)) {
    return Failure::invalid({"retention", text, "Desired retention '" + text + "' is out of range; accepted: 0.70 to 0.97.", "0.70 to 0.97"});
  }
  if (auto done = store_.set_retention(user_id, r); !done.ok()) return done.error();
  return r;
}

Result<int> AccountService::set_new_per_day(int64_t user_id, const std::string& text) const {
  char* end = nullptr;
  long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != 0 || n < 0 || n > practice::kMaxNewPerDay) {
    std::string accepted = "a whole number from 0 to " + std::to_string(practice::kMaxNewPerDay);
    return Failure::invalid({"new_per_day", text, "New questions a day '" + text + "' is out of range; accepted: " + accepted + ".", accepted});
  }
  if (auto done = store_.set_new_per_day(user_id, static_cast<int>(n)); !done.ok()) return done.error();
  return static_cast<int>(n);
}

// The current password, for a change or a deletion: limited per account (a stolen session
// cannot guess it at argon2's speed), reserved before hashing, bounded like every hash.
std::optional<Failure> AccountService::check_current(int64_t user_id, const std::string& hash, const std::string& current,
                                                      const std::string& wrong) const {
  using Answer = account::StoreRateLimiter::Answer;
  if (account::hashing_full()) return hashing_busy();  // before the reservation's two writes
  Reservation reserved(*by_settings_, "settings:" + std::to_string(user_id));
  if (reserved.answer() == Answer::kUnavailable) return Failure::unavailable("settings budget unreadable");
  if (reserved.answer() == Answer::kLimited) return limited("too many wrong passwords", reserved.retry());
  switch (account::verify_password_bounded(hash, current)) {
    case account::Verified::kBusy: return hashing_busy();
    case account::Verified::kMismatch:
      reserved.count();
      return Failure::unauthorized({"current", "", wrong, ""});
    case account::Verified::kMatch: return std::nullopt;
  }
  return std::nullopt;
}

Result<Done> AccountService::change_password(int64_t user_id, const std::string& current, const std::string& next) const {
  auto user = store_.get_user(user_id);
  if (!user.ok()) return user.error();
  if (!user->has_value()) return Failure::internal({"", "", "account not found", ""});
  if (auto refused = check_current(user_id, (*user)->password_hash, current, "The current password is wrong.")) return *refused;
  if (auto why = account::check_password(next); !why.empty()) {
    return Failure::invalid({"new", "", "The new password " + why + ".", "10 characters or more, not a common password"});
  }
  auto hashed = account::hash_password_bounded(next);
  if (!hashed) return hashing_busy();
  if (auto done = store_.set_password(user_id, *hashed); !done.ok()) return done.error();
  // The other sessions end with the old password; a failure here leaves them open: say so.
  if (auto done = store_.delete_sessions_of(user_id); !done.ok()) return done.error();
  return Done{};
}

Result<Done> AccountService::delete_account(int64_t user_id, const std::string& current) const {
  auto user = store_.get_user(user_id);
  if (!user.ok()) return user.error();
  if (!user->has_value()) return Failure::internal({"", "", "account not found", ""});
  if (auto refused = check_current(user_id, (*user)->password_hash, current, "The password is wrong; nothing was deleted.")) {
    return *refused;
  }
  if (auto done = store_.delete_user(user_id); !done.ok()) return done.error();
  return Done{};
}

}  // namespace ridge::web::services
