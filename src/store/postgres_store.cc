#include "store/postgres_store.h"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "store/migrations.h"

namespace ridge::store {
namespace {

using Params = std::vector<std::string>;

class PgResult {
 public:
  explicit PgResult(PGresult* r) : r_(r) {}
  ~PgResult() { PQclear(r_); }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  bool ok() const {
    auto s = PQresultStatus(r_);
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
  }
  bool unique_violation() const {
    const char* state = PQresultErrorField(r_, PG_DIAG_SQLSTATE);
    return state && std::strcmp(state, "23505") == 0;
  }
  std::string error() const { return PQresultErrorMessage(r_); }
  int rows() const { return PQntuples(r_); }
  PGresult* raw() const { return r_; }
  std::string text(int row, int col) const { return PQgetvalue(r_, row, col); }
  // NULL (an aggregate over no rows) and text that is not a number read as 0: no exception
  // leaves a store call.
  int64_t i64(int row, int col) const {
    const char* s = PQgetvalue(r_, row, col);
    int64_t v = 0;
    std::from_chars(s, s + std::strlen(s), v);
    return v;
  }
  double f64(int row, int col) const {
    const char* s = PQgetvalue(r_, row, col);
    char* end = nullptr;
    double v = std::strtod(s, &end);
    return end == s ? 0.0 : v;
  }
  bool boolean(int row, int col) const { return PQgetvalue(r_, row, col)[0] == 't'; }

 private:
  PGresult* r_;
};

class Pool {
 public:
  ~Pool() {
    for (PGconn* c : all_) PQfinish(c);
  }
  void add(PGconn* c) {
    all_.push_back(c);
    free_.push_back(c);
  }
  Store::PoolUse use() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {static_cast<int>(all_.size() - free_.size()), static_cast<int>(all_.size())};
  }
  PGconn* take() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    PGconn* c = free_.back();
    free_.pop_back();
    return c;
  }
  void give(PGconn* c) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(c);
    }
    cv_.notify_one();
  }

 private:
  std::vector<PGconn*> all_, free_;
  std::mutex mutex_;
  std::condition_variable cv_;
};

// Borrows a connection for one call, resetting it if the server went away.
class Conn {
 public:
  explicit Conn(Pool& pool) : pool_(pool), c_(pool.take()) {
    if (PQstatus(c_) != CONNECTION_OK) PQreset(c_);
  }
  ~Conn() { pool_.give(c_); }
  // Several statements, no parameters (migrations).
  PgResult script(const std::string& sql) { return PgResult(PQexec(c_, sql.c_str())); }
  PgResult run(const char* sql, const Params& params = {}) {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    return PgResult(PQexecParams(c_, sql, static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0));
  }

 private:
  Pool& pool_;
  PGconn* c_;
};

std::string s(int64_t v) { return std::to_string(v); }
std::string d(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class PostgresStore final : public Store {
 public:
  explicit PostgresStore(std::unique_ptr<Pool> pool) : pool_(std::move(pool)) {}

  Result<int64_t> create_user(const std::string& email, const std::string& hash, int64_t now) override {
    Conn c(*pool_);
    auto r = c.run("INSERT INTO users (email, password_hash, created_at) VALUES ($1, $2, $3) RETURNING id", {email, hash, s(now)});
    if (r.unique_violation()) return StoreError{"email already registered", true};
    if (!r.ok()) return StoreError{r.error()};
    return r.i64(0, 0);
  }

  Result<std::optional<User>> find_user_by_email(const std::string& email) override {
    Conn c(*pool_);
    return read_user(c.run("SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users WHERE email = $1", {email}));
  }

  Result<std::optional<User>> get_user(int64_t id) override {
    Conn c(*pool_);
    return read_user(c.run("SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users WHERE id = $1", {s(id)}));
  }

  Result<std::vector<User>> list_users() override {
    Conn c(*pool_);
    auto r = c.run("SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users ORDER BY id");
    if (!r.ok()) return StoreError{r.error()};
    std::vector<User> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back({r.i64(i, 0), r.text(i, 1), r.text(i, 2), r.f64(i, 3), r.i64(i, 4), r.text(i, 5), r.i64(i, 6), static_cast<int>(r.i64(i, 7))});
    return out;
  }

  Result<Done> set_password(int64_t user_id, const std::string& hash) override {
    return exec("UPDATE users SET password_hash = $1 WHERE id = $2", {hash, s(user_id)});
  }
  Result<Done> set_retention(int64_t user_id, double r) override {
    return exec("UPDATE users SET desired_retention = $1 WHERE id = $2", {d(r), s(user_id)});
  }
  Result<Done> set_new_per_day(int64_t user_id, int n) override {
    return exec("UPDATE users SET new_per_day = $1 WHERE id = $2", {s(n), s(user_id)});
  }
  Result<Done> delete_user(int64_t user_id) override { return exec("DELETE FROM users WHERE id = $1", {s(user_id)}); }

  Result<Done> create_session(const std::string& token_hash, const Session& session, int64_t now) override {
    return exec("INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
                {token_hash, s(session.user_id), session.csrf_token, s(now), s(session.expires_at)});
  }

  Result<std::optional<Session>> find_session(const std::string& token_hash) override {
    Conn c(*pool_);
    auto r = c.run("SELECT user_id, csrf_token, expires_at FROM sessions WHERE token_hash = $1", {token_hash});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<Session>();
    return std::optional<Session>(Session{r.i64(0, 0), r.text(0, 1), r.i64(0, 2)});
  }

  Result<Done> delete_session(const std::string& token_hash) override {
    return exec("DELETE FROM sessions WHERE token_hash = $1", {token_hash});
  }
  Result<Done> delete_sessions_of(int64_t user_id) override { return exec("DELETE FROM sessions WHERE user_id = $1", {s(user_id)}); }

  Result<Done> record_review(int64_t user_id, const Card& card, int grade, int64_t now) override {
    Conn c(*pool_);
    auto begin = c.run("BEGIN");
    if (!begin.ok()) return StoreError{begin.error()};
    auto log = c.run("INSERT INTO reviews (user_id, slug, grade, reviewed_at) VALUES ($1, $2, $3, $4)",
                     {s(user_id), card.slug, s(grade), s(now)});
    auto up = c.run(
        "INSERT INTO cards (user_id, slug, stability, difficulty, due, last_review, reps, lapses) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
        "ON CONFLICT (user_id, slug) DO UPDATE SET stability = EXCLUDED.stability, difficulty = EXCLUDED.difficulty, "
        "due = EXCLUDED.due, last_review = EXCLUDED.last_review, reps = EXCLUDED.reps, lapses = EXCLUDED.lapses "
        "WHERE cards.reps = EXCLUDED.reps - 1 RETURNING reps",
        {s(user_id), card.slug, d(card.stability), d(card.difficulty), s(card.due), s(card.last_review), s(card.reps), s(card.lapses)});
    if (!log.ok() || !up.ok()) {
      std::string e = !log.ok() ? log.error() : up.error();
      c.run("ROLLBACK");
      return StoreError{e};
    }
    if (up.rows() == 0) {
      c.run("ROLLBACK");
      return StoreError{"the card changed since it was read", true};
    }
    auto commit = c.run("COMMIT");
    if (!commit.ok()) return StoreError{commit.error()};
    return Done{};
  }

  Result<std::optional<Card>> get_card(int64_t user_id, const std::string& slug) override {
    Conn c(*pool_);
    auto r = c.run("SELECT slug, stability, difficulty, due, last_review, reps, lapses FROM cards WHERE user_id = $1 AND slug = $2",
                   {s(user_id), slug});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<Card>();
    return std::optional<Card>(read_card(r, 0));
  }

  Result<std::vector<Card>> cards(int64_t user_id) override {
    Conn c(*pool_);
    auto r = c.run("SELECT slug, stability, difficulty, due, last_review, reps, lapses FROM cards WHERE user_id = $1 ORDER BY due, slug",
                   {s(user_id)});
    if (!r.ok()) return StoreError{r.error()};
    std::vector<Card> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(read_card(r, i));
    return out;
  }

  Result<std::vector<ReviewLog>> reviews(int64_t user_id) override {
    Conn c(*pool_);
    auto r = c.run("SELECT slug, grade, reviewed_at FROM reviews WHERE user_id = $1 ORDER BY id", {s(user_id)});
    if (!r.ok()) return StoreError{r.error()};
    std::vector<ReviewLog> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back({r.text(i, 0), static_cast<int>(r.i64(i, 1)), r.i64(i, 2)});
    return out;
  }

  Result<Done> set_bookmark(int64_t user_id, const std::string& slug, bool on, int64_t now) override {
    if (!on) return exec("DELETE FROM bookmarks WHERE user_id = $1 AND slug = $2", {s(user_id), slug});
    return exec("INSERT INTO bookmarks (user_id, slug, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", {s(user_id), slug, s(now)});
  }

  Result<std::vector<std::string>> bookmarks(int64_t user_id) override {
    Conn c(*pool_);
    auto r = c.run("SELECT slug FROM bookmarks WHERE user_id = $1 ORDER BY created_at, slug", {s(user_id)});
    if (!r.ok()) return StoreError{r.error()};
    std::vector<std::string> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(r.text(i, 0));
    return out;
  }

  Result<Done> put_note(int64_t user_id, const std::string& slug, const std::string& body, int64_t now) override {
    if (body.empty()) return exec("DELETE FROM notes WHERE user_id = $1 AND slug = $2", {s(user_id), slug});
    return exec("INSERT INTO notes (user_id, slug, body, updated_at) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (user_id, slug) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at",
                {s(user_id), slug, body, s(now)});
  }

  Result<std::optional<std::string>> get_note(int64_t user_id, const std::string& slug) override {
    Conn c(*pool_);
    auto r = c.run("SELECT body FROM notes WHERE user_id = $1 AND slug = $2", {s(user_id), slug});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<std::string>();
    return std::optional<std::string>(r.text(0, 0));
  }

  Result<Done> record_drill(int64_t user_id, const DrillResult& r) override {
    return exec("INSERT INTO drills (user_id, calculator, topic, correct, answered_at) VALUES ($1, $2, $3, $4, $5)",
                {s(user_id), r.calculator, r.topic, r.correct ? "true" : "false", s(r.answered_at)});
  }

  Result<std::vector<DrillResult>> drills(int64_t user_id) override {
    Conn c(*pool_);
    auto r = c.run("SELECT calculator, topic, correct, answered_at FROM drills WHERE user_id = $1 ORDER BY id", {s(user_id)});
    if (!r.ok()) return StoreError{r.error()};
    std::vector<DrillResult> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back({r.text(i, 0), r.text(i, 1), r.boolean(i, 2), r.i64(i, 3)});
    return out;
  }

  Result<int64_t> save_readiness(int64_t user_id, const Readiness& rd) override {
    Conn c(*pool_);
    auto r = c.run("INSERT INTO readiness (user_id, track, started_at, finished_at, score, detail_json) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                   {s(user_id), rd.track, s(rd.started_at), s(rd.finished_at), d(rd.score), rd.detail_json});
    if (!r.ok()) return StoreError{r.error()};
    return r.i64(0, 0);
  }

  Result<std::vector<Readiness>> readiness_history(int64_t user_id) override {
    Conn c(*pool_);
    auto r = c.run("SELECT id, track, started_at, finished_at, score, detail_json FROM readiness WHERE user_id = $1 ORDER BY id DESC",
                   {s(user_id)});
    if (!r.ok()) return StoreError{r.error()};
    std::vector<Readiness> out;
    for (int i = 0; i < r.rows(); ++i) {
      out.push_back({r.i64(i, 0), r.text(i, 1), r.i64(i, 2), r.i64(i, 3), r.f64(i, 4), r.text(i, 5)});
    }
    return out;
  }

  Result<std::optional<User>> find_user_by_account_id(const std::string& account_id) override {
    Conn c(*pool_);
    return read_user(c.run("SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users "
                           "WHERE account_id = $1", {account_id}));
  }

  Result<int64_t> access_until(int64_t user_id) override {
    Conn c(*pool_);
    auto r = c.run("SELECT access_until FROM entitlements WHERE user_id = $1", {s(user_id)});
    if (!r.ok()) return StoreError{r.error()};
    return r.rows() ? r.i64(0, 0) : int64_t{0};
  }

  Result<int64_t> grant(int64_t user_id, int months, int64_t now) override {
    Conn c(*pool_);
    auto begin = c.run("BEGIN");
    if (!begin.ok()) return StoreError{begin.error()};
    auto end = extend(c, user_id, months, now);
    if (!end.ok()) return rollback(c, end.error().message);
    auto commit = c.run("COMMIT");
    if (!commit.ok()) return rollback(c, commit.error());
    return end;
  }

  Result<Done> revoke(int64_t user_id) override { return exec("DELETE FROM entitlements WHERE user_id = $1", {s(user_id)}); }

  Result<bool> grant_for_event(const std::string& event_id, int64_t user_id, int months, int64_t now) override {
    Conn c(*pool_);
    auto begin = c.run("BEGIN");
    if (!begin.ok()) return StoreError{begin.error()};
    // A concurrent delivery of the same event waits on the key, then inserts nothing.
    auto ev = c.run("INSERT INTO billing_events (event_id, user_id, months, received_at) VALUES ($1, $2, $3, $4) "
                    "ON CONFLICT DO NOTHING RETURNING event_id",
                    {event_id, s(user_id), s(months), s(now)});
    if (!ev.ok()) return rollback(c, ev.error());
    if (ev.rows() == 0) {
      c.run("ROLLBACK");
      return false;
    }
    auto end = extend(c, user_id, months, now);
    if (!end.ok()) return rollback(c, end.error().message);
    auto commit = c.run("COMMIT");
    if (!commit.ok()) return rollback(c, commit.error());
    return true;
  }

  Result<int64_t> enqueue_mail(const std::string& recipient, const std::string& message, int64_t now) override {
    Conn c(*pool_);
    auto r = c.run("INSERT INTO mail_queue (recipient, message, created_at, next_attempt_at) VALUES ($1, $2, $3, $3) RETURNING id",
                   {recipient, message, s(now)});
    if (!r.ok()) return StoreError{r.error()};
    return r.i64(0, 0);
  }

  Result<std::vector<OutgoingMail>> claim_mail(int64_t now, int64_t lease_seconds, int limit) override {
    Conn c(*pool_);
    // SKIP LOCKED: two senders at once take different messages.
    auto r = c.run("UPDATE mail_queue SET next_attempt_at = $1, attempts = attempts + 1 WHERE id IN "
                   "(SELECT id FROM mail_queue WHERE sent_at = 0 AND next_attempt_at <= $2 ORDER BY next_attempt_at, id "
                   "LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id, recipient, message, attempts",
                   {s(now + lease_seconds), s(now), s(limit)});
    if (!r.ok()) return StoreError{r.error()};
    std::vector<OutgoingMail> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back({r.i64(i, 0), r.text(i, 1), r.text(i, 2), static_cast<int>(r.i64(i, 3)) - 1});
    std::sort(out.begin(), out.end(), [](const OutgoingMail& a, const OutgoingMail& b) { return a.id < b.id; });
    return out;
  }

  Result<Done> mail_sent(int64_t id, int64_t now) override {
    return exec("UPDATE mail_queue SET sent_at = $1, last_error = '' WHERE id = $2", {s(now), s(id)});
  }

  Result<Done> mail_failed(int64_t id, int64_t retry_at, const std::string& error) override {
    return exec("UPDATE mail_queue SET next_attempt_at = $1, last_error = $2 WHERE id = $3 AND sent_at = 0", {s(retry_at), error, s(id)});
  }

  Result<MailCounts> mail_counts() override {
    Conn c(*pool_);
    auto r = c.run("SELECT COUNT(*) FILTER (WHERE sent_at = 0), COUNT(*) FILTER (WHERE sent_at <> 0), "
                   "COALESCE(SUM(attempts - CASE WHEN sent_at <> 0 THEN 1 ELSE 0 END), 0) FROM mail_queue");
    if (!r.ok()) return StoreError{r.error()};
    return MailCounts{r.i64(0, 0), r.i64(0, 1), r.i64(0, 2)};
  }

  Result<Subscription> subscribe(const std::string& email, int64_t now) override {
    Conn c(*pool_);
    auto up = c.run("INSERT INTO subscriptions (email, status, created_at, updated_at) VALUES ($1, 'pending', $2, $2) "
                    "ON CONFLICT (email) DO UPDATE SET status = 'pending', confirmed_at = 0, updated_at = EXCLUDED.updated_at "
                    "WHERE subscriptions.status = 'unsubscribed'",
                    {email, s(now)});
    if (!up.ok()) return StoreError{up.error()};
    auto r = c.run("SELECT id, email, status, created_at, confirmed_at FROM subscriptions WHERE email = $1", {email});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return StoreError{"subscription vanished"};
    return read_subscription(r, 0);
  }

  Result<std::optional<Subscription>> find_subscription(const std::string& email) override {
    Conn c(*pool_);
    auto r = c.run("SELECT id, email, status, created_at, confirmed_at FROM subscriptions WHERE email = $1", {email});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<Subscription>();
    return std::optional<Subscription>(read_subscription(r, 0));
  }

  Result<bool> confirm_subscription(const std::string& email, int64_t now) override {
    Conn c(*pool_);
    auto r = c.run("UPDATE subscriptions SET status = 'confirmed', confirmed_at = CASE WHEN status = 'confirmed' THEN confirmed_at ELSE $1 END, "
                   "updated_at = $1 WHERE email = $2 AND status IN ('pending', 'confirmed') RETURNING id",
                   {s(now), email});
    if (!r.ok()) return StoreError{r.error()};
    return r.rows() > 0;
  }

  Result<bool> unsubscribe(const std::string& email, int64_t now) override {
    Conn c(*pool_);
    auto r = c.run("UPDATE subscriptions SET status = 'unsubscribed', updated_at = $1 WHERE email = $2 RETURNING id", {s(now), email});
    if (!r.ok()) return StoreError{r.error()};
    return r.rows() > 0;
  }

  Result<std::vector<Subscription>> confirmed_subscriptions() override {
    Conn c(*pool_);
    auto r = c.run("SELECT id, email, status, created_at, confirmed_at FROM subscriptions WHERE status = 'confirmed' ORDER BY id");
    if (!r.ok()) return StoreError{r.error()};
    std::vector<Subscription> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(read_subscription(r, i));
    return out;
  }

  Result<std::vector<std::string>> weekly_slugs_sent(int64_t subscription_id) override {
    Conn c(*pool_);
    auto r = c.run("SELECT slug FROM weekly_sends WHERE subscription_id = $1 ORDER BY week", {s(subscription_id)});
    if (!r.ok()) return StoreError{r.error()};
    std::vector<std::string> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(r.text(i, 0));
    return out;
  }

  Result<bool> queue_weekly(const std::string& week, int64_t subscription_id, const std::string& slug, const std::string& recipient,
                            const std::string& message, int64_t now) override {
    Conn c(*pool_);
    auto begin = c.run("BEGIN");
    if (!begin.ok()) return StoreError{begin.error()};
    // The primary key (week, subscription) is the lock: a concurrent insert of the same key
    // waits for this transaction, then inserts nothing.
    auto rec = c.run("INSERT INTO weekly_sends (week, subscription_id, slug, queued_at) VALUES ($1, $2, $3, $4) "
                     "ON CONFLICT DO NOTHING RETURNING week",
                     {week, s(subscription_id), slug, s(now)});
    if (!rec.ok()) return rollback(c, rec.error());
    if (rec.rows() == 0) {
      c.run("ROLLBACK");
      return false;
    }
    auto q = c.run("INSERT INTO mail_queue (recipient, message, created_at, next_attempt_at) VALUES ($1, $2, $3, $3)",
                   {recipient, message, s(now)});
    if (!q.ok()) return rollback(c, q.error());
    auto commit = c.run("COMMIT");
    if (!commit.ok()) return rollback(c, commit.error());
    return true;
  }

  Result<Done> create_account_token(const std::string& token_hash, int64_t user_id, const std::string& purpose, int64_t expires_at,
                                    int64_t now) override {
    return exec("INSERT INTO account_tokens (token_hash, user_id, purpose, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)",
                {token_hash, s(user_id), purpose, s(expires_at), s(now)});
  }

  Result<std::optional<int64_t>> use_account_token(const std::string& token_hash, const std::string& purpose, int64_t now) override {
    Conn c(*pool_);
    auto r = c.run("UPDATE account_tokens SET used_at = $1 WHERE token_hash = $2 AND purpose = $3 AND used_at = 0 AND expires_at > $1 "
                   "RETURNING user_id",
                   {s(now), token_hash, purpose});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<int64_t>();
    return std::optional<int64_t>(r.i64(0, 0));
  }

  Result<Done> set_email_verified(int64_t user_id, int64_t now) override {
    return exec("UPDATE users SET email_verified_at = $1 WHERE id = $2 AND email_verified_at = 0", {s(now), s(user_id)});
  }

  Result<std::optional<double>> take_token(const std::string& key, double capacity, double per_second, int64_t now) override {
    Conn c(*pool_);
    // One upsert: a concurrent take on the same bucket waits for the row lock, then sees
    // this one's result. A clock behind the stored time refills nothing.
    auto r = c.run(
        "INSERT INTO rate_limits AS b (bucket, tokens, updated_at, full_at) VALUES ($1, $2::float8 - 1, $4::bigint, $5::bigint) "
        "ON CONFLICT (bucket) DO UPDATE SET tokens = LEAST($2::float8, b.tokens + GREATEST($4::bigint - b.updated_at, 0) * $3::float8) - 1, "
        "updated_at = GREATEST(b.updated_at, $4::bigint), full_at = $5::bigint "
        "WHERE LEAST($2::float8, b.tokens + GREATEST($4::bigint - b.updated_at, 0) * $3::float8) >= 1 RETURNING b.tokens",
        {key, d(capacity), d(per_second), s(now), s(full_at(capacity, per_second, now))});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<double>();
    return std::optional<double>(r.f64(0, 0));
  }

  Result<double> bucket_tokens(const std::string& key, double capacity, double per_second, int64_t now) override {
    Conn c(*pool_);
    auto r = c.run("SELECT tokens, updated_at FROM rate_limits WHERE bucket = $1", {key});
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return capacity;
    return refilled(r.f64(0, 0), r.i64(0, 1), capacity, per_second, now);
  }

  Result<int64_t> prune_buckets(int64_t now) override {
    Conn c(*pool_);
    auto r = c.run("DELETE FROM rate_limits WHERE full_at <= $1", {s(now)});
    if (!r.ok()) return StoreError{r.error()};
    return static_cast<int64_t>(std::stoll(PQcmdTuples(r.raw())));
  }

  bool ping() override {
    Conn c(*pool_);
    return c.run("SELECT 1").ok();
  }
  std::optional<PoolUse> pool_use() override { return pool_->use(); }
  std::string backend() const override { return "postgresql"; }

 private:
  static StoreError rollback(Conn& c, const std::string& why) {
    c.run("ROLLBACK");
    return StoreError{why};
  }

  // Inside a transaction: locks the user's entitlement row, then sets the new end from the
  // later of now and the current end.
  static Result<int64_t> extend(Conn& c, int64_t user_id, int months, int64_t now) {
    auto lock = c.run("SELECT id FROM users WHERE id = $1 FOR UPDATE", {s(user_id)});
    if (!lock.ok()) return StoreError{lock.error()};
    if (lock.rows() == 0) return StoreError{"no such user"};
    auto cur = c.run("SELECT access_until FROM entitlements WHERE user_id = $1", {s(user_id)});
    if (!cur.ok()) return StoreError{cur.error()};
    int64_t current = cur.rows() ? cur.i64(0, 0) : 0;
    int64_t end = add_months_utc(std::max(now, current), months);
    auto up = c.run("INSERT INTO entitlements (user_id, access_until, updated_at) VALUES ($1, $2, $3) "
                    "ON CONFLICT (user_id) DO UPDATE SET access_until = EXCLUDED.access_until, updated_at = EXCLUDED.updated_at",
                    {s(user_id), s(end), s(now)});
    if (!up.ok()) return StoreError{up.error()};
    return end;
  }

  static Subscription read_subscription(const PgResult& r, int i) {
    return {r.i64(i, 0), r.text(i, 1), r.text(i, 2), r.i64(i, 3), r.i64(i, 4)};
  }

  Result<Done> exec(const char* sql, const Params& params) {
    Conn c(*pool_);
    auto r = c.run(sql, params);
    if (!r.ok()) return StoreError{r.error()};
    return Done{};
  }

  static Result<std::optional<User>> read_user(const PgResult& r) {
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<User>();
    return std::optional<User>(User{r.i64(0, 0), r.text(0, 1), r.text(0, 2), r.f64(0, 3), r.i64(0, 4), r.text(0, 5), r.i64(0, 6), static_cast<int>(r.i64(0, 7))});
  }

  static Card read_card(const PgResult& r, int i) {
    return {r.text(i, 0), r.f64(i, 1), r.f64(i, 2), r.i64(i, 3), r.i64(i, 4), static_cast<int>(r.i64(i, 5)),
            static_cast<int>(r.i64(i, 6))};
  }

  std::unique_ptr<Pool> pool_;
};

}  // namespace

Result<std::unique_ptr<Store>> open_postgres(const std::string& url, int pool_size, int up_to_version) {
  auto pool = std::make_unique<Pool>();
  for (int i = 0; i < pool_size; ++i) {
    PGconn* c = PQconnectdb(url.c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      std::string e = PQerrorMessage(c);
      PQfinish(c);
      while (!e.empty() && (e.back() == '\n' || e.back() == ' ')) e.pop_back();
      return StoreError{"cannot connect to PostgreSQL: " + e};
    }
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    pool->add(c);
  }
  {
    Conn c(*pool);
    // Serialize migrations across servers starting together.
    auto lock = c.run("SELECT pg_advisory_lock(727274)");
    if (!lock.ok()) return StoreError{lock.error()};
    c.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)");
    for (const auto& m : postgres_migrations()) {
      if (m.version > up_to_version) break;
      auto seen = c.run("SELECT 1 FROM schema_migrations WHERE version = $1", {std::to_string(m.version)});
      if (seen.ok() && seen.rows() > 0) continue;
      std::string sql = std::string("BEGIN;") + m.sql + "INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + "); COMMIT;";
      auto applied = c.script(sql);
      if (!applied.ok()) {
        c.run("ROLLBACK");
        c.run("SELECT pg_advisory_unlock(727274)");
        return StoreError{"migration " + std::to_string(m.version) + " failed: " + applied.error()};
      }
    }
    c.run("SELECT pg_advisory_unlock(727274)");
  }
  return std::unique_ptr<Store>(std::make_unique<PostgresStore>(std::move(pool)));
}

}  // namespace ridge::store
