// The PostgreSQL store (libpq): a small pool of connections, parameterized statements only,
// each method one transaction. For many `ridge serve` processes behind a proxy.
#pragma once

#include <limits>
#include <memory>
#include <string>

#include "store/store.h"

namespace ridge::store {

// up_to_version: apply the migrations up to this one only (the tests build a previous
// release's schema with it).
Result<std::unique_ptr<Store>> open_postgres(const std::string& url, int pool_size = 4,
                                             int up_to_version = std::numeric_limits<int>::max());

}  // namespace ridge::store
