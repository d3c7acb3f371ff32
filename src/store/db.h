// The small SQL interface the store runs on: statements with `?` placeholders (or `?N` to
// reuse a parameter), rows with typed cells, transactions as a callable. Two drivers:
// SQLite (sqlite_db.h) and PostgreSQL (postgres_db.h). SqlStore writes each statement once
// over this; what the two SQL dialects really spell differently is in Dialect.
//
// Errors are values (a Failure, of kind conflict on a unique-key violation); no call throws.
// A Db is thread-safe; a Conn belongs to the one transaction that was handed it.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "store/store.h"

namespace ridge::store {

// A statement parameter. Strings are viewed, not copied: a Param lives no longer than the
// call it is passed to.
class Param {
 public:
  Param(int v) : v_(static_cast<int64_t>(v)) {}        // NOLINT
  Param(int64_t v) : v_(v) {}                           // NOLINT
  Param(double v) : v_(v) {}                            // NOLINT
  Param(bool v) : v_(v) {}                              // NOLINT
  Param(std::string_view v) : v_(v) {}                  // NOLINT
  Param(const std::string& v) : v_(std::string_view(v)) {}  // NOLINT
  Param(const char* v) : v_(std::string_view(v)) {}     // NOLINT (else a literal would bind as bool)
  const std::variant<int64_t, double, bool, std::string_view>& value() const { return v_; }

 private:
  std::variant<int64_t, double, bool, std::string_view> v_;
};
using Params = std::initializer_list<Param>;

// A cell as the driver read it: NULL, an integer (booleans read as 0 or 1), a real, text.
using Cell = std::variant<std::monostate, int64_t, double, std::string>;

// One result row. The accessors convert between integer and real; a NULL or a missing
// column reads as 0 or "" (the schema has no nullable column the store reads).
class Row {
 public:
  explicit Row(std::vector<Cell> cells) : cells_(std::move(cells)) {}
  int64_t i64(size_t col) const;
  double f64(size_t col) const;
  std::string text(size_t col) const;
  bool null(size_t col) const;

 private:
  std::vector<Cell> cells_;
};

struct Rows {
  std::vector<Row> rows;  // what the statement returned (a SELECT's rows, a RETURNING clause's)
  int64_t changes = 0;    // rows inserted, updated or deleted by an INSERT, UPDATE or DELETE
};

// What SqlStore needs to know of the SQL dialect; each driver holds one, for its life.
struct Dialect {
  const char* random_id;    // an expression: 32 random lowercase hex digits (account ids)
  const char* least;        // the scalar minimum and maximum of two values
  const char* greatest;
  const char* lock_rows;    // after a SELECT whose rows the transaction then writes ("" where
                            // a write transaction already locks the database)
  const char* skip_locked;  // after claim_mail's LIMIT: concurrent claims take other rows
  // Serializes migrations between processes starting together, inside each migration's
  // transaction ("" where a write transaction already does).
  const char* migration_lock;
  // Reviews written by one connection under a lock: record_review batches those that arrive
  // together into one transaction (one fsync for many). Where false, each review is its own
  // transaction on a pooled connection (the server's group commit does the rest).
  bool group_commit;
  // The schema's column types and the one column whose definition differs (migration 2).
  struct Schema {
    const char* id;       // an auto-increment integer primary key
    const char* bigint;   // a 64-bit integer (unix seconds, keys)
    const char* real;     // a double
    const char* boolean;
    const char* add_account_id;  // migration 2: adds users.account_id, filled at random
  } schema;
};

// The drivers' dialects (db.cc, side by side).
const Dialect& sqlite_dialect();
const Dialect& postgres_dialect();

// A connection inside one transaction. Not thread-safe; valid only during the callable it
// was handed to.
class Conn {
 public:
  virtual ~Conn() = default;
  // One statement with parameters.
  virtual Result<Rows> query(std::string_view sql, Params params = {}) = 0;
  // Several statements without parameters (a migration).
  virtual Result<Done> script(const std::string& sql) = 0;
};

class Db {
 public:
  virtual ~Db() = default;
  virtual const Dialect& dialect() const = 0;

  // One statement in a transaction of its own, on the connection writes use.
  virtual Result<Rows> query(std::string_view sql, Params params = {}) = 0;
  // One read-only statement that may run on a connection kept for reads: it sees the last
  // committed state, without waiting for a commit in progress.
  virtual Result<Rows> read(std::string_view sql, Params params = {}) { return query(sql, params); }
  // Runs `body` in one transaction on one connection (a write transaction: SQLite's
  // BEGIN IMMEDIATE): committed when `body` returns a value, rolled back when it returns an
  // error (that error is the answer) or when COMMIT fails (COMMIT's error is).
  virtual Result<Done> transaction(const std::function<Result<Done>(Conn&)>& body) = 0;

  virtual bool ping() = 0;
  virtual std::optional<Store::PoolUse> pool_use() { return std::nullopt; }
  virtual std::string backend() const = 0;

  // transaction() for a body that answers a value: Result<T> body(Conn&).
  template <class Body>
  auto in_transaction(Body&& body) -> decltype(body(std::declval<Conn&>())) {
    using Answer = decltype(body(std::declval<Conn&>()));
    std::optional<Answer> answer;
    auto done = transaction([&](Conn& c) -> Result<Done> {
      answer.emplace(body(c));
      if (!answer->ok()) return answer->error();
      return Done{};
    });
    if (!done.ok()) return done.error();
    return std::move(*answer);
  }
};

}  // namespace ridge::store
