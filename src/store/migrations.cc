#include "store/migrations.h"

namespace ridge::store {

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
  };
  return m;
}

}  // namespace ridge::store
