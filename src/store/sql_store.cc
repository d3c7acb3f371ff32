#include "store/sql_store.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

#include "store/migrations.h"

namespace ridge::store {
namespace {

const std::string kSelectUser =
    "SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users ";
const std::string kSelectCard = "SELECT slug, stability, difficulty, due, last_review, reps, lapses FROM cards ";
const std::string kSelectSubscription = "SELECT id, email, status, created_at, confirmed_at FROM subscriptions ";
const char* const kEnqueueMail = "INSERT INTO mail_queue (recipient, message, created_at, next_attempt_at) VALUES (?, ?, ?, ?) RETURNING id";

User to_user(const Row& r) {
  return {r.i64(0), r.text(1), r.text(2), r.f64(3), r.i64(4), r.text(5), r.i64(6), static_cast<int>(r.i64(7))};
}
Card to_card(const Row& r) {
  return {r.text(0), r.f64(1), r.f64(2), r.i64(3), r.i64(4), static_cast<int>(r.i64(5)), static_cast<int>(r.i64(6))};
}
Subscription to_subscription(const Row& r) { return {r.i64(0), r.text(1), r.text(2), r.i64(3), r.i64(4)}; }
std::string to_text(const Row& r) { return r.text(0); }
const std::string kSelectRehearsal =
    "SELECT id, user_id, source, plan_json, started_at, expires_at, finished_at, report_json FROM rehearsals ";
Rehearsal to_rehearsal(const Row& r) {
  return {r.i64(0), r.i64(1), r.text(2), r.text(3), r.i64(4), r.i64(5), r.i64(6), r.text(7), {}};
}

const std::string kSelectDesignAttempt =
    "SELECT id, user_id, challenge, submission, passed, cost_usd, seconds, show_name, board_name, attempted_at FROM design_attempts ";
DesignAttempt to_design_attempt(const Row& r) {
  return {r.i64(0), r.i64(1), r.text(2), r.text(3), r.i64(4) != 0, r.f64(5), r.i64(6), r.i64(7) != 0, r.text(8), r.i64(9)};
}

// The row mappings, once: every row, the first row if any, or only whether it worked.
template <class F>
auto all(const Result<Rows>& r, F map) -> Result<std::vector<decltype(map(std::declval<const Row&>()))>> {
  if (!r.ok()) return r.error();
  std::vector<decltype(map(std::declval<const Row&>()))> out;
  out.reserve(r->rows.size());
  for (const Row& row : r->rows) out.push_back(map(row));
  return out;
}
template <class F>
auto first(const Result<Rows>& r, F map) -> Result<std::optional<decltype(map(std::declval<const Row&>()))>> {
  using T = decltype(map(std::declval<const Row&>()));
  if (!r.ok()) return r.error();
  if (r->rows.empty()) return std::optional<T>();
  return std::optional<T>(map(r->rows.front()));
}
Result<Done> done(const Result<Rows>& r) {
  if (!r.ok()) return r.error();
  return Done{};
}
Result<bool> changed(const Result<Rows>& r) {
  if (!r.ok()) return r.error();
  return r->changes > 0;
}
// The key an INSERT ... RETURNING id answered.
Result<int64_t> returned_id(const Result<Rows>& r) {
  if (!r.ok()) return r.error();
  if (r->rows.empty()) return Failure::unavailable("the insert returned no id");
  return r->rows.front().i64(0);
}

class SqlStore final : public Store {
 public:
  explicit SqlStore(std::unique_ptr<Db> db) : db_(std::move(db)), sql_(db_->dialect()) {}

  Result<int64_t> create_user(const std::string& email, const std::string& hash, int64_t now) override {
    auto r = db_->query(sql_.create_user, {email, hash, now});
    if (!r.ok() && r.error().conflict()) return Failure::store_conflict("email already registered");
    return returned_id(r);
  }
  Result<std::optional<User>> find_user_by_email(const std::string& email) override {
    return first(db_->query(kSelectUser + "WHERE email = ?", {email}), to_user);
  }
  Result<std::optional<User>> get_user(int64_t id) override {
    return first(db_->read(kSelectUser + "WHERE id = ?", {id}), to_user);
  }
  Result<std::vector<User>> list_users() override { return all(db_->query(kSelectUser + "ORDER BY id"), to_user); }
  Result<Done> set_password(int64_t user_id, const std::string& hash) override {
    return done(db_->query("UPDATE users SET password_hash = ? WHERE id = ?", {hash, user_id}));
  }
  Result<Done> set_retention(int64_t user_id, double r) override {
    return done(db_->query("UPDATE users SET desired_retention = ? WHERE id = ?", {r, user_id}));
  }
  Result<Done> set_new_per_day(int64_t user_id, int n) override {
    return done(db_->query("UPDATE users SET new_per_day = ? WHERE id = ?", {n, user_id}));
  }
  Result<Done> delete_user(int64_t user_id) override { return done(db_->query("DELETE FROM users WHERE id = ?", {user_id})); }

  Result<Done> create_session(const std::string& token_hash, const Session& s, int64_t now) override {
    return done(db_->query("INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                           {token_hash, s.user_id, s.csrf_token, now, s.expires_at}));
  }
  Result<std::optional<Session>> find_session(const std::string& token_hash) override {
    return first(db_->read("SELECT user_id, csrf_token, expires_at FROM sessions WHERE token_hash = ?", {token_hash}),
                 [](const Row& r) { return Session{r.i64(0), r.text(1), r.i64(2)}; });
  }
  Result<Done> delete_session(const std::string& token_hash) override {
    return done(db_->query("DELETE FROM sessions WHERE token_hash = ?", {token_hash}));
  }
  Result<Done> delete_sessions_of(int64_t user_id) override {
    return done(db_->query("DELETE FROM sessions WHERE user_id = ?", {user_id}));
  }

  Result<Done> record_review(int64_t user_id, const Card& card, int grade, int64_t now) override {
    PendingReview me{user_id, &card, grade, now, std::nullopt};
    if (!db_->dialect().group_commit) return db_->transaction([&](Conn& c) { return write_review(c, me); });
    // Group commit: reviews that arrive while another batch is being committed wait and go
    // in the next one, all in one transaction, each under its own savepoint (a stale card
    // rolls back its own two rows, nothing else). One fsync then covers the whole batch, and
    // no review is answered before the COMMIT that holds it has returned.
    std::unique_lock<std::mutex> lock(batch_mutex_);
    queued_.push_back(&me);
    while (committing_ && !me.outcome) batch_cv_.wait(lock);
    if (me.outcome) return *me.outcome;
    // No batch in progress: this thread commits everything queued so far, its own included.
    committing_ = true;
    std::vector<PendingReview*> batch;
    batch.swap(queued_);
    lock.unlock();
    std::vector<std::optional<Result<Done>>> outcomes(batch.size());
    commit_batch(batch, outcomes);
    lock.lock();  // outcomes are published under batch_mutex_, where the waiters read them
    for (size_t i = 0; i < batch.size(); ++i) batch[i]->outcome = std::move(outcomes[i]);
    committing_ = false;
    batch_cv_.notify_all();
    return *me.outcome;
  }
  Result<std::optional<Card>> get_card(int64_t user_id, const std::string& slug) override {
    // A read that races a commit may see the card before it: the write's reps check refuses
    // what was built from it, and the caller reads again.
    return first(db_->read(kSelectCard + "WHERE user_id = ? AND slug = ?", {user_id, slug}), to_card);
  }
  Result<std::vector<Card>> cards(int64_t user_id) override {
    return all(db_->query(kSelectCard + "WHERE user_id = ? ORDER BY due, slug", {user_id}), to_card);
  }
  Result<std::vector<ReviewLog>> reviews(int64_t user_id) override {
    return all(db_->query("SELECT slug, grade, reviewed_at FROM reviews WHERE user_id = ? ORDER BY id", {user_id}),
               [](const Row& r) { return ReviewLog{r.text(0), static_cast<int>(r.i64(1)), r.i64(2)}; });
  }

  Result<Done> set_bookmark(int64_t user_id, const std::string& slug, bool on, int64_t now) override {
    if (!on) return done(db_->query("DELETE FROM bookmarks WHERE user_id = ? AND slug = ?", {user_id, slug}));
    return done(db_->query("INSERT INTO bookmarks (user_id, slug, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                           {user_id, slug, now}));
  }
  Result<std::vector<std::string>> bookmarks(int64_t user_id) override {
    return all(db_->query("SELECT slug FROM bookmarks WHERE user_id = ? ORDER BY created_at, slug", {user_id}), to_text);
  }
  Result<Done> put_note(int64_t user_id, const std::string& slug, const std::string& body, int64_t now) override {
    if (body.empty()) return done(db_->query("DELETE FROM notes WHERE user_id = ? AND slug = ?", {user_id, slug}));
    return done(db_->query("INSERT INTO notes (user_id, slug, body, updated_at) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (user_id, slug) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                           {user_id, slug, body, now}));
  }
  Result<std::optional<std::string>> get_note(int64_t user_id, const std::string& slug) override {
    return first(db_->query("SELECT body FROM notes WHERE user_id = ? AND slug = ?", {user_id, slug}), to_text);
  }

  Result<Done> record_drill(int64_t user_id, const DrillResult& r) override {
    return done(db_->query("INSERT INTO drills (user_id, calculator, topic, correct, answered_at) VALUES (?, ?, ?, ?, ?)",
                           {user_id, r.calculator, r.topic, r.correct, r.answered_at}));
  }
  Result<std::vector<DrillResult>> drills(int64_t user_id) override {
    return all(db_->query("SELECT calculator, topic, correct, answered_at FROM drills WHERE user_id = ? ORDER BY id", {user_id}),
               [](const Row& r) { return DrillResult{r.text(0), r.text(1), r.i64(2) != 0, r.i64(3)}; });
  }

  Result<int64_t> save_readiness(int64_t user_id, const Readiness& r) override {
    // The unique (user_id, nonce) index makes a second submission of one check insert nothing,
    // whichever server it reaches.
    auto inserted = db_->query("INSERT INTO readiness (user_id, track, started_at, finished_at, score, detail_json, nonce) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                               {user_id, r.track, r.started_at, r.finished_at, r.score, r.detail_json, r.nonce});
    if (!inserted.ok()) return inserted.error();
    if (inserted->rows.empty()) return int64_t{0};
    return inserted->rows.front().i64(0);
  }
  Result<std::vector<Readiness>> readiness_history(int64_t user_id) override {
    return all(db_->query("SELECT id, track, started_at, finished_at, score, detail_json, nonce FROM readiness WHERE user_id = ? "
                          "ORDER BY id DESC",
                          {user_id}),
               [](const Row& r) { return Readiness{r.i64(0), r.text(1), r.i64(2), r.i64(3), r.f64(4), r.text(5), r.text(6)}; });
  }

  Result<Done> open_readiness(int64_t user_id, const OpenReadiness& c) override {
    return done(db_->query("INSERT INTO readiness_open (user_id, payload, mac, started_at) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (user_id) DO UPDATE SET payload = excluded.payload, mac = excluded.mac, "
                           "started_at = excluded.started_at",
                           {user_id, c.payload, c.mac, c.started_at}));
  }
  Result<std::optional<OpenReadiness>> find_open_readiness(int64_t user_id) override {
    return first(db_->query("SELECT payload, mac, started_at FROM readiness_open WHERE user_id = ?", {user_id}),
                 [](const Row& r) { return OpenReadiness{r.text(0), r.text(1), r.i64(2)}; });
  }
  Result<Done> close_readiness(int64_t user_id, const std::string& payload) override {
    return done(db_->query("DELETE FROM readiness_open WHERE user_id = ? AND payload = ?", {user_id, payload}));
  }

  Result<bool> record_work_step(int64_t user_id, const WorkAttempt& a) override {
    // The primary key (user_id, slug, seed, step) makes a second grade of a step insert nothing.
    return changed(db_->query("INSERT INTO work_attempts (user_id, slug, seed, step, answer, correct, misconception, answered_at) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                              {user_id, a.slug, a.seed, int64_t{a.step}, a.answer, a.right, a.misconception, a.at}));
  }
  Result<std::vector<WorkAttempt>> work_attempts(int64_t user_id, const std::string& slug, int64_t seed) override {
    return all(db_->query("SELECT slug, seed, step, answer, correct, misconception, answered_at FROM work_attempts "
                          "WHERE user_id = ? AND slug = ? AND seed = ? ORDER BY step",
                          {user_id, slug, seed}),
               [](const Row& r) {
                 return WorkAttempt{r.text(0), r.i64(1), static_cast<int>(r.i64(2)), r.text(3), r.i64(4) != 0, r.text(5), r.i64(6)};
               });
  }
  Result<std::vector<MistakeCount>> work_mistakes(int64_t user_id) override {
    return all(db_->query("SELECT misconception, COUNT(*), MAX(answered_at), MAX(slug) FROM work_attempts "
                          "WHERE user_id = ? AND misconception <> '' GROUP BY misconception "
                          "ORDER BY COUNT(*) DESC, MAX(answered_at) DESC, misconception",
                          {user_id}),
               [](const Row& r) { return MistakeCount{r.text(0), r.i64(1), r.i64(2), r.text(3)}; });
  }

  // Design rounds (issue 35).
  Result<int64_t> record_design_attempt(int64_t user_id, const DesignAttempt& a) override {
    return returned_id(db_->query("INSERT INTO design_attempts (user_id, challenge, submission, passed, cost_usd, seconds, show_name, "
                                  "board_name, attempted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                                  {user_id, a.challenge, a.submission, a.pass, a.cost_usd, a.seconds, a.show_name, a.board_name, a.at}));
  }
  Result<std::vector<DesignAttempt>> design_attempts(int64_t user_id, const std::string& challenge, int limit) override {
    return all(db_->query(kSelectDesignAttempt + "WHERE user_id = ? AND challenge = ? ORDER BY attempted_at DESC, id DESC LIMIT ?",
                          {user_id, challenge, int64_t{limit}}),
               to_design_attempt);
  }
  Result<std::optional<DesignAttempt>> design_best(int64_t user_id, const std::string& challenge) override {
    return first(db_->query(kSelectDesignAttempt + "WHERE user_id = ? AND challenge = ? AND passed = ? ORDER BY cost_usd, id LIMIT 1",
                            {user_id, challenge, true}),
                 to_design_attempt);
  }
  Result<std::vector<DesignAttempt>> design_board(const std::string& challenge, int limit) override {
    // Each user's cheapest passing attempt (ties: the earliest), one row per user.
    return all(db_->query("SELECT id, user_id, challenge, submission, passed, cost_usd, seconds, show_name, board_name, attempted_at FROM "
                          "(SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY cost_usd, id) AS rank_in_user "
                          "FROM design_attempts WHERE challenge = ? AND passed = ?) best "
                          "WHERE rank_in_user = 1 ORDER BY cost_usd, id LIMIT ?",
                          {challenge, true, int64_t{limit}}),
               to_design_attempt);
  }

  Result<std::optional<User>> find_user_by_account_id(const std::string& account_id) override {
    return first(db_->query(kSelectUser + "WHERE account_id = ?", {account_id}), to_user);
  }
  Result<int64_t> access_until(int64_t user_id) override {
    auto end = first(db_->query("SELECT access_until FROM entitlements WHERE user_id = ?", {user_id}),
                     [](const Row& r) { return r.i64(0); });
    if (!end.ok()) return end.error();
    return end->value_or(0);
  }
  Result<int64_t> grant(int64_t user_id, int months, int64_t now) override {
    return db_->in_transaction([&](Conn& c) { return extend(c, user_id, months, now); });
  }
  Result<Done> revoke(int64_t user_id) override { return done(db_->query("DELETE FROM entitlements WHERE user_id = ?", {user_id})); }
  Result<bool> grant_for_event(const std::string& event_id, int64_t user_id, int months, int64_t now,
                               const std::string& payment_ref) override {
    return db_->in_transaction([&](Conn& c) -> Result<bool> {
      // A concurrent delivery of the same event waits on the key, then inserts nothing.
      auto ev = c.query("INSERT INTO billing_events (event_id, user_id, months, received_at, payment_ref) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT DO NOTHING",
                        {event_id, user_id, months, now, payment_ref});
      if (!ev.ok()) return ev.error();
      if (ev->changes == 0) return false;  // seen before: a replay changes nothing
      auto end = extend(c, user_id, months, now);
      if (!end.ok()) return end.error();
      return true;
    });
  }

  Result<std::optional<int64_t>> revoke_for_payment(const std::string& event_id, const std::string& payment_ref,
                                                    int64_t now) override {
    using Revoked = std::optional<int64_t>;
    if (payment_ref.empty()) return Revoked{};
    return db_->in_transaction([&](Conn& c) -> Result<Revoked> {
      struct Granted {
        int64_t user_id;
        int months;
      };
      auto granted = first(c.query("SELECT user_id, months FROM billing_events WHERE payment_ref = ? AND months > 0 "
                                   "ORDER BY received_at LIMIT 1",
                                   {payment_ref}),
                           [](const Row& r) { return Granted{r.i64(0), static_cast<int>(r.i64(1))}; });
      if (!granted.ok()) return granted.error();
      if (!granted->has_value()) return Revoked{};  // a payment ridge never granted for
      const Granted g = **granted;
      // The user row is locked first, as extend() does, so a grant and a revocation of one
      // account serialize, and a second revocation of the payment sees the first.
      auto user = c.query(sql_.lock_user, {g.user_id});
      if (!user.ok()) return user.error();
      if (user->rows.empty()) return Revoked{};  // the account was deleted
      auto earlier = c.query("SELECT 1 FROM billing_events WHERE payment_ref = ? AND months < 0", {payment_ref});
      if (!earlier.ok()) return earlier.error();
      auto ev = c.query("INSERT INTO billing_events (event_id, user_id, months, received_at, payment_ref) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT DO NOTHING",
                        {event_id, g.user_id, -g.months, now, payment_ref});
      if (!ev.ok()) return ev.error();
      if (ev->changes == 0 || !earlier->rows.empty()) return Revoked{};  // a replay, or revoked before
      auto current = first(c.query("SELECT access_until FROM entitlements WHERE user_id = ?", {g.user_id}),
                           [](const Row& r) { return r.i64(0); });
      if (!current.ok()) return current.error();
      if (!current->has_value()) return Revoked{};
      const int64_t end = add_months_utc(**current, -g.months);
      auto up = c.query("UPDATE entitlements SET access_until = ?, updated_at = ? WHERE user_id = ?", {end, now, g.user_id});
      if (!up.ok()) return up.error();
      return Revoked{end};
    });
  }

  Result<int64_t> enqueue_mail(const std::string& recipient, const std::string& message, int64_t now) override {
    return returned_id(db_->query(kEnqueueMail, {recipient, message, now, now}));
  }
  Result<std::vector<OutgoingMail>> claim_mail(int64_t now, int64_t lease_seconds, int limit) override {
    // One statement: atomic against other processes (and, where the dialect has it, SKIP
    // LOCKED: two senders at once take different messages).
    auto claimed = all(db_->query(sql_.claim_mail, {now + lease_seconds, now, limit}), [](const Row& r) {
      return OutgoingMail{r.i64(0), r.text(1), r.text(2), static_cast<int>(r.i64(3)) - 1};
    });
    if (!claimed.ok()) return claimed;
    std::vector<OutgoingMail> out = std::move(claimed).value();
    std::sort(out.begin(), out.end(), [](const OutgoingMail& a, const OutgoingMail& b) { return a.id < b.id; });
    return out;
  }
  Result<Done> mail_sent(int64_t id, int64_t now) override {
    return done(db_->query("UPDATE mail_queue SET sent_at = ?, last_error = '' WHERE id = ?", {now, id}));
  }
  Result<Done> mail_failed(int64_t id, int64_t retry_at, const std::string& error) override {
    return done(db_->query("UPDATE mail_queue SET next_attempt_at = ?, last_error = ? WHERE id = ? AND sent_at = 0", {retry_at, error, id}));
  }
  Result<MailCounts> mail_counts() override {
    auto r = db_->query("SELECT COALESCE(SUM(CASE WHEN sent_at = 0 THEN 1 ELSE 0 END), 0), "
                        "COALESCE(SUM(CASE WHEN sent_at <> 0 THEN 1 ELSE 0 END), 0), "
                        "COALESCE(SUM(attempts - CASE WHEN sent_at <> 0 THEN 1 ELSE 0 END), 0) FROM mail_queue");
    auto counts = first(r, [](const Row& row) { return MailCounts{row.i64(0), row.i64(1), row.i64(2)}; });
    if (!counts.ok()) return counts.error();
    return counts->value_or(MailCounts{});
  }

  Result<Subscription> subscribe(const std::string& email, int64_t now) override {
    return db_->in_transaction([&](Conn& c) -> Result<Subscription> {
      auto up = c.query("INSERT INTO subscriptions (email, status, created_at, updated_at) VALUES (?, 'pending', ?, ?) "
                        "ON CONFLICT (email) DO UPDATE SET status = 'pending', confirmed_at = 0, updated_at = excluded.updated_at "
                        "WHERE subscriptions.status = 'unsubscribed'",
                        {email, now, now});
      if (!up.ok()) return up.error();
      auto sub = first(c.query(kSelectSubscription + "WHERE email = ?", {email}), to_subscription);
      if (!sub.ok()) return sub.error();
      if (!sub->has_value()) return Failure::unavailable("subscription vanished");
      return **sub;
    });
  }
  Result<std::optional<Subscription>> find_subscription(const std::string& email) override {
    return first(db_->query(kSelectSubscription + "WHERE email = ?", {email}), to_subscription);
  }
  Result<bool> confirm_subscription(const std::string& email, int64_t now) override {
    return changed(db_->query("UPDATE subscriptions SET status = 'confirmed', "
                              "confirmed_at = CASE WHEN status = 'confirmed' THEN confirmed_at ELSE ? END, "
                              "updated_at = ? WHERE email = ? AND status IN ('pending', 'confirmed')",
                              {now, now, email}));
  }
  Result<bool> unsubscribe(const std::string& email, int64_t now) override {
    return changed(db_->query("UPDATE subscriptions SET status = 'unsubscribed', updated_at = ? WHERE email = ?", {now, email}));
  }
  Result<std::vector<Subscription>> confirmed_subscriptions() override {
    return all(db_->query(kSelectSubscription + "WHERE status = 'confirmed' ORDER BY id"), to_subscription);
  }
  Result<std::vector<std::string>> weekly_slugs_sent(int64_t subscription_id) override {
    return all(db_->query("SELECT slug FROM weekly_sends WHERE subscription_id = ? ORDER BY week", {subscription_id}), to_text);
  }
  Result<bool> queue_weekly(const std::string& week, int64_t subscription_id, const std::string& slug, const std::string& recipient,
                            const std::string& message, int64_t now) override {
    return db_->in_transaction([&](Conn& c) -> Result<bool> {
      // The primary key (week, subscription) is the lock: a concurrent insert of the same key
      // (SQLite: a second BEGIN IMMEDIATE) waits for this transaction, then inserts nothing.
      auto rec = c.query("INSERT INTO weekly_sends (week, subscription_id, slug, queued_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         {week, subscription_id, slug, now});
      if (!rec.ok()) return rec.error();
      if (rec->changes == 0) return false;
      auto queued = c.query(kEnqueueMail, {recipient, message, now, now});
      if (!queued.ok()) return queued.error();
      return true;
    });
  }

  Result<Done> create_account_token(const std::string& token_hash, int64_t user_id, const std::string& purpose, int64_t expires_at,
                                    int64_t now) override {
    return done(db_->query("INSERT INTO account_tokens (token_hash, user_id, purpose, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
                           {token_hash, user_id, purpose, expires_at, now}));
  }
  Result<std::optional<int64_t>> use_account_token(const std::string& token_hash, const std::string& purpose, int64_t now) override {
    // One UPDATE: of two uses at once, one finds used_at = 0 and the other finds nothing.
    return first(db_->query("UPDATE account_tokens SET used_at = ? WHERE token_hash = ? AND purpose = ? AND used_at = 0 "
                            "AND expires_at > ? RETURNING user_id",
                            {now, token_hash, purpose, now}),
                 [](const Row& r) { return r.i64(0); });
  }
  Result<Done> set_email_verified(int64_t user_id, int64_t now) override {
    return done(db_->query("UPDATE users SET email_verified_at = ? WHERE id = ? AND email_verified_at = 0", {now, user_id}));
  }

  Result<std::optional<double>> take_token(const std::string& key, double capacity, double per_second, int64_t now) override {
    return first(db_->query(sql_.take_token, {key, capacity, per_second, now, full_at(capacity, per_second, now)}),
                 [](const Row& r) { return r.f64(0); });
  }
  Result<Done> return_token(const std::string& key, double capacity) override {
    return done(db_->query("UPDATE rate_limits SET tokens = CASE WHEN tokens + 1 > ? THEN ? ELSE tokens + 1 END WHERE bucket = ?",
                           {capacity, capacity, key}));
  }
  Result<double> bucket_tokens(const std::string& key, double capacity, double per_second, int64_t now) override {
    auto r = first(db_->query("SELECT tokens, updated_at FROM rate_limits WHERE bucket = ?", {key}),
                   [&](const Row& row) { return refilled(row.f64(0), row.i64(1), capacity, per_second, now); });
    if (!r.ok()) return r.error();
    return r->value_or(capacity);  // no row: full
  }
  Result<int64_t> prune_buckets(int64_t now) override {
    auto r = db_->query("DELETE FROM rate_limits WHERE full_at <= ?", {now});
    if (!r.ok()) return r.error();
    return r->changes;
  }

  // Mock loops (issue 36). Each statement names the user, so another account's id reads as
  // none and writes nothing.
  Result<int64_t> create_rehearsal(int64_t user_id, const Rehearsal& r, int rounds) override {
    return db_->in_transaction([&](Conn& c) -> Result<int64_t> {
      auto id = returned_id(c.query("INSERT INTO rehearsals (user_id, source, plan_json, started_at, expires_at) VALUES (?, ?, ?, ?, ?) "
                                    "RETURNING id",
                                    {user_id, r.source, r.plan_json, r.started_at, r.expires_at}));
      if (!id.ok()) return id;
      for (int i = 0; i < rounds; ++i) {
        auto row = c.query("INSERT INTO rehearsal_rounds (rehearsal_id, idx) VALUES (?, ?)", {*id, i});
        if (!row.ok()) return row.error();
      }
      return id;
    });
  }
  Result<std::optional<Rehearsal>> get_rehearsal(int64_t user_id, int64_t id) override {
    auto head = first(db_->query(kSelectRehearsal + "WHERE user_id = ? AND id = ?", {user_id, id}), to_rehearsal);
    if (!head.ok() || !head->has_value()) return head;
    auto rounds = all(db_->query("SELECT idx, answer, answered_at, scores, scored_at FROM rehearsal_rounds WHERE rehearsal_id = ? "
                                 "ORDER BY idx",
                                 {id}),
                      [](const Row& r) {
                        return RehearsalRound{static_cast<int>(r.i64(0)), r.text(1), r.i64(2), r.text(3), r.i64(4)};
                      });
    if (!rounds.ok()) return rounds.error();
    Rehearsal out = **head;
    out.rounds = std::move(rounds).value();
    return std::optional<Rehearsal>(std::move(out));
  }
  Result<bool> answer_rehearsal_round(int64_t user_id, int64_t id, int index, const std::string& answer, int64_t now) override {
    return changed(db_->query("UPDATE rehearsal_rounds SET answer = ?1, "
                              "answered_at = CASE WHEN answered_at = 0 THEN ?2 ELSE answered_at END "
                              "WHERE rehearsal_id = ?3 AND idx = ?4 AND scored_at = 0 AND rehearsal_id IN "
                              "(SELECT id FROM rehearsals WHERE id = ?3 AND user_id = ?5 AND finished_at = 0 AND expires_at > ?2)",
                              {answer, now, id, index, user_id}));
  }
  Result<bool> score_rehearsal_round(int64_t user_id, int64_t id, int index, const std::string& scores, int64_t now) override {
    // `scored_at = 0` in the WHERE is the once: of two submissions, the second matches no row.
    return changed(db_->query("UPDATE rehearsal_rounds SET scores = ?1, scored_at = ?2 "
                              "WHERE rehearsal_id = ?3 AND idx = ?4 AND scored_at = 0 AND answered_at <> 0 AND rehearsal_id IN "
                              "(SELECT id FROM rehearsals WHERE id = ?3 AND user_id = ?5 AND finished_at = 0 AND expires_at > ?2)",
                              {scores, now, id, index, user_id}));
  }
  Result<bool> finish_rehearsal(int64_t user_id, int64_t id, const std::string& report_json, int64_t now) override {
    return changed(db_->query("UPDATE rehearsals SET finished_at = ?, report_json = ? WHERE id = ? AND user_id = ? AND finished_at = 0",
                              {now, report_json, id, user_id}));
  }
  Result<std::vector<Rehearsal>> rehearsals(int64_t user_id) override {
    return all(db_->query(kSelectRehearsal + "WHERE user_id = ? ORDER BY id", {user_id}), to_rehearsal);
  }

  bool ping() override { return db_->ping(); }
  std::optional<PoolUse> pool_use() override { return db_->pool_use(); }
  std::string backend() const override { return db_->backend(); }

 private:
  // The statements that take a piece of the dialect, composed once.
  struct Statements {
    explicit Statements(const Dialect& d)
        : create_user(std::string("INSERT INTO users (email, password_hash, created_at, account_id) VALUES (?, ?, ?, ") + d.random_id +
                      ") RETURNING id"),
          lock_user(std::string("SELECT id FROM users WHERE id = ?") + d.lock_rows),
          claim_mail(std::string("UPDATE mail_queue SET next_attempt_at = ?, attempts = attempts + 1 WHERE id IN "
                                 "(SELECT id FROM mail_queue WHERE sent_at = 0 AND next_attempt_at <= ? ORDER BY next_attempt_at, id "
                                 "LIMIT ?") +
                     d.skip_locked + ") RETURNING id, recipient, message, attempts") {
      // One upsert: the refill and the take in one statement, so two processes cannot both
      // take the last token (PostgreSQL: the second waits for the row lock, then sees the
      // first's result). A clock behind the stored time refills nothing.
      // ?1 key, ?2 capacity, ?3 per second, ?4 now, ?5 full_at.
      std::string refill = std::string(d.least) + "(?2, rate_limits.tokens + " + d.greatest + "(?4 - rate_limits.updated_at, 0) * ?3)";
      take_token = "INSERT INTO rate_limits (bucket, tokens, updated_at, full_at) VALUES (?1, ?2 - 1, ?4, ?5) "
                   "ON CONFLICT (bucket) DO UPDATE SET tokens = " + refill + " - 1, "
                   "updated_at = " + d.greatest + "(rate_limits.updated_at, ?4), full_at = ?5 "
                   "WHERE " + refill + " >= 1 RETURNING tokens";
    }
    std::string create_user, lock_user, claim_mail, take_token;
  };

  // Inside a transaction: locks the user's row (where the dialect locks rows), then sets the
  // new end of access from the later of now and the current end.
  Result<int64_t> extend(Conn& c, int64_t user_id, int months, int64_t now) {
    auto user = c.query(sql_.lock_user, {user_id});
    if (!user.ok()) return user.error();
    if (user->rows.empty()) return Failure::unavailable("no such user");
    auto current = first(c.query("SELECT access_until FROM entitlements WHERE user_id = ?", {user_id}),
                         [](const Row& r) { return r.i64(0); });
    if (!current.ok()) return current.error();
    int64_t end = add_months_utc(std::max(now, current->value_or(0)), months);
    auto up = c.query("INSERT INTO entitlements (user_id, access_until, updated_at) VALUES (?, ?, ?) "
                      "ON CONFLICT (user_id) DO UPDATE SET access_until = excluded.access_until, updated_at = excluded.updated_at",
                      {user_id, end, now});
    if (!up.ok()) return up.error();
    return end;
  }

  struct PendingReview {
    int64_t user_id;
    const Card* card;
    int grade;
    int64_t now;
    std::optional<Result<Done>> outcome;  // set, under batch_mutex_, once its batch is done
  };

  // The log row and the card, if the stored card still has card.reps - 1 repetitions.
  static Result<Done> write_review(Conn& c, const PendingReview& p) {
    const Card& card = *p.card;
    auto log = c.query("INSERT INTO reviews (user_id, slug, grade, reviewed_at) VALUES (?, ?, ?, ?)", {p.user_id, card.slug, p.grade, p.now});
    if (!log.ok()) return log.error();
    auto up = c.query("INSERT INTO cards (user_id, slug, stability, difficulty, due, last_review, reps, lapses) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT (user_id, slug) DO UPDATE SET stability = excluded.stability, difficulty = excluded.difficulty, "
                      "due = excluded.due, last_review = excluded.last_review, reps = excluded.reps, lapses = excluded.lapses "
                      "WHERE cards.reps = excluded.reps - 1 RETURNING reps",
                      {p.user_id, card.slug, card.stability, card.difficulty, card.due, card.last_review, card.reps, card.lapses});
    if (!up.ok()) return up.error();
    // No row: the card moved on since it was read (another review of it committed first).
    if (up->rows.empty()) return Failure::store_conflict("the card changed since it was read");
    return Done{};
  }

  // Writes every review of `batch` in one transaction; outcomes[i] is batch[i]'s.
  void commit_batch(const std::vector<PendingReview*>& batch, std::vector<std::optional<Result<Done>>>& outcomes) {
    std::vector<size_t> written;
    auto committed = db_->transaction([&](Conn& c) -> Result<Done> {
      for (size_t i = 0; i < batch.size(); ++i) {
        if (auto sp = c.query("SAVEPOINT review"); !sp.ok()) return sp.error();
        auto one = write_review(c, *batch[i]);
        if (one.ok()) {
          written.push_back(i);
        } else {
          outcomes[i] = std::move(one);
          if (auto back = c.query("ROLLBACK TO review"); !back.ok()) return back.error();
        }
        if (auto release = c.query("RELEASE review"); !release.ok()) return release.error();
      }
      return Done{};
    });
    for (size_t i : written) outcomes[i] = committed;
    // A failed BEGIN, savepoint or COMMIT: nothing of the batch was kept.
    for (auto& o : outcomes) {
      if (!o) o = committed;
    }
  }

  std::unique_ptr<Db> db_;
  Statements sql_;
  // Group commit of reviews: the queue, and whether a batch is being written now.
  std::mutex batch_mutex_;
  std::condition_variable batch_cv_;
  std::vector<PendingReview*> queued_;
  bool committing_ = false;
};

}  // namespace

Result<std::unique_ptr<Store>> open_sql_store(std::unique_ptr<Db> db, int up_to_version) {
  auto migrated = migrate(*db, up_to_version);
  if (!migrated.ok()) return migrated.error();
  return std::unique_ptr<Store>(std::make_unique<SqlStore>(std::move(db)));
}

}  // namespace ridge::store
