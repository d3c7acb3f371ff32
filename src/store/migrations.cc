#include "store/migrations.h"

namespace ridge::store {

// Number 3 is reserved for the rate limiter's buckets (another branch). The runner applies
// every version a database has not recorded, so 4 applies whether or not 3 exists yet.
const std::vector<Migration>& sqlite_migrations() {
  static const std::vector<Migration> m = {
      {1, R"sql(
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  desired_retention REAL NOT NULL DEFAULT 0.9,
  created_at INTEGER NOT NULL
);
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE TABLE cards (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  stability REAL NOT NULL,
  difficulty REAL NOT NULL,
  due INTEGER NOT NULL,
  last_review INTEGER NOT NULL,
  reps INTEGER NOT NULL,
  lapses INTEGER NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE reviews (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  grade INTEGER NOT NULL CHECK (grade BETWEEN 1 AND 4),
  reviewed_at INTEGER NOT NULL
);
CREATE INDEX reviews_user ON reviews(user_id);
CREATE TABLE bookmarks (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE notes (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  body TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE drills (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  calculator TEXT NOT NULL,
  topic TEXT NOT NULL,
  correct INTEGER NOT NULL,
  answered_at INTEGER NOT NULL
);
CREATE INDEX drills_user ON drills(user_id);
CREATE TABLE readiness (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  track TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  score REAL NOT NULL,
  detail_json TEXT NOT NULL
);
CREATE INDEX readiness_user ON readiness(user_id);
)sql"},
      {2, R"sql(
ALTER TABLE users ADD COLUMN account_id TEXT;
UPDATE users SET account_id = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX users_account_id ON users(account_id);
ALTER TABLE users ADD COLUMN email_verified_at INTEGER NOT NULL DEFAULT 0;
CREATE TABLE entitlements (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  access_until INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE billing_events (
  event_id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL,
  months INTEGER NOT NULL,
  received_at INTEGER NOT NULL
);
CREATE TABLE mail_queue (
  id INTEGER PRIMARY KEY,
  recipient TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  sent_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX mail_queue_due ON mail_queue(sent_at, next_attempt_at);
CREATE TABLE subscriptions (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
  created_at INTEGER NOT NULL,
  confirmed_at INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);
CREATE TABLE weekly_sends (
  week TEXT NOT NULL,
  subscription_id INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  queued_at INTEGER NOT NULL,
  PRIMARY KEY (week, subscription_id)
);
CREATE TABLE account_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
)sql"},
      // 3: token buckets for the sign-in and sign-up limits, shared by every server on the
      // store (additive: a server of the previous release ignores the table).
      {3, R"sql(
CREATE TABLE rate_limits (
  bucket TEXT PRIMARY KEY,
  tokens REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  full_at INTEGER NOT NULL
);
CREATE INDEX rate_limits_full ON rate_limits(full_at);
)sql"},
      // 4: the daily new-card limit, per account (additive, with a default).
      {4, R"sql(
ALTER TABLE users ADD COLUMN new_per_day INTEGER NOT NULL DEFAULT 20;
)sql"},
  };
  return m;
}

const std::vector<Migration>& postgres_migrations() {
  static const std::vector<Migration> m = {
      {1, R"sql(
CREATE TABLE users (
  id BIGSERIAL PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  desired_retention DOUBLE PRECISION NOT NULL DEFAULT 0.9,
  created_at BIGINT NOT NULL
);
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE TABLE cards (
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  stability DOUBLE PRECISION NOT NULL,
  difficulty DOUBLE PRECISION NOT NULL,
  due BIGINT NOT NULL,
  last_review BIGINT NOT NULL,
  reps INTEGER NOT NULL,
  lapses INTEGER NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE reviews (
  id BIGSERIAL PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  grade INTEGER NOT NULL CHECK (grade BETWEEN 1 AND 4),
  reviewed_at BIGINT NOT NULL
);
CREATE INDEX reviews_user ON reviews(user_id);
CREATE TABLE bookmarks (
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE notes (
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  body TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (user_id, slug)
);
CREATE TABLE drills (
  id BIGSERIAL PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  calculator TEXT NOT NULL,
  topic TEXT NOT NULL,
  correct BOOLEAN NOT NULL,
  answered_at BIGINT NOT NULL
);
CREATE INDEX drills_user ON drills(user_id);
CREATE TABLE readiness (
  id BIGSERIAL PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  track TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  finished_at BIGINT NOT NULL,
  score DOUBLE PRECISION NOT NULL,
  detail_json TEXT NOT NULL
);
CREATE INDEX readiness_user ON readiness(user_id);
)sql"},
      {2, R"sql(
ALTER TABLE users ADD COLUMN account_id TEXT NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');
CREATE UNIQUE INDEX users_account_id ON users(account_id);
ALTER TABLE users ADD COLUMN email_verified_at BIGINT NOT NULL DEFAULT 0;
CREATE TABLE entitlements (
  user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  access_until BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE billing_events (
  event_id TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL,
  months INTEGER NOT NULL,
  received_at BIGINT NOT NULL
);
CREATE TABLE mail_queue (
  id BIGSERIAL PRIMARY KEY,
  recipient TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  sent_at BIGINT NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX mail_queue_due ON mail_queue(sent_at, next_attempt_at);
CREATE TABLE subscriptions (
  id BIGSERIAL PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
  created_at BIGINT NOT NULL,
  confirmed_at BIGINT NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL
);
CREATE TABLE weekly_sends (
  week TEXT NOT NULL,
  subscription_id BIGINT NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  queued_at BIGINT NOT NULL,
  PRIMARY KEY (week, subscription_id)
);
CREATE TABLE account_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);
)sql"},
      // 3: token buckets for the sign-in and sign-up limits, shared by every server on the
      // store (additive: a server of the previous release ignores the table).
      {3, R"sql(
CREATE TABLE rate_limits (
  bucket TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  updated_at BIGINT NOT NULL,
  full_at BIGINT NOT NULL
);
CREATE INDEX rate_limits_full ON rate_limits(full_at);
)sql"},
      // 4: the daily new-card limit, per account (additive, with a default).
      {4, R"sql(
ALTER TABLE users ADD COLUMN new_per_day INTEGER NOT NULL DEFAULT 20;
)sql"},
  };
  return m;
}

}  // namespace ridge::store
