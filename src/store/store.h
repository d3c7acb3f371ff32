// The store: accounts, sessions and practice state. One interface, two implementations:
// SQLite (embedded default: WAL, foreign keys, busy timeout, synchronous=FULL so a committed
// write survives a killed process) and PostgreSQL (for several servers). Versioned
// migrations for both run at open. Every method is a single transaction; failures come back
// as a Result's Failure, never as an exception. Implementations are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/result.h"

namespace ridge::store {

// The shared result type (common/result.h, issue 30 item 1). A store's failure is
// Failure::unavailable(detail); a write that collides (a unique key that exists, a row changed
// since it was read) is Failure::store_conflict(detail), of kind conflict.
using ridge::Done;
using ridge::Failure;
using ridge::Result;

struct User {
  int64_t id = 0;
  std::string email;
  std::string password_hash;
  double desired_retention = 0.9;
  int64_t created_at = 0;
  // Random, opaque and stable: what leaves the site (a payment provider's reference, the API)
  // instead of the integer key.
  std::string account_id;
  int64_t email_verified_at = 0;  // 0 until the address is verified
  int new_per_day = 20;  // the most new questions the review page offers a day (0 to 200)
};

struct Session {
  int64_t user_id = 0;
  std::string csrf_token;
  int64_t expires_at = 0;
};

// FSRS memory state of one question for one user.
struct Card {
  std::string slug;
  double stability = 0;
  double difficulty = 0;
  int64_t due = 0;          // unix seconds
  int64_t last_review = 0;  // unix seconds
  int reps = 0;
  int lapses = 0;
};

struct ReviewLog {
  std::string slug;
  int grade = 0;  // 1 Again, 2 Hard, 3 Good, 4 Easy
  int64_t reviewed_at = 0;
};

struct DrillResult {
  std::string calculator;
  std::string topic;
  bool correct = false;
  int64_t answered_at = 0;
};

struct Readiness {
  int64_t id = 0;
  std::string track;
  int64_t started_at = 0;
  int64_t finished_at = 0;  // 0 while in progress
  double score = 0;         // 0..1
  std::string detail_json;  // per-topic scores and the items
  std::string nonce;        // the check's single-use nonce; empty for none
};

// A readiness check started and not yet submitted: what the server signed, so any server on
// the store can show it again with the time left.
struct OpenReadiness {
  std::string payload;
  std::string mac;
  int64_t started_at = 0;  // unix seconds
};

// A message waiting in the outgoing mail queue: the whole RFC 5322 text, rendered when queued.
struct OutgoingMail {
  int64_t id = 0;
  std::string recipient;
  std::string message;
  int attempts = 0;  // failed attempts so far
};

struct MailCounts {
  int64_t waiting = 0;  // not yet sent (due or backing off)
  int64_t sent = 0;
  int64_t failed_attempts = 0;  // over every message
};

// A weekly-mail subscription. status: "pending" (double opt-in not done), "confirmed",
// "unsubscribed".
struct Subscription {
  int64_t id = 0;
  std::string email;
  std::string status;
  int64_t created_at = 0;
  int64_t confirmed_at = 0;
};

// A mock loop (issue 36). The plan (the rounds as assembled) is JSON the rehearsal service
// wrote and reads; the store keeps it opaque. Per round: the candidate's answer and their
// rubric scores ("3,2,4,3": technical depth, problem solving, communication, numbers right).
struct RehearsalRound {
  int index = 0;
  std::string answer;
  int64_t answered_at = 0;  // 0 until answered
  std::string scores;       // "" until scored
  int64_t scored_at = 0;    // 0 until scored
};
struct Rehearsal {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string source;  // "company:ID" or "track:ID"
  std::string plan_json;
  int64_t started_at = 0, expires_at = 0;
  int64_t finished_at = 0;  // 0 while open
  std::string report_json;  // "" until finished
  std::vector<RehearsalRound> rounds;  // by index; empty in the list of rehearsals()
};

// One graded step of a Work it exercise (issue 34): the exercise is (slug, seed); a step is
// graded once per user, so a replayed answer changes nothing.
struct WorkAttempt {
  std::string slug;
  int64_t seed = 0;
  int step = 0;
  std::string answer;         // as typed
  bool right = false;
  std::string misconception;  // the named mistake's id, "" for none
  int64_t at = 0;             // unix seconds
};

// How often a user made one named mistake, and when last.
struct MistakeCount {
  std::string misconception;
  int64_t count = 0;
  int64_t last_at = 0;
  std::string slug;  // a question where it was made (the greatest slug: any one will do)
};

// Design rounds (issue 35): one graded submission of a design challenge. `submission` is the
// design as a JSON object of field -> value; `cost_usd` the verdict's ranking figure (monthly or
// training cost); `seconds` the time the candidate took (0 when unknown). `show_name` is the
// opt-in for the board: without it the board says "anonymous".
struct DesignAttempt {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string challenge;
  std::string submission;
  bool pass = false;
  double cost_usd = 0;
  int64_t seconds = 0;
  bool show_name = false;
  std::string board_name;  // the name shown when show_name ("" = anonymous)
  int64_t at = 0;
};

// Calendar months added in UTC, the day clamped to the month's length (Jan 31 + 1 = Feb 28).
int64_t add_months_utc(int64_t unix_seconds, int months);

// Token-bucket arithmetic both stores share: the tokens of a bucket last written at
// `updated_at` holding `tokens`, refilled to `now` (a clock behind refills nothing); and a
// time by which a bucket taken from at `now` is surely full again (for prune_buckets).
double refilled(double tokens, int64_t updated_at, double capacity, double per_second, int64_t now);
int64_t full_at(double capacity, double per_second, int64_t now);

class Store {
 public:
  virtual ~Store() = default;

  // Users. create_user fails with conflict when the email exists.
  virtual Result<int64_t> create_user(const std::string& email, const std::string& password_hash, int64_t now) = 0;
  virtual Result<std::optional<User>> find_user_by_email(const std::string& email) = 0;
  virtual Result<std::optional<User>> get_user(int64_t id) = 0;
  virtual Result<std::vector<User>> list_users() = 0;
  virtual Result<Done> set_password(int64_t user_id, const std::string& password_hash) = 0;
  virtual Result<Done> set_retention(int64_t user_id, double desired_retention) = 0;
  virtual Result<Done> set_new_per_day(int64_t user_id, int new_per_day) = 0;
  // Deletes the user and everything that belongs to them (sessions, cards, reviews, notes...).
  virtual Result<Done> delete_user(int64_t user_id) = 0;

  // Sessions, by the hash of their token (the token itself is never stored).
  virtual Result<Done> create_session(const std::string& token_hash, const Session& session, int64_t now) = 0;
  virtual Result<std::optional<Session>> find_session(const std::string& token_hash) = 0;
  virtual Result<Done> delete_session(const std::string& token_hash) = 0;
  virtual Result<Done> delete_sessions_of(int64_t user_id) = 0;

  // Practice. record_review writes the log and the new card state in one transaction.
  // Writes the review log row and the card in one transaction, if the stored card still has
  // card.reps - 1 repetitions (none for a first review): an optimistic check, so two
  // reviews of one card at once cannot both read the old card. A lost race answers an error
  // of kind conflict and writes nothing; the caller re-reads and retries.
  virtual Result<Done> record_review(int64_t user_id, const Card& card, int grade, int64_t now) = 0;
  virtual Result<std::optional<Card>> get_card(int64_t user_id, const std::string& slug) = 0;
  virtual Result<std::vector<Card>> cards(int64_t user_id) = 0;
  virtual Result<std::vector<ReviewLog>> reviews(int64_t user_id) = 0;

  virtual Result<Done> set_bookmark(int64_t user_id, const std::string& slug, bool on, int64_t now) = 0;
  virtual Result<std::vector<std::string>> bookmarks(int64_t user_id) = 0;
  virtual Result<Done> put_note(int64_t user_id, const std::string& slug, const std::string& body, int64_t now) = 0;
  virtual Result<std::optional<std::string>> get_note(int64_t user_id, const std::string& slug) = 0;

  virtual Result<Done> record_drill(int64_t user_id, const DrillResult& result) = 0;
  virtual Result<std::vector<DrillResult>> drills(int64_t user_id) = 0;

  // The new row's id; 0 when a result with the same non-empty nonce was saved for the user
  // before (by any server on the store): a check is recorded once.
  virtual Result<int64_t> save_readiness(int64_t user_id, const Readiness& r) = 0;
  virtual Result<std::vector<Readiness>> readiness_history(int64_t user_id) = 0;
  // The user's open readiness check (at most one): open_readiness replaces any other,
  // close_readiness removes it if its payload is `payload` (a submission of an older check
  // leaves a newer one open).
  virtual Result<Done> open_readiness(int64_t user_id, const OpenReadiness& check) = 0;
  virtual Result<std::optional<OpenReadiness>> find_open_readiness(int64_t user_id) = 0;
  virtual Result<Done> close_readiness(int64_t user_id, const std::string& payload) = 0;

  // Entitlements: paid access until a time. No card data is ever stored, only the end.
  virtual Result<std::optional<User>> find_user_by_account_id(const std::string& account_id) = 0;
  // The end of the user's access (unix seconds), 0 when they never had any or it was revoked.
  virtual Result<int64_t> access_until(int64_t user_id) = 0;
  // Adds `months` from the later of `now` and the current end; returns the new end.
  virtual Result<int64_t> grant(int64_t user_id, int months, int64_t now) = 0;
  virtual Result<Done> revoke(int64_t user_id) = 0;
  // A payment provider's event: records `event_id` and grants `months`, in one transaction,
  // once. true when it granted; false for an event seen before (nothing changes).
  // `payment_ref` names the payment (Stripe's payment_intent) so a refund or a dispute of it
  // can take back what it bought; empty when the provider gave none.
  virtual Result<bool> grant_for_event(const std::string& event_id, int64_t user_id, int months, int64_t now,
                                       const std::string& payment_ref = "") = 0;
  // A refund or dispute of the payment `payment_ref`: records `event_id` and takes back the
  // months that payment granted, in one transaction, once per payment (a refund and then a
  // dispute of one payment revoke once). The user's new end of access; nullopt when nothing
  // changed (an event seen before, a payment already revoked, or one ridge never granted for).
  virtual Result<std::optional<int64_t>> revoke_for_payment(const std::string& event_id, const std::string& payment_ref,
                                                            int64_t now) = 0;

  // The outgoing mail queue, shared by every process on the store. claim_mail leases up to
  // `limit` due messages to the caller for `lease_seconds` (another process does not see
  // them meanwhile) and counts the attempt; the caller then reports mail_sent or mail_failed.
  virtual Result<int64_t> enqueue_mail(const std::string& recipient, const std::string& message, int64_t now) = 0;
  virtual Result<std::vector<OutgoingMail>> claim_mail(int64_t now, int64_t lease_seconds, int limit) = 0;
  virtual Result<Done> mail_sent(int64_t id, int64_t now) = 0;
  virtual Result<Done> mail_failed(int64_t id, int64_t retry_at, const std::string& error) = 0;
  virtual Result<MailCounts> mail_counts() = 0;

  // Subscriptions to the weekly question. subscribe creates a pending one, turns an
  // unsubscribed one back to pending, and leaves a pending or confirmed one as it is.
  virtual Result<Subscription> subscribe(const std::string& email, int64_t now) = 0;
  virtual Result<std::optional<Subscription>> find_subscription(const std::string& email) = 0;
  // Pending to confirmed; false when there is no pending or confirmed subscription.
  virtual Result<bool> confirm_subscription(const std::string& email, int64_t now) = 0;
  // Any state to unsubscribed; false when the address has no subscription.
  virtual Result<bool> unsubscribe(const std::string& email, int64_t now) = 0;
  virtual Result<std::vector<Subscription>> confirmed_subscriptions() = 0;
  // The slugs the weekly mail already sent to this subscription, in order.
  virtual Result<std::vector<std::string>> weekly_slugs_sent(int64_t subscription_id) = 0;
  // Records the week's send for the subscription and queues its message in one transaction,
  // unless that week's send exists (another run, on this or another process, got there
  // first): true when this call queued it. The (week, subscription) key is the lock.
  virtual Result<bool> queue_weekly(const std::string& week, int64_t subscription_id, const std::string& slug,
                                    const std::string& recipient, const std::string& message, int64_t now) = 0;

  // Single-use account tokens (email verification, password reset), by the token's hash.
  virtual Result<Done> create_account_token(const std::string& token_hash, int64_t user_id, const std::string& purpose,
                                            int64_t expires_at, int64_t now) = 0;
  // Marks the token used and returns its user, if it exists for `purpose`, is unused and
  // unexpired; otherwise nullopt and nothing changes. Two uses at once: one wins.
  virtual Result<std::optional<int64_t>> use_account_token(const std::string& token_hash, const std::string& purpose,
                                                           int64_t now) = 0;
  virtual Result<Done> set_email_verified(int64_t user_id, int64_t now) = 0;

  // Token buckets shared by every process on the store (the sign-in and sign-up limits):
  // `capacity` tokens, refilled at `per_second`; a bucket with no row is full. take_token
  // refills `key`'s bucket to `now` and takes one token in one statement (atomic against
  // other processes): the tokens left, or nullopt (nothing changes) when it held less than one.
  virtual Result<std::optional<double>> take_token(const std::string& key, double capacity, double per_second, int64_t now) = 0;
  // Puts back one token taken from `key`'s bucket (never above `capacity`): a reservation
  // that turned out not to count (a correct password). No row: nothing to do.
  virtual Result<Done> return_token(const std::string& key, double capacity) = 0;
  // The tokens `key`'s bucket holds at `now`; changes nothing.
  virtual Result<double> bucket_tokens(const std::string& key, double capacity, double per_second, int64_t now) = 0;
  // Deletes the buckets that are full again by `now` (the same as no row); how many.
  virtual Result<int64_t> prune_buckets(int64_t now) = 0;

  // Mock loops (issue 36). Every call names the user: a rehearsal is read and written only by
  // its owner. create_rehearsal writes the rehearsal and `rounds` empty rounds in one
  // transaction; its id.
  virtual Result<int64_t> create_rehearsal(int64_t user_id, const Rehearsal& r, int rounds) = 0;
  virtual Result<std::optional<Rehearsal>> get_rehearsal(int64_t user_id, int64_t id) = 0;
  // Keeps the round's answer (the first answer's time is kept) while the rehearsal is open
  // (unfinished, unexpired at `now`) and the round unscored; false when nothing changed.
  virtual Result<bool> answer_rehearsal_round(int64_t user_id, int64_t id, int index, const std::string& answer,
                                              int64_t now) = 0;
  // Records the round's scores once: a second submission (a resent form, another server)
  // changes nothing and answers false. Only an answered round of an open rehearsal.
  virtual Result<bool> score_rehearsal_round(int64_t user_id, int64_t id, int index, const std::string& scores,
                                             int64_t now) = 0;
  // Closes the rehearsal with its report, once: false when it was closed before.
  virtual Result<bool> finish_rehearsal(int64_t user_id, int64_t id, const std::string& report_json, int64_t now) = 0;
  // The user's rehearsals, oldest first, without their rounds.
  virtual Result<std::vector<Rehearsal>> rehearsals(int64_t user_id) = 0;
  // Work it (issue 34). record_work_step: true when saved, false when that (slug, seed, step)
  // was graded for the user before (by any server: the unique key decides).
  virtual Result<bool> record_work_step(int64_t user_id, const WorkAttempt& a) = 0;
  // The user's graded steps of one exercise, by step.
  virtual Result<std::vector<WorkAttempt>> work_attempts(int64_t user_id, const std::string& slug, int64_t seed) = 0;
  // The user's named mistakes, the most frequent first (then the most recent).
  virtual Result<std::vector<MistakeCount>> work_mistakes(int64_t user_id) = 0;

  // Design rounds (issue 35). Every attempt is kept (deleted with the account); its id.
  virtual Result<int64_t> record_design_attempt(int64_t user_id, const DesignAttempt& a) = 0;
  // The user's attempts at a challenge, the newest first, at most `limit`.
  virtual Result<std::vector<DesignAttempt>> design_attempts(int64_t user_id, const std::string& challenge, int limit) = 0;
  // The user's best passing attempt (the cheapest, then the earliest), if any.
  virtual Result<std::optional<DesignAttempt>> design_best(int64_t user_id, const std::string& challenge) = 0;
  // The challenge's board: each user's best passing attempt once, the cheapest first, at most
  // `limit` (a user with many passing attempts still has one row).
  virtual Result<std::vector<DesignAttempt>> design_board(const std::string& challenge, int limit) = 0;

  // Answers when the database is reachable (for /readyz).
  virtual bool ping() = 0;
  // Connections of the store's pool in use now and in all; nullopt for SQLite (one connection
  // behind a lock).
  struct PoolUse {
    int in_use = 0, size = 0;
  };
  virtual std::optional<PoolUse> pool_use() { return std::nullopt; }
  virtual std::string backend() const = 0;
};

// Opens "sqlite:PATH" or "postgresql://..." (or "postgres://"), applying migrations.
Result<std::unique_ptr<Store>> open_store(const std::string& url);

}  // namespace ridge::store
