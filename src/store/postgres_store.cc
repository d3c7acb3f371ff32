#include "store/postgres_store.h"

#include <libpq-fe.h>

#include <condition_variable>
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
  std::string text(int row, int col) const { return PQgetvalue(r_, row, col); }
  int64_t i64(int row, int col) const { return std::stoll(PQgetvalue(r_, row, col)); }
  double f64(int row, int col) const { return std::stod(PQgetvalue(r_, row, col)); }
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
    return read_user(c.run("SELECT id, email, password_hash, desired_retention, created_at FROM users WHERE email = $1", {email}));
  }

  Result<std::optional<User>> get_user(int64_t id) override {
    Conn c(*pool_);
    return read_user(c.run("SELECT id, email, password_hash, desired_retention, created_at FROM users WHERE id = $1", {s(id)}));
  }

  Result<std::vector<User>> list_users() override {
    Conn c(*pool_);
    auto r = c.run("SELECT id, email, password_hash, desired_retention, created_at FROM users ORDER BY id");
    if (!r.ok()) return StoreError{r.error()};
    std::vector<User> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back({r.i64(i, 0), r.text(i, 1), r.text(i, 2), r.f64(i, 3), r.i64(i, 4)});
    return out;
  }

  Result<Done> set_password(int64_t user_id, const std::string& hash) override {
    return exec("UPDATE users SET password_hash = $1 WHERE id = $2", {hash, s(user_id)});
  }
  Result<Done> set_retention(int64_t user_id, double r) override {
    return exec("UPDATE users SET desired_retention = $1 WHERE id = $2", {d(r), s(user_id)});
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

  bool ping() override {
    Conn c(*pool_);
    return c.run("SELECT 1").ok();
  }
  std::string backend() const override { return "postgresql"; }

 private:
  Result<Done> exec(const char* sql, const Params& params) {
    Conn c(*pool_);
    auto r = c.run(sql, params);
    if (!r.ok()) return StoreError{r.error()};
    return Done{};
  }

  static Result<std::optional<User>> read_user(const PgResult& r) {
    if (!r.ok()) return StoreError{r.error()};
    if (r.rows() == 0) return std::optional<User>();
    return std::optional<User>(User{r.i64(0, 0), r.text(0, 1), r.text(0, 2), r.f64(0, 3), r.i64(0, 4)});
  }

  static Card read_card(const PgResult& r, int i) {
    return {r.text(i, 0), r.f64(i, 1), r.f64(i, 2), r.i64(i, 3), r.i64(i, 4), static_cast<int>(r.i64(i, 5)),
            static_cast<int>(r.i64(i, 6))};
  }

  std::unique_ptr<Pool> pool_;
};

}  // namespace

Result<std::unique_ptr<Store>> open_postgres(const std::string& url, int pool_size) {
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
