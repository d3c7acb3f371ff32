// The schema, as numbered migrations written once for both dialects: `{ID}`, `{BIGINT}`,
// `{REAL}`, `{BOOL}` and `{ADD_ACCOUNT_ID}` stand for what Dialect::Schema spells per
// dialect (the only places the two schemas differ). A migration never changes once
// released: add a new one.
#pragma once

#include <string>
#include <vector>

#include "store/db.h"

namespace ridge::store {

struct Migration {
  int version;
  const char* sql;  // several statements, with the placeholders above
};

const std::vector<Migration>& migrations();

// A migration's statements for one dialect.
std::string render(const Migration& m, const Dialect::Schema& schema);

// Applies, in order, every migration up to `up_to_version` that `db` has not recorded in
// schema_migrations, each in its own transaction with its record (a failed one leaves no
// trace); the first failure is the answer, naming the version. Safe against processes
// migrating the same database at once (Dialect::migration_lock).
Result<Done> migrate(Db& db, int up_to_version);

}  // namespace ridge::store
