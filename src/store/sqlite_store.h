// The SQLite store: one connection behind a mutex. WAL, foreign keys on, a busy timeout,
// and synchronous=FULL, so a write that returned has reached the disk.
#pragma once

#include <limits>
#include <memory>
#include <string>

#include "store/store.h"

namespace ridge::store {

// up_to_version: apply the migrations up to this one only (the tests build a previous
// release's schema with it).
Result<std::unique_ptr<Store>> open_sqlite(const std::string& path, int up_to_version = std::numeric_limits<int>::max());

}  // namespace ridge::store
