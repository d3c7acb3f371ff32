#include "store/db.h"

namespace ridge::store {
namespace {

// Cells are typed by the driver; a column read as the other numeric type converts.
struct AsI64 {
  int64_t operator()(std::monostate) const { return 0; }
  int64_t operator()(int64_t v) const { return v; }
  int64_t operator()(double v) const { return static_cast<int64_t>(v); }
  int64_t operator()(const std::string&) const { return 0; }
};
struct AsF64 {
  double operator()(std::monostate) const { return 0; }
  double operator()(int64_t v) const { return static_cast<double>(v); }
  double operator()(double v) const { return v; }
  double operator()(const std::string&) const { return 0; }
};
struct AsText {
  std::string operator()(std::monostate) const { return ""; }
  std::string operator()(int64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const { return std::to_string(v); }
  std::string operator()(const std::string& v) const { return v; }
};

// What each dialect spells where they differ, side by side: {SQLite, PostgreSQL}.
struct Spelling {
  const char* sqlite;
  const char* postgres;
};
constexpr Spelling kRandomId{"lower(hex(randomblob(16)))", "replace(gen_random_uuid()::text, '-', '')"};
constexpr Spelling kLeast{"min", "LEAST"}, kGreatest{"max", "GREATEST"};
// SQLite's BEGIN IMMEDIATE holds the database's write lock: rows need no lock of their own,
// one statement on the one writer is atomic already, and migrations are serialized.
constexpr Spelling kLockRows{"", " FOR UPDATE"};
constexpr Spelling kSkipLocked{"", " FOR UPDATE SKIP LOCKED"};
// Released at the migration's COMMIT: servers starting together apply each migration once.
constexpr Spelling kMigrationLock{"", "SELECT pg_advisory_xact_lock(727274)"};
constexpr Spelling kId{"INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY"}, kBigint{"INTEGER", "BIGINT"},
    kReal{"REAL", "DOUBLE PRECISION"}, kBoolean{"INTEGER", "BOOLEAN"};
// SQLite cannot add a NOT NULL column with a computed default to existing rows.
constexpr Spelling kAddAccountId{
    "ALTER TABLE users ADD COLUMN account_id TEXT;\nUPDATE users SET account_id = lower(hex(randomblob(16)));",
    "ALTER TABLE users ADD COLUMN account_id TEXT NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');"};

}  // namespace

const Dialect& sqlite_dialect() {
  static const Dialect d{kRandomId.sqlite, kLeast.sqlite, kGreatest.sqlite, kLockRows.sqlite, kSkipLocked.sqlite,
                         kMigrationLock.sqlite, /*group_commit=*/true,
                         {kId.sqlite, kBigint.sqlite, kReal.sqlite, kBoolean.sqlite, kAddAccountId.sqlite}};
  return d;
}

const Dialect& postgres_dialect() {
  static const Dialect d{kRandomId.postgres, kLeast.postgres, kGreatest.postgres, kLockRows.postgres, kSkipLocked.postgres,
                         kMigrationLock.postgres, /*group_commit=*/false,
                         {kId.postgres, kBigint.postgres, kReal.postgres, kBoolean.postgres, kAddAccountId.postgres}};
  return d;
}

int64_t Row::i64(size_t col) const { return col < cells_.size() ? std::visit(AsI64{}, cells_[col]) : 0; }
double Row::f64(size_t col) const { return col < cells_.size() ? std::visit(AsF64{}, cells_[col]) : 0; }
std::string Row::text(size_t col) const { return col < cells_.size() ? std::visit(AsText{}, cells_[col]) : ""; }
bool Row::null(size_t col) const { return col >= cells_.size() || cells_[col].index() == 0; }

}  // namespace ridge::store
