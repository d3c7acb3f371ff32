#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <mutex>

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
  explicit SqliteStore(sqlite3* db) : db_(db) {}
  ~SqliteStore() override { sqlite3_close(db_); }

  Result<int64_t> create_user(const std::string& email, const std::string& hash, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "INSERT INTO users (email, password_hash, created_at) VALUES (?, ?, ?)");
    s.bind(1, email).bind(2, hash).bind(3, now);
    int rc = s.step();
    if (rc == SQLITE_CONSTRAINT) return StoreError{"email already registered", true};
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
  }

  Result<std::optional<User>> find_user_by_email(const std::string& email) override {
    return one_user("SELECT id, email, password_hash, desired_retention, created_at FROM users WHERE email = ?", email);
  }

  Result<std::optional<User>> get_user(int64_t id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT id, email, password_hash, desired_retention, created_at FROM users WHERE id = ?");
    s.bind(1, id);
    return read_user(s);
  }

  Result<std::vector<User>> list_users() override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT id, email, password_hash, desired_retention, created_at FROM users ORDER BY id");
    std::vector<User> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.i64(0), s.text(1), s.text(2), s.f64(3), s.i64(4)});
    if (rc != SQLITE_DONE) return StoreError{s.error()};
    return out;
  }

  Result<Done> set_password(int64_t user_id, const std::string& hash) override {
    return exec("UPDATE users SET password_hash = ? WHERE id = ?", [&](Stmt& s) { s.bind(1, hash).bind(2, user_id); });
  }

  Result<Done> set_retention(int64_t user_id, double r) override {
    return exec("UPDATE users SET desired_retention = ? WHERE id = ?", [&](Stmt& s) { s.bind(1, r).bind(2, user_id); });
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
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT user_id, csrf_token, expires_at FROM sessions WHERE token_hash = ?");
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

  Result<Done> record_review(int64_t user_id, const Card& c, int grade, int64_t now) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return StoreError{sqlite3_errmsg(db_)};
    Stmt log(db_, "INSERT INTO reviews (user_id, slug, grade, reviewed_at) VALUES (?, ?, ?, ?)");
    log.bind(1, user_id).bind(2, c.slug).bind(3, static_cast<int64_t>(grade)).bind(4, now);
    Stmt card(db_,
              "INSERT INTO cards (user_id, slug, stability, difficulty, due, last_review, reps, lapses) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
              "ON CONFLICT (user_id, slug) DO UPDATE SET stability = excluded.stability, difficulty = excluded.difficulty, "
              "due = excluded.due, last_review = excluded.last_review, reps = excluded.reps, lapses = excluded.lapses "
              "WHERE cards.reps = excluded.reps - 1");
    card.bind(1, user_id).bind(2, c.slug).bind(3, c.stability).bind(4, c.difficulty).bind(5, c.due).bind(6, c.last_review)
        .bind(7, static_cast<int64_t>(c.reps)).bind(8, static_cast<int64_t>(c.lapses));
    if (log.step() != SQLITE_DONE || card.step() != SQLITE_DONE) {
      std::string e = sqlite3_errmsg(db_);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return StoreError{e};
    }
    if (sqlite3_changes(db_) == 0) {
      // The card moved on since it was read (another review of it committed first).
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return StoreError{"the card changed since it was read", true};
    }
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
      std::string e = sqlite3_errmsg(db_);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return StoreError{e};
    }
    return Done{};
  }

  Result<std::optional<Card>> get_card(int64_t user_id, const std::string& slug) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Stmt s(db_, "SELECT slug, stability, difficulty, due, last_review, reps, lapses FROM cards WHERE user_id = ? AND slug = ?");
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

  bool ping() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return sqlite3_exec(db_, "SELECT 1", nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  std::string backend() const override { return "sqlite"; }

 private:
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
    if (rc == SQLITE_ROW) return std::optional<User>(User{s.i64(0), s.text(1), s.text(2), s.f64(3), s.i64(4)});
    if (rc == SQLITE_DONE) return std::optional<User>();
    return StoreError{s.error()};
  }

  static Card read_card(Stmt& s) {
    return {s.text(0), s.f64(1), s.f64(2), s.i64(3), s.i64(4), static_cast<int>(s.i64(5)), static_cast<int>(s.i64(6))};
  }

  sqlite3* db_;
  std::mutex mutex_;
};

}  // namespace

Result<std::unique_ptr<Store>> open_sqlite(const std::string& path) {
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
  return std::unique_ptr<Store>(std::make_unique<SqliteStore>(db));
}

}  // namespace ridge::store
