// `ridge grant EMAIL [--months N]` and `ridge revoke EMAIL`: paid access by hand, for
// operators (and the only way in on a grant-only site).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ridge::cli {

struct GrantFlags {
  std::string email;  // any case: addresses are stored lower-case
  int months = 6;     // grant only
  std::string db = "sqlite:ridge.db";
};

// Add `grant` and `revoke` to `parent`, their flags bound to `flags` (each its own; they
// must outlive the parse).
CLI::App* add_grant(CLI::App& parent, GrantFlags& flags);
CLI::App* add_revoke(CLI::App& parent, GrantFlags& flags);

// 0 done; 1 when the store fails or no user has the address (said on `err`).
int run_grant(const GrantFlags& flags, std::ostream& out, std::ostream& err);
int run_revoke(const GrantFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
