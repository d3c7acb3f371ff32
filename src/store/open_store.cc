#include "store/postgres_store.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace ridge::store {

Result<std::unique_ptr<Store>> open_store(const std::string& url) {
  if (url.rfind("sqlite:", 0) == 0) {
    std::string path = url.substr(7);
    if (path.empty()) return StoreError{"--db 'sqlite:' needs a path; accepted: sqlite:PATH, postgresql://..."};
    return open_sqlite(path);
  }
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return open_postgres(url);
  return StoreError{"--db '" + url + "' is not a database URL; accepted: sqlite:PATH, postgresql://..."};
}

}  // namespace ridge::store
