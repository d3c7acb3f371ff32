// The SQLite store: one connection behind a mutex. WAL, foreign keys on, a busy timeout,
// and synchronous=FULL, so a write that returned has reached the disk.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace ridge::store {

Result<std::unique_ptr<Store>> open_sqlite(const std::string& path);

}  // namespace ridge::store
