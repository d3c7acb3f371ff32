// The PostgreSQL store: SqlStore (sql_store.h) over the libpq driver (postgres_db.h): a small
// pool of connections, parameterized statements only, each method one transaction. For many
// `ridge serve` processes behind a proxy.
#pragma once

#include <limits>
#include <memory>
#include <string>

#include "store/store.h"

namespace ridge::store {

// `pool_size` connections, one per worker that waits on the store (the server's 16): commits
// that run together share PostgreSQL's WAL flush. N servers hold N × pool_size connections
// (PostgreSQL's default max_connections is 100). up_to_version: apply the migrations up to
// this one only (the tests build a previous release's schema with it).
Result<std::unique_ptr<Store>> open_postgres(const std::string& url, int pool_size = 16,
                                             int up_to_version = std::numeric_limits<int>::max());

}  // namespace ridge::store
