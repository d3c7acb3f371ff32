#include "store/migrations.h"

#include <utility>

namespace ridge::store {

// Number 3 is reserved for the rate limiter's buckets (another branch). The runner applies
// every version a database has not recorded, so 4 applies whether or not 3 exists yet.
const std::vector<Migration>& migrations() {
  static const std::vector<Migration> m = {
      {1, R"sql(
CREATE TABLE users (
  id {ID},
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  desired_retention {REAL} NOT NULL DEFAULT 0.9,
  created_at {BIGINT} NOT NULL
);
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created_at {BIGINT} NOT NULL,
  expires_at {BIGINT} NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE TABLE cards (
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  stability {REAL} NOT NULL,
  difficulty {REAL} NOT NULL,
  due {BIGINT} NOT NULL,
  last_review {BIGINT} NOT NULL,
  reps INTEGER NOT NULL,
  lapses INTEGER NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE reviews (
  id {ID},
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  grade INTEGER NOT NULL CHECK (grade BETWEEN 1 AND 4),
  reviewed_at {BIGINT} NOT NULL
);
CREATE INDEX reviews_user ON reviews(user_id);
CREATE TABLE bookmarks (
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  created_at {BIGINT} NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE notes (
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  body TEXT NOT NULL,
  updated_at {BIGINT} NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE drills (
  id {ID},
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  calculator TEXT NOT NULL,
  topic TEXT NOT NULL,
  correct {BOOL} NOT NULL,
  answered_at {BIGINT} NOT NULL
);
CREATE INDEX drills_user ON drills(user_id);
CREATE TABLE readiness (
  id {ID},
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  track TEXT NOT NULL,
  started_at {BIGINT} NOT NULL,
  finished_at {BIGINT} NOT NULL,
  score {REAL} NOT NULL,
  detail_json TEXT NOT NULL
);
CREATE INDEX readiness_user ON readiness(user_id);
)sql"},
      {2, R"sql(
{ADD_ACCOUNT_ID}
CREATE UNIQUE INDEX users_account_id ON users(account_id);
ALTER TABLE users ADD COLUMN email_verified_at {BIGINT} NOT NULL DEFAULT 0;
CREATE TABLE entitlements (
  user_id {BIGINT} PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  access_until {BIGINT} NOT NULL,
  updated_at {BIGINT} NOT NULL
);
CREATE TABLE billing_events (
  event_id TEXT PRIMARY KEY,
  user_id {BIGINT} NOT NULL,
  months INTEGER NOT NULL,
  received_at {BIGINT} NOT NULL
);
CREATE TABLE mail_queue (
  id {ID},
  recipient TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at {BIGINT} NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at {BIGINT} NOT NULL,
  sent_at {BIGINT} NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX mail_queue_due ON mail_queue(sent_at, next_attempt_at);
CREATE TABLE subscriptions (
  id {ID},
  email TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
  created_at {BIGINT} NOT NULL,
  confirmed_at {BIGINT} NOT NULL DEFAULT 0,
  updated_at {BIGINT} NOT NULL
);
CREATE TABLE weekly_sends (
  week TEXT NOT NULL,
  subscription_id {BIGINT} NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  queued_at {BIGINT} NOT NULL,
  PRIMARY KEY (week, subscription_id)
);
CREATE TABLE account_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL,
  expires_at {BIGINT} NOT NULL,
  used_at {BIGINT} NOT NULL DEFAULT 0,
  created_at {BIGINT} NOT NULL
);
)sql"},
      // 3: token buckets for the sign-in and sign-up limits, shared by every server on the
      // store (additive: a server of the previous release ignores the table).
      {3, R"sql(
CREATE TABLE rate_limits (
  bucket TEXT PRIMARY KEY,
  tokens {REAL} NOT NULL,
  updated_at {BIGINT} NOT NULL,
  full_at {BIGINT} NOT NULL
);
CREATE INDEX rate_limits_full ON rate_limits(full_at);
)sql"},
      // 4: the daily new-card limit, per account (additive, with a default).
      {4, R"sql(
ALTER TABLE users ADD COLUMN new_per_day INTEGER NOT NULL DEFAULT 20;
)sql"},
      // 5: the payment an event granted for (Stripe's payment_intent), so a refund or dispute
      // of it takes back what it bought (additive, with a default).
      {5, R"sql(
ALTER TABLE billing_events ADD COLUMN payment_ref TEXT NOT NULL DEFAULT '';
CREATE INDEX billing_events_payment_ref ON billing_events(payment_ref);
)sql"},
      // 6: a readiness result names its check's nonce, unique per user, so one check is recorded
      // once across every server on the store (additive, with a default; old rows have none).
      {6, R"sql(
ALTER TABLE readiness ADD COLUMN nonce TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX readiness_nonce ON readiness(user_id, nonce) WHERE nonce <> '';
)sql"},
      // 7: Work it's graded steps (issue 34), one row per (user, exercise, step): the key
      // makes a step graded once on every server; deleted with the account (additive).
      {7, R"sql(
CREATE TABLE work_attempts (
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  seed {BIGINT} NOT NULL,
  step INTEGER NOT NULL,
  answer TEXT NOT NULL,
  correct {BOOL} NOT NULL,
  misconception TEXT NOT NULL DEFAULT '',
  answered_at {BIGINT} NOT NULL,
  PRIMARY KEY (user_id, slug, seed, step)
);
CREATE INDEX work_attempts_mistakes ON work_attempts(user_id, misconception);
)sql"},
      // 8: design rounds (issue 35): every graded submission of a design challenge, kept with
      // its verdict's pass and cost; the best passing design and the board are read from it
      // (one row per user by a window over the user's passing attempts). Deleted with the
      // account (additive: a new table).
      {8, R"sql(
CREATE TABLE design_attempts (
  id {ID},
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  challenge TEXT NOT NULL,
  submission TEXT NOT NULL,
  passed {BOOL} NOT NULL,
  cost_usd {REAL} NOT NULL,
  seconds {BIGINT} NOT NULL DEFAULT 0,
  show_name {BOOL} NOT NULL,
  board_name TEXT NOT NULL DEFAULT '',
  attempted_at {BIGINT} NOT NULL
);
CREATE INDEX design_attempts_user ON design_attempts(user_id, challenge);
CREATE INDEX design_attempts_board ON design_attempts(challenge, passed, cost_usd);
)sql"},
      // 9: mock loops (issue 36): a rehearsal of a company's or a track's loop, its plan as the
      // service assembled it, and per round the candidate's answer and rubric scores. Both go
      // with the account (ON DELETE CASCADE), as every answer is the user's own data.
      {9, R"sql(
CREATE TABLE rehearsals (
  id {ID},
  user_id {BIGINT} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  plan_json TEXT NOT NULL,
  started_at {BIGINT} NOT NULL,
  expires_at {BIGINT} NOT NULL,
  finished_at {BIGINT} NOT NULL DEFAULT 0,
  report_json TEXT NOT NULL DEFAULT ''
);
CREATE INDEX rehearsals_user ON rehearsals(user_id);
CREATE TABLE rehearsal_rounds (
  rehearsal_id {BIGINT} NOT NULL REFERENCES rehearsals(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  answer TEXT NOT NULL DEFAULT '',
  answered_at {BIGINT} NOT NULL DEFAULT 0,
  scores TEXT NOT NULL DEFAULT '',
  scored_at {BIGINT} NOT NULL DEFAULT 0,
  PRIMARY KEY (rehearsal_id, idx)
);
)sql"},
      // 10: the readiness check a user has open (one per user), so a refresh, a restart or
      // another server resumes it with the time left (additive: a new table).
      {10, R"sql(
CREATE TABLE readiness_open (
  user_id {BIGINT} PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  payload TEXT NOT NULL,
  mac TEXT NOT NULL,
  started_at {BIGINT} NOT NULL
);
)sql"},
  };
  return m;
}

std::string render(const Migration& m, const Dialect::Schema& schema) {
  const std::pair<std::string_view, const char*> words[] = {
      {"{ID}", schema.id}, {"{BIGINT}", schema.bigint}, {"{REAL}", schema.real}, {"{BOOL}", schema.boolean},
      {"{ADD_ACCOUNT_ID}", schema.add_account_id}};
  std::string out;
  std::string_view sql = m.sql;
  for (size_t i = 0; i < sql.size();) {
    bool replaced = false;
    if (sql[i] == '{') {
      for (const auto& [word, with] : words) {
        if (sql.substr(i, word.size()) == word) {
          out += with;
          i += word.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += sql[i++];
  }
  return out;
}

Result<Done> migrate(Db& db, int up_to_version) {
  const Dialect& dialect = db.dialect();
  auto lock = [&](Conn& c) -> Result<Done> {
    if (*dialect.migration_lock) {
      if (auto locked = c.query(dialect.migration_lock); !locked.ok()) return locked.error();
    }
    return Done{};
  };
  auto table = db.transaction([&](Conn& c) -> Result<Done> {
    if (auto locked = lock(c); !locked.ok()) return locked;
    return c.script("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)");
  });
  if (!table.ok()) return Failure::unavailable("cannot create schema_migrations: " + table.error().detail);
  for (const Migration& m : migrations()) {
    if (m.version > up_to_version) break;
    auto applied = db.transaction([&](Conn& c) -> Result<Done> {
      if (auto locked = lock(c); !locked.ok()) return locked;
      // Checked inside the transaction, after the lock: another process may have just applied it.
      auto seen = c.query("SELECT 1 FROM schema_migrations WHERE version = ?", {m.version});
      if (!seen.ok()) return seen.error();
      if (!seen->rows.empty()) return Done{};
      if (auto ran = c.script(render(m, dialect.schema)); !ran.ok()) return ran.error();
      auto recorded = c.query("INSERT INTO schema_migrations (version) VALUES (?)", {m.version});
      if (!recorded.ok()) return recorded.error();
      return Done{};
    });
    if (!applied.ok()) return Failure::unavailable("migration " + std::to_string(m.version) + " failed: " + applied.error().detail);
  }
  return Done{};
}

}  // namespace ridge::store
