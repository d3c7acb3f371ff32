// The SQLite driver of Db: one write connection behind a mutex (WAL, foreign keys on, a busy
// timeout, synchronous=FULL, so a write that returned has reached the disk) and, where the
// file system allows, a second, read-only connection for Db::read.
#pragma once

#include <memory>
#include <string>

#include "store/db.h"

namespace ridge::store {

// Opens (creating) the database file at `path`; the error names the path.
Result<std::unique_ptr<Db>> open_sqlite_db(const std::string& path);

}  // namespace ridge::store
