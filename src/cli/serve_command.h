// `ridge serve`: loads the catalogs and the bank, renders the pages, and serves them.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ridge::cli {

// The flags of `ridge serve`, each also from the environment (RIDGE_PORT, ...). Empty strings
// mean "the default" where the default is found at run time (content, static, mail dir).
struct ServeFlags {
  int port = 8080;
  std::string bind = "127.0.0.1";
  std::string content;
  std::string db = "sqlite:ridge.db";
  int threads = 0;  // 0: one per core
  std::string io = "per-thread";
  std::string static_dir;
  std::vector<std::string> trusted_proxies;  // CIDR blocks; empty items are skipped
  std::string mail_dir;
  std::string metrics_bind;  // ADDR:PORT, or empty for /metrics on the main listener
  std::string log_format = "text";
  std::string access_log = "on";
  std::string quick_path = "on";  // web/quick_request.h; off: every request takes the full path
  int page_cache_mb = 64;  // question pages rendered on first request are kept up to this (issue 30)
  // Render and check every question's body before listening, refusing a broken one (the
  // default renders a body on its first request; a broken one answers 500 then).
  bool strict_bank = false;
};

// Adds `serve` to `parent`, its flags bound to `flags` (which must outlive the parse) and
// checked by validators. Returns the subcommand (owned by `parent`).
CLI::App* add_serve(CLI::App& parent, ServeFlags& flags);
// The stylesheet and scripts: $RIDGE_STATIC, ./web/static, or the source tree\'s (serve and export).
std::string default_static_dir();

// Serves until SIGINT or SIGTERM. `flags` were checked at parse time. Returns 0 after a clean
// stop, 1 when the store, the catalogs, the bank or the listener fail, 2 on a bad environment
// (billing, mail); prints why to stderr. Nothing throws out.
int run_serve(const ServeFlags& flags, const std::string& data_dir);

}  // namespace ridge::cli
