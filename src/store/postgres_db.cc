#include "store/postgres_db.h"

#include <libpq-fe.h>
#include <poll.h>

#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "store/postgres_store.h"
#include "store/sql_store.h"

namespace ridge::store {
namespace {

// Type OIDs (pg_type.h): the parameters' and the columns' that read as numbers.
constexpr Oid kBool = 16, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701, kNumeric = 1700;

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
  Failure error() const {
    const char* state = PQresultErrorField(r_, PG_DIAG_SQLSTATE);
    if (state && std::strcmp(state, "23505") == 0) return Failure::store_conflict(PQresultErrorMessage(r_));  // unique_violation
    return Failure::unavailable(PQresultErrorMessage(r_));
  }
  // The rows, typed by their columns' types; a value that does not parse as its type is an
  // error naming it (never an exception).
  Result<Rows> rows() const {
    Rows out;
    const char* tuples = PQcmdTuples(r_);
    if (*tuples) {
      auto parsed = std::from_chars(tuples, tuples + std::strlen(tuples), out.changes);
      if (parsed.ec != std::errc()) return Failure::unavailable(std::string("row count '") + tuples + "' is not a number");
    }
    int n = PQntuples(r_), cols = PQnfields(r_);
    out.rows.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      std::vector<Cell> cells;
      cells.reserve(static_cast<size_t>(cols));
      for (int c = 0; c < cols; ++c) {
        auto cell = read(i, c);
        if (!cell.ok()) return cell.error();
        cells.push_back(std::move(cell).value());
      }
      out.rows.emplace_back(std::move(cells));
    }
    return out;
  }

 private:
  Result<Cell> read(int row, int col) const {
    if (PQgetisnull(r_, row, col)) return Cell{};
    const char* s = PQgetvalue(r_, row, col);
    const char* end = s + PQgetlength(r_, row, col);
    Oid type = PQftype(r_, col);
    if (type == kBool) return Cell{int64_t{*s == 't' ? 1 : 0}};
    if (type == kInt8 || type == kInt2 || type == kInt4 || type == kNumeric) {
      int64_t v = 0;
      auto parsed = std::from_chars(s, end, v);
      if (parsed.ec == std::errc() && parsed.ptr == end) return Cell{v};
      if (type != kNumeric) return bad(s, col, "an integer");
    }
    if (type == kFloat8 || type == kFloat4 || type == kNumeric) {
      double v = 0;
      auto parsed = std::from_chars(s, end, v);
      if (parsed.ec == std::errc() && parsed.ptr == end) return Cell{v};
      return bad(s, col, "a number");
    }
    return Cell{std::string(s, end)};
  }
  Failure bad(const char* value, int col, const char* accepted) const {
    return Failure::unavailable(std::string("column ") + PQfname(r_, col) + ": '" + value + "' is not " + accepted);
  }

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

// The rewritten text of each statement, made once: statements are a fixed set.
class PlaceholderCache {
 public:
  const std::string& numbered(std::string_view sql) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(std::string(sql));
    if (it == cache_.end()) it = cache_.emplace(std::string(sql), numbered_placeholders(sql)).first;
    return it->second;  // unordered_map keeps its values where they are
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::string> cache_;
};

// Whether an idle connection has heard from the server: nothing is due on one (no LISTEN, no
// query in flight), so bytes or EOF waiting on its socket are the server ending it (a restart's
// "terminating connection" or a closed socket). libpq would only see that on the next call,
// which would then fail; a reset now costs one reconnect. A rare harmless false alarm: a
// ParameterStatus sent after a configuration reload.
bool stale(PGconn* c) {
  pollfd p{PQsocket(c), POLLIN, 0};
  return p.fd < 0 || ::poll(&p, 1, 0) != 0;
}

// Borrows a pooled connection for one statement or one transaction, resetting it first if
// the server went away (a restarted server is reconnected to on the next call).
class PgConn final : public Conn {
 public:
  PgConn(Pool& pool, PlaceholderCache& cache) : pool_(pool), cache_(cache), c_(pool.take()) {
    if (PQstatus(c_) != CONNECTION_OK || stale(c_)) PQreset(c_);
  }
  ~PgConn() override { pool_.give(c_); }
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  Result<Rows> query(std::string_view sql, Params params) override {
    // Typed parameters, so a statement needs no casts; text goes untyped (the server infers
    // the column's type).
    std::vector<std::string> text;
    std::vector<Oid> types;
    text.reserve(params.size());
    for (const Param& p : params) {
      const auto& v = p.value();
      if (auto* n = std::get_if<int64_t>(&v)) {
        text.push_back(std::to_string(*n));
        types.push_back(kInt8);
      } else if (auto* d = std::get_if<double>(&v)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", *d);
        text.emplace_back(buf);
        types.push_back(kFloat8);
      } else if (auto* b = std::get_if<bool>(&v)) {
        text.emplace_back(*b ? "true" : "false");
        types.push_back(kBool);
      } else {
        text.emplace_back(std::get<std::string_view>(v));
        types.push_back(0);
      }
    }
    std::vector<const char*> values;
    for (const auto& t : text) values.push_back(t.c_str());
    PgResult r(PQexecParams(c_, cache_.numbered(sql).c_str(), static_cast<int>(values.size()), types.data(), values.data(), nullptr,
                            nullptr, 0));
    if (!r.ok()) return r.error();
    return r.rows();
  }

  Result<Done> script(const std::string& sql) override {
    PgResult r(PQexec(c_, sql.c_str()));
    if (!r.ok()) return r.error();
    return Done{};
  }

  // For the transaction's BEGIN, COMMIT and ROLLBACK.
  Result<Done> command(const char* sql) { return script(sql); }

 private:
  Pool& pool_;
  PlaceholderCache& cache_;
  PGconn* c_;
};

class PostgresDb final : public Db {
 public:
  explicit PostgresDb(std::unique_ptr<Pool> pool) : pool_(std::move(pool)) {}

  const Dialect& dialect() const override { return postgres_dialect(); }

  Result<Rows> query(std::string_view sql, Params params) override { return PgConn(*pool_, cache_).query(sql, params); }

  Result<Done> transaction(const std::function<Result<Done>(Conn&)>& body) override {
    PgConn conn(*pool_, cache_);
    if (auto begin = conn.command("BEGIN"); !begin.ok()) return begin;
    Result<Done> done = body(conn);
    if (done.ok()) {
      done = conn.command("COMMIT");
      if (done.ok()) return done;
    }
    (void)conn.command("ROLLBACK");  // after a failed COMMIT there is nothing left to roll back
    return done;
  }

  bool ping() override { return PgConn(*pool_, cache_).command("SELECT 1").ok(); }
  std::optional<Store::PoolUse> pool_use() override { return pool_->use(); }
  std::string backend() const override { return "postgresql"; }

 private:
  std::unique_ptr<Pool> pool_;
  PlaceholderCache cache_;
};

}  // namespace

std::string numbered_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  int next = 0;
  char quote = 0;  // inside '...' or "..." (a doubled quote closes and reopens: same result)
  for (size_t i = 0; i < sql.size(); ++i) {
    char ch = sql[i];
    if (quote) {
      if (ch == quote) quote = 0;
      out += ch;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
      out += ch;
    } else if (ch == '?') {
      size_t digits = i + 1;
      while (digits < sql.size() && sql[digits] >= '0' && sql[digits] <= '9') ++digits;
      out += '$';
      if (digits > i + 1) {
        out.append(sql.substr(i + 1, digits - i - 1));
        i = digits - 1;
      } else {
        out += std::to_string(++next);
      }
    } else {
      out += ch;
    }
  }
  return out;
}

Result<std::unique_ptr<Db>> open_postgres_db(const std::string& url, int pool_size) {
  auto pool = std::make_unique<Pool>();
  for (int i = 0; i < pool_size; ++i) {
    PGconn* c = PQconnectdb(url.c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      std::string e = PQerrorMessage(c);
      PQfinish(c);
      while (!e.empty() && (e.back() == '\n' || e.back() == ' ')) e.pop_back();
      return Failure::unavailable("cannot connect to PostgreSQL: " + e);
    }
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    pool->add(c);
  }
  return std::unique_ptr<Db>(std::make_unique<PostgresDb>(std::move(pool)));
}

Result<std::unique_ptr<Store>> open_postgres(const std::string& url, int pool_size, int up_to_version) {
  auto db = open_postgres_db(url, pool_size);
  if (!db.ok()) return db.error();
  return open_sql_store(std::move(db).value(), up_to_version);
}

}  // namespace ridge::store
