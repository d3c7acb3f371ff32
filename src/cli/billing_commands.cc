#include "cli/billing_commands.h"

#include <cstdlib>
#include <ctime>

#include "billing/billing.h"
#include "cli/flags.h"
#include "store/store.h"

namespace ridge::cli {
namespace {

// Addresses are stored lower-case.
std::string lowercase(std::string email) {
  for (auto& c : email) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return email;
}

// Opens the store and finds the user; prints why not.
std::unique_ptr<store::Store> open_for(const GrantFlags& a, const char* cmd, std::ostream& err, int64_t& user_id) {
  auto opened = store::open_store(a.db);
  if (!opened.ok()) {
    err << "ridge " << cmd << ": " << opened.error().detail << "\n";
    return nullptr;
  }
  auto s = std::move(opened).value();
  auto user = s->find_user_by_email(lowercase(a.email));
  if (!user.ok()) {
    err << "ridge " << cmd << ": " << user.error().detail << "\n";
    return nullptr;
  }
  if (!user->has_value()) {
    err << "ridge " << cmd << ": no user '" << lowercase(a.email) << "' (create one with `ridge user add`)\n";
    return nullptr;
  }
  user_id = (*user)->id;
  return s;
}

}  // namespace

CLI::App* add_grant(CLI::App& parent, GrantFlags& f) {
  CLI::App* grant = parent.add_subcommand("grant", "paid access for N months from the later of now and its end");
  grant->add_option("EMAIL", f.email, "the account's address")->required();
  grant->add_option("--months", f.months, "months of access to add")->check(flags::whole_number(1, 120));
  flags::add_db(*grant, f.db);
  return grant;
}

CLI::App* add_revoke(CLI::App& parent, GrantFlags& f) {
  CLI::App* revoke = parent.add_subcommand("revoke", "end a user's paid access now");
  revoke->add_option("EMAIL", f.email, "the account's address")->required();
  flags::add_db(*revoke, f.db);
  return revoke;
}

int run_grant(const GrantFlags& a, std::ostream& out, std::ostream& err) {
  int64_t user_id = 0;
  auto s = open_for(a, "grant", err, user_id);
  if (!s) return 1;
  auto until = s->grant(user_id, a.months, static_cast<int64_t>(std::time(nullptr)));
  if (!until.ok()) {
    err << "ridge grant: " << until.error().detail << "\n";
    return 1;
  }
  out << lowercase(a.email) << " has access until " << billing::rfc3339(*until) << "\n";
  return 0;
}

int run_revoke(const GrantFlags& a, std::ostream& out, std::ostream& err) {
  int64_t user_id = 0;
  auto s = open_for(a, "revoke", err, user_id);
  if (!s) return 1;
  auto done = s->revoke(user_id);
  if (!done.ok()) {
    err << "ridge revoke: " << done.error().detail << "\n";
    return 1;
  }
  out << lowercase(a.email) << " has no paid access now\n";
  return 0;
}

}  // namespace ridge::cli
