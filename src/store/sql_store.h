// The Store over any Db (db.h): every method written once, with `?` placeholders; what the
// dialects spell differently comes from db.dialect().
#pragma once

#include <memory>

#include "store/db.h"
#include "store/store.h"

namespace ridge::store {

// Takes `db`, applies the migrations up to `up_to_version` that it has not recorded (each
// in its own transaction, in order; see migrations.h) and answers the store, or the first
// migration's error.
Result<std::unique_ptr<Store>> open_sql_store(std::unique_ptr<Db> db, int up_to_version);

}  // namespace ridge::store
