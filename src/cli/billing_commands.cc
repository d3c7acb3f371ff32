#include "cli/billing_commands.h"

#include <cstdlib>
#include <ctime>

#include "billing/billing.h"
#include "store/store.h"

namespace ridge::cli {
namespace {

struct Args {
  std::string db, email, months = "6";
  std::vector<std::string> unknown;
};

Args parse(const std::vector<std::string>& args) {
  Args a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& w = args[i];
    if ((w == "--db" || w == "--months") && i + 1 < args.size()) {
      (w == "--db" ? a.db : a.months) = args[++i];
    } else if (w.rfind("--db=", 0) == 0) {
      a.db = w.substr(5);
    } else if (w.rfind("--months=", 0) == 0) {
      a.months = w.substr(9);
    } else if (w.rfind("--", 0) != 0 && a.email.empty()) {
      a.email = w;
    } else {
      a.unknown.push_back(w);
    }
  }
  if (a.db.empty()) {
    const char* env = std::getenv("RIDGE_DB");
    a.db = env && *env ? env : "sqlite:ridge.db";
  }
  for (auto& c : a.email) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a;
}

// Opens the store and finds the user; prints why not.
std::unique_ptr<store::Store> open_for(const Args& a, const char* cmd, std::ostream& err, int64_t& user_id) {
  auto opened = store::open_store(a.db);
  if (!opened.ok()) {
    err << "ridge " << cmd << ": " << opened.error().message << "\n";
    return nullptr;
  }
  auto s = std::move(opened).value();
  auto user = s->find_user_by_email(a.email);
  if (!user.ok()) {
    err << "ridge " << cmd << ": " << user.error().message << "\n";
    return nullptr;
  }
  if (!user->has_value()) {
    err << "ridge " << cmd << ": no user '" << a.email << "' (create one with `ridge user add`)\n";
    return nullptr;
  }
  user_id = (*user)->id;
  return s;
}

}  // namespace

int run_grant(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const char* usage = "Usage: ridge grant EMAIL [--months N] [--db URL]\nAdds N months (default 6) from the later of now and the current end.\n";
  Args a = parse(args);
  if (a.email.empty() || !a.unknown.empty()) {
    if (!a.unknown.empty()) err << "ridge grant: '" << a.unknown[0] << "' is not an argument\n";
    err << usage;
    return 2;
  }
  char* end = nullptr;
  long months = std::strtol(a.months.c_str(), &end, 10);
  if (a.months.empty() || *end != 0 || months < 1 || months > 120) {
    err << "ridge grant: --months '" << a.months << "' is out of range; accepted: 1 to 120\n";
    return 2;
  }
  int64_t user_id = 0;
  auto s = open_for(a, "grant", err, user_id);
  if (!s) return 1;
  auto until = s->grant(user_id, static_cast<int>(months), static_cast<int64_t>(std::time(nullptr)));
  if (!until.ok()) {
    err << "ridge grant: " << until.error().message << "\n";
    return 1;
  }
  out << a.email << " has access until " << billing::rfc3339(*until) << "\n";
  return 0;
}

int run_revoke(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Args a = parse(args);
  if (a.email.empty() || !a.unknown.empty() || a.months != "6") {
    err << "Usage: ridge revoke EMAIL [--db URL]\n";
    return 2;
  }
  int64_t user_id = 0;
  auto s = open_for(a, "revoke", err, user_id);
  if (!s) return 1;
  auto done = s->revoke(user_id);
  if (!done.ok()) {
    err << "ridge revoke: " << done.error().message << "\n";
    return 1;
  }
  out << a.email << " has no paid access now\n";
  return 0;
}

}  // namespace ridge::cli
