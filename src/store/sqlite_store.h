// The SQLite store: SqlStore (sql_store.h) over the SQLite driver (sqlite_db.h): one write
// connection behind a mutex, a read-only one for reads, WAL, foreign keys on, a busy
// timeout, synchronous=FULL (a write that returned has reached the disk), and reviews that
// arrive together committed in one transaction.
#pragma once

#include <limits>
#include <memory>
#include <string>

#include "store/store.h"

namespace ridge::store {

// up_to_version: apply the migrations up to this one only (the tests build a previous
// release's schema with it). Errors name the path.
Result<std::unique_ptr<Store>> open_sqlite(const std::string& path, int up_to_version = std::numeric_limits<int>::max());

}  // namespace ridge::store
