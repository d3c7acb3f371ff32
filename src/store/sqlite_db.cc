#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <mutex>

#include "store/sql_store.h"
#include "store/sqlite_store.h"

namespace ridge::store {
namespace {

Failure error_of(sqlite3* db) {
  int code = sqlite3_extended_errcode(db);
  std::string message = sqlite3_errmsg(db);
  if (code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY) return Failure::store_conflict(std::move(message));
  return Failure::unavailable(std::move(message));
}

// One connection; the caller holds its lock.
class SqliteConn final : public Conn {
 public:
  explicit SqliteConn(sqlite3* db) : db_(db) {}

  Result<Rows> query(std::string_view sql, Params params) override {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr) != SQLITE_OK) return error_of(db_);
    Result<Rows> out = run(s, params);
    sqlite3_finalize(s);
    return out;
  }

  Result<Done> script(const std::string& sql) override {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return Done{};
    std::string e = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return Failure::unavailable(e);
  }

 private:
  Result<Rows> run(sqlite3_stmt* s, Params params) {
    int i = 1;
    for (const Param& p : params) {
      const auto& v = p.value();
      if (auto* n = std::get_if<int64_t>(&v)) sqlite3_bind_int64(s, i, *n);
      else if (auto* d = std::get_if<double>(&v)) sqlite3_bind_double(s, i, *d);
      else if (auto* b = std::get_if<bool>(&v)) sqlite3_bind_int64(s, i, *b ? 1 : 0);
      else {
        auto t = std::get<std::string_view>(v);
        sqlite3_bind_text(s, i, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
      }
      ++i;
    }
    Rows rows;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      int n = sqlite3_column_count(s);
      std::vector<Cell> cells;
      cells.reserve(static_cast<size_t>(n));
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(s, c)) {
          case SQLITE_INTEGER: cells.emplace_back(static_cast<int64_t>(sqlite3_column_int64(s, c))); break;
          case SQLITE_FLOAT: cells.emplace_back(sqlite3_column_double(s, c)); break;
          case SQLITE_NULL: cells.emplace_back(std::monostate{}); break;
          default: {
            const unsigned char* t = sqlite3_column_text(s, c);
            cells.emplace_back(t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s, c)))
                                 : std::string());
          }
        }
      }
      rows.rows.emplace_back(std::move(cells));
    }
    if (rc != SQLITE_DONE) return error_of(db_);
    rows.changes = sqlite3_changes(db_);
    return rows;
  }

  sqlite3* db_;
};

class SqliteDb final : public Db {
 public:
  // `reader` (may be null) is a second, read-only connection to the same file: in WAL mode
  // it reads the last committed state without waiting for a commit's fsync on `db`.
  SqliteDb(sqlite3* db, sqlite3* reader) : db_(db), reader_(reader) {}
  ~SqliteDb() override {
    sqlite3_close(reader_);
    sqlite3_close(db_);
  }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  const Dialect& dialect() const override { return sqlite_dialect(); }

  Result<Rows> query(std::string_view sql, Params params) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return SqliteConn(db_).query(sql, params);
  }

  Result<Rows> read(std::string_view sql, Params params) override {
    if (!reader_) return query(sql, params);  // an odd file system: every read shares the writer
    std::lock_guard<std::mutex> lock(reader_mutex_);
    return SqliteConn(reader_).query(sql, params);
  }

  Result<Done> transaction(const std::function<Result<Done>(Conn&)>& body) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // IMMEDIATE takes the write lock now: another process waits here (busy timeout) rather
    // than failing at its first write.
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return error_of(db_);
    SqliteConn conn(db_);
    Result<Done> done = body(conn);
    if (done.ok() && sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK) return done;
    if (done.ok()) done = error_of(db_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return done;
  }

  bool ping() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return sqlite3_exec(db_, "SELECT 1", nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  std::string backend() const override { return "sqlite"; }

 private:
  sqlite3* db_;
  std::mutex mutex_;
  sqlite3* reader_;
  std::mutex reader_mutex_;
};

}  // namespace

Result<std::unique_ptr<Db>> open_sqlite_db(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    std::string e = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Failure::unavailable("cannot open " + path + ": " + e);
  }
  sqlite3_busy_timeout(db, 5000);
  const char* pragmas = "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;";
  char* err = nullptr;
  if (sqlite3_exec(db, pragmas, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string e = err ? err : "?";
    sqlite3_free(err);
    sqlite3_close(db);
    return Failure::unavailable("cannot configure " + path + ": " + e);
  }
  // The read connection; without it (an odd file system) every read shares the writer.
  sqlite3* reader = nullptr;
  if (sqlite3_open_v2(path.c_str(), &reader, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(reader, 5000);
  } else {
    sqlite3_close(reader);
    reader = nullptr;
  }
  return std::unique_ptr<Db>(std::make_unique<SqliteDb>(db, reader));
}

Result<std::unique_ptr<Store>> open_sqlite(const std::string& path, int up_to_version) {
  auto db = open_sqlite_db(path);
  if (!db.ok()) return db.error();
  auto store = open_sql_store(std::move(db).value(), up_to_version);
  if (!store.ok()) return Failure::unavailable(store.error().detail + " (" + path + ")");
  return store;
}

}  // namespace ridge::store
