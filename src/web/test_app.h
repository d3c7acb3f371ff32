// Tests only: what the web tests that run the whole App share. A SQLite store in a fresh
// temporary file (its WAL and shared-memory files removed with it), and the App over the real
// content, catalogs and calculators with the options the test chose.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "bank/loader.h"
#include "calc/test_catalog.h"
#include "store/store.h"
#include "web/app.h"
#include "calc/source_dir.h"

namespace ridge::web::testing {

// The file "ridge-NAME-PID.db" in the temporary directory; removes what an earlier run left.
inline std::filesystem::path fresh_database(const std::string& name) {
  auto path = std::filesystem::temp_directory_path() / ("ridge-" + name + "-" + std::to_string(::getpid()) + ".db");
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + s);
  return path;
}
inline void remove_database(const std::filesystem::path& path) {
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + s);
}

// The App on the real bank (loaded without running snippets), as `ridge serve` builds it.
inline std::unique_ptr<App> real_app(const AppOptions& options) {
  auto loaded = bank::load_bank(std::string(ridge::source_dir()) + "/content", calc::testing::registry(),
                                calc::testing::real_catalog(), {false});
  return std::make_unique<App>(std::move(loaded.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
                               Assets(std::string(ridge::source_dir()) + "/web/static"), options);
}

// The bank's first free question and first paid one (for tests of what each visitor gets).
struct FreeAndPaid {
  const bank::Question* free = nullptr;
  const bank::Question* paid = nullptr;
};
inline FreeAndPaid free_and_paid(const bank::Bank& bank) {
  FreeAndPaid out;
  for (const auto& q : bank.questions) {
    if (q.free && out.free == nullptr) out.free = &q;
    if (!q.free && out.paid == nullptr) out.paid = &q;
  }
  return out;
}

}  // namespace ridge::web::testing
