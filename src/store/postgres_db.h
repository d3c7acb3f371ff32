// The PostgreSQL driver of Db (libpq): a pool of connections, each reset when the server
// went away and came back; parameterized statements only, their `?` placeholders rewritten
// to `$n` once per statement text. For many `ridge serve` processes behind a proxy.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "store/db.h"

namespace ridge::store {

// Connects `pool_size` connections to `url` (all of them now: a bad URL fails here); the
// error says "cannot connect to PostgreSQL" and libpq's reason.
Result<std::unique_ptr<Db>> open_postgres_db(const std::string& url, int pool_size);

// `?` to `$1`, `$2`, ... and `?N` to `$N`, outside string literals and quoted names.
std::string numbered_placeholders(std::string_view sql);

}  // namespace ridge::store
