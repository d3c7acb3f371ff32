// The PostgreSQL store (libpq): a small pool of connections, parameterized statements only,
// each method one transaction. For many `ridge serve` processes behind a proxy.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace ridge::store {

Result<std::unique_ptr<Store>> open_postgres(const std::string& url, int pool_size = 4);

}  // namespace ridge::store
