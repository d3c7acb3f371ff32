// The schema, as numbered migrations per backend. A migration never changes once released:
// add a new one. open_store applies the ones a database has not seen, in order, each in
// its own transaction, and records them in schema_migrations.
#pragma once

#include <vector>

namespace ridge::store {

struct Migration {
  int version;
  const char* sql;
};

const std::vector<Migration>& sqlite_migrations();
const std::vector<Migration>& postgres_migrations();

}  // namespace ridge::store
