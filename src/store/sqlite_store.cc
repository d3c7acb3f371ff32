#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

#include "store/migrations.h"

namespace ridge::store {
namespace {

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return rc_ == SQLITE_OK ? sqlite3_step(s_) : rc_; }
  int64_t i64(int c) { return sqlite3_column_int64(s_, c); }
  double f64(int c) { return sqlite3_column_double(s_, c); }
  std::string text(int c) {
    const unsigned char* t = sqlite3_column_text(s_, c);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s_, c))) : "";
  }
  std::string error() const { return sqlite3_errmsg(db_); }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  int rc_;
};

class SqliteStore final : public Store {
 public:
  // `reader` (may be null) is a second, read-only connection to the same file: in WAL mode
  // it reads the last committed state without waiting for a commit's fsync on `db`.
  SqliteStore(sqlite3* db, sqlite3* reader) : db_(db), reader_(reader) {}
  ~SqliteStore() override {
    sqlite3_close(reader_);
    sqlite3_close(db_);
  }

  Result<int64_t> create_user(const std::string& email, const std::string& hash, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "INSERT INTO users (email, password_hash, created_at, account_id) VALUES (?, ?, ?, lower(hex(randomblob(16))))");
    s.bind(1, email).bind(2, hash).bind(3, now);
    int rc = s.step();
    if (rc == SQLITE_CONSTRAINT) return StoreError{"email already registered", true};
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
  }

  Result<std::optional<User>> find_user_by_email(const std::string& email) override {
    return one_user("SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users WHERE email = ?", email);
  }

  Result<std::optional<User>> get_user(int64_t id) override {
    Reader r(*this);
    Stmt s(r.db, "SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users WHERE id = ?");
    s.bind(1, id);
    return read_user(s);
  }

  Result<std::vector<User>> list_users() override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users ORDER BY id");
    std::vector<User> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.i64(0), s.text(1), s.text(2), s.f64(3), s.i64(4), s.text(5), s.i64(6), static_cast<int>(s.i64(7))});
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<Done> set_password(int64_t user_id, const std::string& hash) override {
    return exec("UPDATE users SET password_hash = ? WHERE id = ?", [&](Stmt& s) { s.bind(1, hash).bind(2, user_id); });
  }

  Result<Done> set_retention(int64_t user_id, double r) override {
    return exec("UPDATE users SET desired_retention = ? WHERE id = ?", [&](Stmt& s) { s.bind(1, r).bind(2, user_id); });
  }

  Result<Done> set_new_per_day(int64_t user_id, int n) override {
    return exec("UPDATE users SET new_per_day = ? WHERE id = ?", [&](Stmt& s) { s.bind(1, static_cast<int64_t>(n)).bind(2, user_id); });
  }

  Result<Done> delete_user(int64_t user_id) override {
    return exec("DELETE FROM users WHERE id = ?", [&](Stmt& s) { s.bind(1, user_id); });
  }

  Result<Done> create_session(const std::string& token_hash, const Session& session, int64_t now) override {
    return exec("INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                [&](Stmt& s) {
                  s.bind(1, token_hash).bind(2, session.user_id).bind(3, session.csrf_token).bind(4, now).bind(5, session.expires_at);
                });
  }

  Result<std::optional<Session>> find_session(const std::string& token_hash) override {
    Reader r(*this);
    Stmt s(r.db, "SELECT user_id, csrf_token, expires_at FROM sessions WHERE token_hash = ?");
    s.bind(1, token_hash);
    int rc = s.step();
    if (rc == SQLITE_ROW) return std::optional<Session>(Session{s.i64(0), s.text(1), s.i64(2)});
    if (rc == SQLITE_DONE) return std::optional<Session>();
    return StoreError{s.error()};
  }

  Result<Done> delete_session(const std::string& token_hash) override {
    return exec("DELETE FROM sessions WHERE token_hash = ?", [&](Stmt& s) { s.bind(1, token_hash); });
  }

  Result<Done> delete_sessions_of(int64_t user_id) override {
    return exec("DELETE FROM sessions WHERE user_id = ?", [&](Stmt& s) { s.bind(1, user_id); });
  }

  // Group commit: reviews that arrive while another batch is being committed wait and go in
  // the next one, all in one transaction, each under its own savepoint (a stale card rolls
  // back its own two rows, nothing else). One fsync (synchronous=FULL) then covers the whole
  // batch, and no review is answered before the COMMIT that holds it has returned.
  Result<Done> record_review(int64_t user_id, const Card& c, int grade, int64_t now) override {
    PendingReview me{user_id, &c, grade, now, std::nullopt};
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
    Reader r(*this);
    Stmt s(r.db, "SELECT slug, stability, difficulty, due, last_review, reps, lapses FROM cards WHERE user_id = ? AND slug = ?");
    s.bind(1, user_id).bind(2, slug);
    int rc = s.step();
    if (rc == SQLITE_ROW) return std::optional<Card>(read_card(s));
    if (rc == SQLITE_DONE) return std::optional<Card>();
    return StoreError{s.error()};
  }

  Result<std::vector<Card>> cards(int64_t user_id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT slug, stability, difficulty, due, last_review, reps, lapses FROM cards WHERE user_id = ? ORDER BY due, slug");
    s.bind(1, user_id);
    std::vector<Card> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back(read_card(s));
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<std::vector<ReviewLog>> reviews(int64_t user_id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT slug, grade, reviewed_at FROM reviews WHERE user_id = ? ORDER BY id");
    s.bind(1, user_id);
    std::vector<ReviewLog> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.text(0), static_cast<int>(s.i64(1)), s.i64(2)});
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<Done> set_bookmark(int64_t user_id, const std::string& slug, bool on, int64_t now) override {
    if (!on) return exec("DELETE FROM bookmarks WHERE user_id = ? AND slug = ?", [&](Stmt& s) { s.bind(1, user_id).bind(2, slug); });
    return exec("INSERT INTO bookmarks (user_id, slug, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [&](Stmt& s) { s.bind(1, user_id).bind(2, slug).bind(3, now); });
  }

  Result<std::vector<std::string>> bookmarks(int64_t user_id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT slug FROM bookmarks WHERE user_id = ? ORDER BY created_at, slug");
    s.bind(1, user_id);
    std::vector<std::string> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back(s.text(0));
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<Done> put_note(int64_t user_id, const std::string& slug, const std::string& body, int64_t now) override {
    if (body.empty()) return exec("DELETE FROM notes WHERE user_id = ? AND slug = ?", [&](Stmt& s) { s.bind(1, user_id).bind(2, slug); });
    return exec("INSERT INTO notes (user_id, slug, body, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (user_id, slug) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                [&](Stmt& s) { s.bind(1, user_id).bind(2, slug).bind(3, body).bind(4, now); });
  }

  Result<std::optional<std::string>> get_note(int64_t user_id, const std::string& slug) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT body FROM notes WHERE user_id = ? AND slug = ?");
    s.bind(1, user_id).bind(2, slug);
    int rc = s.step();
    if (rc == SQLITE_ROW) return std::optional<std::string>(s.text(0));
    if (rc == SQLITE_DONE) return std::optional<std::string>();
    return StoreError{s.error()};
  }

  Result<Done> record_drill(int64_t user_id, const DrillResult& r) override {
    return exec("INSERT INTO drills (user_id, calculator, topic, correct, answered_at) VALUES (?, ?, ?, ?, ?)", [&](Stmt& s) {
      s.bind(1, user_id).bind(2, r.calculator).bind(3, r.topic).bind(4, static_cast<int64_t>(r.correct)).bind(5, r.answered_at);
    });
  }

  Result<std::vector<DrillResult>> drills(int64_t user_id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT calculator, topic, correct, answered_at FROM drills WHERE user_id = ? ORDER BY id");
    s.bind(1, user_id);
    std::vector<DrillResult> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.text(0), s.text(1), s.i64(2) != 0, s.i64(3)});
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<int64_t> save_readiness(int64_t user_id, const Readiness& r) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "INSERT INTO readiness (user_id, track, started_at, finished_at, score, detail_json) VALUES (?, ?, ?, ?, ?, ?)");
    s.bind(1, user_id).bind(2, r.track).bind(3, r.started_at).bind(4, r.finished_at).bind(5, r.score).bind(6, r.detail_json);
    if (s.step() != SQLITE_DONE) return StoreError{s.error()};
    return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
  }

  Result<std::vector<Readiness>> readiness_history(int64_t user_id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT id, track, started_at, finished_at, score, detail_json FROM readiness WHERE user_id = ? ORDER BY id DESC");
    s.bind(1, user_id);
    std::vector<Readiness> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.i64(0), s.text(1), s.i64(2), s.i64(3), s.f64(4), s.text(5)});
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<std::optional<User>> find_user_by_account_id(const std::string& account_id) override {
    return one_user("SELECT id, email, password_hash, desired_retention, created_at, account_id, email_verified_at, new_per_day FROM users WHERE account_id = ?",
                    account_id);
  }

  Result<int64_t> access_until(int64_t user_id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return read_access(user_id);
  }

  Result<int64_t> grant(int64_t user_id, int months, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!begin()) return StoreError{sqlite3_errmsg(db_)};
    auto end = extend(user_id, months, now);
    if (!end.ok()) return rollback(end.error().message);
    if (!commit()) return rollback(sqlite3_errmsg(db_));
    return end;
  }

  Result<Done> revoke(int64_t user_id) override {
    return exec("DELETE FROM entitlements WHERE user_id = ?", [&](Stmt& s) { s.bind(1, user_id); });
  }

  Result<bool> grant_for_event(const std::string& event_id, int64_t user_id, int months, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!begin()) return StoreError{sqlite3_errmsg(db_)};
    Stmt ev(db_, "INSERT INTO billing_events (event_id, user_id, months, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
    ev.bind(1, event_id).bind(2, user_id).bind(3, static_cast<int64_t>(months)).bind(4, now);
    if (ev.step() != SQLITE_DONE) return rollback(ev.error());
    if (sqlite3_changes(db_) == 0) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return false;  // seen before: a replay changes nothing
    }
    auto end = extend(user_id, months, now);
    if (!end.ok()) return rollback(end.error().message);
    if (!commit()) return rollback(sqlite3_errmsg(db_));
    return true;
  }

  Result<int64_t> enqueue_mail(const std::string& recipient, const std::string& message, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "INSERT INTO mail_queue (recipient, message, created_at, next_attempt_at) VALUES (?, ?, ?, ?)");
    s.bind(1, recipient).bind(2, message).bind(3, now).bind(4, now);
    if (s.step() != SQLITE_DONE) return StoreError{s.error()};
    return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
  }

  Result<std::vector<OutgoingMail>> claim_mail(int64_t now, int64_t lease_seconds, int limit) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // One statement: atomic against other processes on the same file.
    Stmt s(db_,
           "UPDATE mail_queue SET next_attempt_at = ?, attempts = attempts + 1 WHERE id IN "
           "(SELECT id FROM mail_queue WHERE sent_at = 0 AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?) "
           "RETURNING id, recipient, message, attempts");
    s.bind(1, now + lease_seconds).bind(2, now).bind(3, static_cast<int64_t>(limit));
    std::vector<OutgoingMail> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.i64(0), s.text(1), s.text(2), static_cast<int>(s.i64(3)) - 1});
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<Done> mail_sent(int64_t id, int64_t now) override {
    return exec("UPDATE mail_queue SET sent_at = ?, last_error = '' WHERE id = ?", [&](Stmt& s) { s.bind(1, now).bind(2, id); });
  }

  Result<Done> mail_failed(int64_t id, int64_t retry_at, const std::string& error) override {
    return exec("UPDATE mail_queue SET next_attempt_at = ?, last_error = ? WHERE id = ? AND sent_at = 0",
                [&](Stmt& s) { s.bind(1, retry_at).bind(2, error).bind(3, id); });
  }

  Result<MailCounts> mail_counts() override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT COALESCE(SUM(sent_at = 0), 0), COALESCE(SUM(sent_at <> 0), 0), "
                "COALESCE(SUM(attempts - (sent_at <> 0)), 0) FROM mail_queue");
    if (s.step() != SQLITE_ROW) return StoreError{s.error()};
    return MailCounts{s.i64(0), s.i64(1), s.i64(2)};
  }

  Result<Subscription> subscribe(const std::string& email, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!begin()) return StoreError{sqlite3_errmsg(db_)};
    Stmt up(db_,
            "INSERT INTO subscriptions (email, status, created_at, updated_at) VALUES (?, 'pending', ?, ?) "
            "ON CONFLICT (email) DO UPDATE SET status = 'pending', confirmed_at = 0, updated_at = excluded.updated_at "
            "WHERE subscriptions.status = 'unsubscribed'");
    up.bind(1, email).bind(2, now).bind(3, now);
    if (up.step() != SQLITE_DONE) return rollback(up.error());
    auto sub = read_subscription(email);
    if (!sub.ok() || !sub->has_value()) return rollback(sub.ok() ? "subscription vanished" : sub.error().message);
    if (!commit()) return rollback(sqlite3_errmsg(db_));
    return **sub;
  }

  Result<std::optional<Subscription>> find_subscription(const std::string& email) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return read_subscription(email);
  }

  Result<bool> confirm_subscription(const std::string& email, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "UPDATE subscriptions SET status = 'confirmed', confirmed_at = CASE WHEN status = 'confirmed' THEN confirmed_at ELSE ? END, "
                "updated_at = ? WHERE email = ? AND status IN ('pending', 'confirmed')");
    s.bind(1, now).bind(2, now).bind(3, email);
    if (s.step() != SQLITE_DONE) return StoreError{s.error()};
    return sqlite3_changes(db_) > 0;
  }

  Result<bool> unsubscribe(const std::string& email, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "UPDATE subscriptions SET status = 'unsubscribed', updated_at = ? WHERE email = ?");
    s.bind(1, now).bind(2, email);
    if (s.step() != SQLITE_DONE) return StoreError{s.error()};
    return sqlite3_changes(db_) > 0;
  }

  Result<std::vector<Subscription>> confirmed_subscriptions() override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT id, email, status, created_at, confirmed_at FROM subscriptions WHERE status = 'confirmed' ORDER BY id");
    std::vector<Subscription> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.i64(0), s.text(1), s.text(2), s.i64(3), s.i64(4)});
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<std::vector<std::string>> weekly_slugs_sent(int64_t subscription_id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT slug FROM weekly_sends WHERE subscription_id = ? ORDER BY week");
    s.bind(1, subscription_id);
    std::vector<std::string> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back(s.text(0));
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<bool> queue_weekly(const std::string& week, int64_t subscription_id, const std::string& slug, const std::string& recipient,
                            const std::string& message, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // BEGIN IMMEDIATE takes the database's write lock: a second process waits here, then
    // finds the week's row and queues nothing.
    if (!begin()) return StoreError{sqlite3_errmsg(db_)};
    Stmt rec(db_, "INSERT INTO weekly_sends (week, subscription_id, slug, queued_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
    rec.bind(1, week).bind(2, subscription_id).bind(3, slug).bind(4, now);
    if (rec.step() != SQLITE_DONE) return rollback(rec.error());
    if (sqlite3_changes(db_) == 0) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return false;
    }
    Stmt q(db_, "INSERT INTO mail_queue (recipient, message, created_at, next_attempt_at) VALUES (?, ?, ?, ?)");
    q.bind(1, recipient).bind(2, message).bind(3, now).bind(4, now);
    if (q.step() != SQLITE_DONE) return rollback(q.error());
    if (!commit()) return rollback(sqlite3_errmsg(db_));
    return true;
  }

  Result<Done> create_account_token(const std::string& token_hash, int64_t user_id, const std::string& purpose, int64_t expires_at,
                                    int64_t now) override {
    return exec("INSERT INTO account_tokens (token_hash, user_id, purpose, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
                [&](Stmt& s) { s.bind(1, token_hash).bind(2, user_id).bind(3, purpose).bind(4, expires_at).bind(5, now); });
  }

  Result<std::optional<int64_t>> use_account_token(const std::string& token_hash, const std::string& purpose, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "UPDATE account_tokens SET used_at = ? WHERE token_hash = ? AND purpose = ? AND used_at = 0 AND expires_at > ? "
                "RETURNING user_id");
    s.bind(1, now).bind(2, token_hash).bind(3, purpose).bind(4, now);
    int rc = s.step();
    if (rc == SQLITE_ROW) {
      int64_t id = s.i64(0);
      while ((rc = s.step()) == SQLITE_ROW) {}
      if (rc != SQLITE_DONE) return StoreError{s.error()};
      return std::optional<int64_t>(id);
    }
    if (rc == SQLITE_DONE) return std::optional<int64_t>();
    return StoreError{s.error()};
  }

  Result<Done> set_email_verified(int64_t user_id, int64_t now) override {
    return exec("UPDATE users SET email_verified_at = ? WHERE id = ? AND email_verified_at = 0",
                [&](Stmt& s) { s.bind(1, now).bind(2, user_id); });
  }

  Result<std::optional<double>> take_token(const std::string& key, double capacity, double per_second, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // One upsert: the refill and the take in one statement, so two processes on the file
    // cannot both take the last token. A clock behind the stored time refills nothing.
    Stmt s(db_,
           "INSERT INTO rate_limits (bucket, tokens, updated_at, full_at) VALUES (?1, ?2 - 1, ?4, ?5) "
           "ON CONFLICT (bucket) DO UPDATE SET tokens = min(?2, tokens + max(?4 - updated_at, 0) * ?3) - 1, "
           "updated_at = max(updated_at, ?4), full_at = ?5 "
           "WHERE min(?2, tokens + max(?4 - updated_at, 0) * ?3) >= 1 RETURNING tokens");
    s.bind(1, key).bind(2, capacity).bind(3, per_second).bind(4, now).bind(5, full_at(capacity, per_second, now));
    int rc = s.step();
    if (rc == SQLITE_ROW) {
      double left = s.f64(0);
      if (s.step() != SQLITE_DONE) return StoreError{s.error()};
      return std::optional<double>(left);
    }
    if (rc == SQLITE_DONE) return std::optional<double>();
    return StoreError{s.error()};
  }

  Result<double> bucket_tokens(const std::string& key, double capacity, double per_second, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT tokens, updated_at FROM rate_limits WHERE bucket = ?");
    s.bind(1, key);
    int rc = s.step();
    if (rc == SQLITE_ROW) return refilled(s.f64(0), s.i64(1), capacity, per_second, now);
    if (rc == SQLITE_DONE) return capacity;
    return StoreError{s.error()};
  }

  Result<int64_t> prune_buckets(int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "DELETE FROM rate_limits WHERE full_at <= ?");
    s.bind(1, now);
    if (s.step() != SQLITE_DONE) return StoreError{s.error()};
    return static_cast<int64_t>(sqlite3_changes(db_));
  }

  bool ping() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return sqlite3_exec(db_, "SELECT 1", nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  std::string backend() const override { return "sqlite"; }

 private:
  // The connection for the reads of every request (the session, the user, a card) and its
  // lock: the reader when there is one, else the writer under mutex_.
  struct Reader {
    explicit Reader(SqliteStore& s) : lock(s.reader_ ? s.reader_mutex_ : s.mutex_), db(s.reader_ ? s.reader_ : s.db_) {}
    std::lock_guard<std::mutex> lock;
    sqlite3* db;
  };

  // Transactions, for callers that hold mutex_.
  bool begin() { return sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK; }
  bool commit() { return sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK; }
  StoreError rollback(const std::string& why) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return StoreError{why};
  }

  Result<int64_t> read_access(int64_t user_id) {
    Stmt s(db_, "SELECT access_until FROM entitlements WHERE user_id = ?");
    s.bind(1, user_id);
    int rc = s.step();
    if (rc == SQLITE_ROW) return s.i64(0);
    if (rc == SQLITE_DONE) return int64_t{0};
    return StoreError{s.error()};
  }

  // Inside a transaction: the new end from the later of now and the current end.
  Result<int64_t> extend(int64_t user_id, int months, int64_t now) {
    auto current = read_access(user_id);
    if (!current.ok()) return current;
    int64_t end = add_months_utc(std::max(now, *current), months);
    Stmt s(db_, "INSERT INTO entitlements (user_id, access_until, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET access_until = excluded.access_until, updated_at = excluded.updated_at");
    s.bind(1, user_id).bind(2, end).bind(3, now);
    if (s.step() != SQLITE_DONE) return StoreError{s.error()};
    return end;
  }

  Result<std::optional<Subscription>> read_subscription(const std::string& email) {
    Stmt s(db_, "SELECT id, email, status, created_at, confirmed_at FROM subscriptions WHERE email = ?");
    s.bind(1, email);
    int rc = s.step();
    if (rc == SQLITE_ROW) return std::optional<Subscription>(Subscription{s.i64(0), s.text(1), s.text(2), s.i64(3), s.i64(4)});
    if (rc == SQLITE_DONE) return std::optional<Subscription>();
    return StoreError{s.error()};
  }

  template <class Binder>
  Result<Done> exec(const char* sql, Binder bind) {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, sql);
    bind(s);
    if (s.step() != SQLITE_DONE) return StoreError{s.error()};
    return Done{};
  }

  Result<std::optional<User>> one_user(const char* sql, const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, sql);
    s.bind(1, key);
    return read_user(s);
  }

  static Result<std::optional<User>> read_user(Stmt& s) {
    int rc = s.step();
    if (rc == SQLITE_ROW) return std::optional<User>(User{s.i64(0), s.text(1), s.text(2), s.f64(3), s.i64(4), s.text(5), s.i64(6), static_cast<int>(s.i64(7))});
    if (rc == SQLITE_DONE) return std::optional<User>();
    return StoreError{s.error()};
  }

  static Card read_card(Stmt& s) {
    return {s.text(0), s.f64(1), s.f64(2), s.i64(3), s.i64(4), static_cast<int>(s.i64(5)), static_cast<int>(s.i64(6))};
  }

  struct PendingReview {
    int64_t user_id;
    const Card* card;
    int grade;
    int64_t now;
    std::optional<Result<Done>> outcome;  // set, under batch_mutex_, once its batch is done
  };

  // Writes every review of `batch` in one transaction; outcomes[i] is batch[i]'s.
  void commit_batch(const std::vector<PendingReview*>& batch, std::vector<std::optional<Result<Done>>>& outcomes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!begin()) {
      std::string e = sqlite3_errmsg(db_);
      for (auto& o : outcomes) o = Result<Done>(StoreError{e});
      return;
    }
    std::vector<size_t> written;
    for (size_t i = 0; i < batch.size(); ++i) {
      const PendingReview* p = batch[i];
      std::optional<Result<Done>>& outcome = outcomes[i];
      const Card& c = *p->card;
      sqlite3_exec(db_, "SAVEPOINT review", nullptr, nullptr, nullptr);
      Stmt log(db_, "INSERT INTO reviews (user_id, slug, grade, reviewed_at) VALUES (?, ?, ?, ?)");
      log.bind(1, p->user_id).bind(2, c.slug).bind(3, static_cast<int64_t>(p->grade)).bind(4, p->now);
      Stmt card(db_,
                "INSERT INTO cards (user_id, slug, stability, difficulty, due, last_review, reps, lapses) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id, slug) DO UPDATE SET stability = excluded.stability, difficulty = excluded.difficulty, "
                "due = excluded.due, last_review = excluded.last_review, reps = excluded.reps, lapses = excluded.lapses "
                "WHERE cards.reps = excluded.reps - 1");
      card.bind(1, p->user_id).bind(2, c.slug).bind(3, c.stability).bind(4, c.difficulty).bind(5, c.due).bind(6, c.last_review)
          .bind(7, static_cast<int64_t>(c.reps)).bind(8, static_cast<int64_t>(c.lapses));
      if (log.step() != SQLITE_DONE || card.step() != SQLITE_DONE) {
        outcome = Result<Done>(StoreError{sqlite3_errmsg(db_)});
      } else if (sqlite3_changes(db_) == 0) {
        // The card moved on since it was read (another review of it committed first).
        outcome = Result<Done>(StoreError{"the card changed since it was read", true});
      }
      if (outcome) {
        sqlite3_exec(db_, "ROLLBACK TO review", nullptr, nullptr, nullptr);
      } else {
        written.push_back(i);
      }
      sqlite3_exec(db_, "RELEASE review", nullptr, nullptr, nullptr);
    }
    if (!commit()) {
      std::string e = sqlite3_errmsg(db_);
      rollback(e);
      for (size_t i : written) outcomes[i] = Result<Done>(StoreError{e});
      return;
    }
    for (size_t i : written) outcomes[i] = Result<Done>(Done{});
  }

  sqlite3* db_;
  std::mutex mutex_;
  sqlite3* reader_;
  std::mutex reader_mutex_;
  // Group commit of reviews: the queue, and whether a batch is being written now.
  std::mutex batch_mutex_;
  std::condition_variable batch_cv_;
  std::vector<PendingReview*> queued_;
  bool committing_ = false;
};

}  // namespace

Result<std::unique_ptr<Store>> open_sqlite(const std::string& path, int up_to_version) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    std::string e = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return StoreError{"cannot open " + path + ": " + e};
  }
  sqlite3_busy_timeout(db, 5000);
  const char* pragmas = "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;";
  char* err = nullptr;
  if (sqlite3_exec(db, pragmas, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string e = err ? err : "?";
    sqlite3_free(err);
    sqlite3_close(db);
    return StoreError{"cannot configure " + path + ": " + e};
  }
  sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)", nullptr, nullptr, nullptr);
  for (const auto& m : sqlite_migrations()) {
    if (m.version > up_to_version) break;
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, "SELECT 1 FROM schema_migrations WHERE version = ?", -1, &q, nullptr);
    sqlite3_bind_int(q, 1, m.version);
    bool applied = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
    if (applied) continue;
    std::string sql = std::string("BEGIN;") + m.sql + "INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + "); COMMIT;";
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string e = err ? err : "?";
      sqlite3_free(err);
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(db);
      return StoreError{"migration " + std::to_string(m.version) + " failed on " + path + ": " + e};
    }
  }
  // The read connection; without it (an odd file system) every read shares the writer.
  sqlite3* reader = nullptr;
  if (sqlite3_open_v2(path.c_str(), &reader, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(reader, 5000);
  } else {
    sqlite3_close(reader);
    reader = nullptr;
  }
  return std::unique_ptr<Store>(std::make_unique<SqliteStore>(db, reader));
}

}  // namespace ridge::store
