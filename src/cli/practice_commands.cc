#include "cli/practice_commands.h"

#include <sodium.h>

#include <cstdlib>
#include <ctime>

#include "account/security.h"
#include "practice/drills.h"
#include "store/store.h"

namespace ridge::cli {

namespace {

// --db URL, or $RIDGE_DB, or sqlite:ridge.db; the rest of the words in `rest`.
std::string take_db(const std::vector<std::string>& args, std::vector<std::string>& rest) {
  std::string db;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--db" && i + 1 < args.size()) {
      db = args[++i];
    } else if (args[i].rfind("--db=", 0) == 0) {
      db = args[i].substr(5);
    } else {
      rest.push_back(args[i]);
    }
  }
  if (db.empty()) {
    const char* env = std::getenv("RIDGE_DB");
    db = env && *env ? env : "sqlite:ridge.db";
  }
  return db;
}

}  // namespace

int run_user(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<std::string> rest;
  std::string db = take_db(args, rest);
  const char* usage = "Usage: ridge user add EMAIL | list | remove EMAIL [--db URL]\n"
                      "add reads the password from standard input (one line).\n";
  if (rest.empty() || rest[0] == "--help") {
    (rest.empty() ? err : out) << usage;
    return rest.empty() ? 2 : 0;
  }
  auto opened = store::open_store(db);
  if (!opened.ok()) {
    err << "ridge user: " << opened.error().message << "\n";
    return 1;
  }
  store::Store& s = **opened;
  const std::string& verb = rest[0];
  if (verb == "list") {
    auto users = s.list_users();
    if (!users.ok()) {
      err << "ridge user: " << users.error().message << "\n";
      return 1;
    }
    for (const auto& u : *users) out << u.id << "\t" << u.email << "\t" << u.created_at << "\n";
    return 0;
  }
  if ((verb == "add" || verb == "remove") && rest.size() != 2) {
    err << "ridge user " << verb << ": give one EMAIL\n" << usage;
    return 2;
  }
  if (verb == "add") {
    std::string email = rest[1], password;
    if (auto why = account::check_email(email); !why.empty()) {
      err << "ridge user add: email '" << email << "' " << why << "\n";
      return 2;
    }
    std::getline(in, password);
    if (auto why = account::check_password(password); !why.empty()) {
      err << "ridge user add: the password " << why << "\n";
      return 2;
    }
    auto id = s.create_user(email, account::hash_password(password), static_cast<int64_t>(std::time(nullptr)));
    if (!id.ok()) {
      err << "ridge user add: " << (id.error().conflict ? "'" + email + "' is already registered" : id.error().message) << "\n";
      return 1;
    }
    out << "added " << email << " (id " << *id << ")\n";
    return 0;
  }
  if (verb == "remove") {
    auto user = s.find_user_by_email(rest[1]);
    if (!user.ok() || !user->has_value()) {
      err << "ridge user remove: no user '" << rest[1] << "'\n";
      return 1;
    }
    auto done = s.delete_user((*user)->id);
    if (!done.ok()) {
      err << "ridge user remove: " << done.error().message << "\n";
      return 1;
    }
    out << "removed " << rest[1] << " and everything that was theirs\n";
    return 0;
  }
  err << "ridge user: '" << verb << "' is not a verb; accepted: add, list, remove\n";
  return 2;
}

int run_drill(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog,
              std::istream& in, std::ostream& out, std::ostream& err) {
  std::string topic;
  uint64_t seed = 0;
  int count = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--topic" && i + 1 < args.size()) {
      topic = args[++i];
    } else if (args[i] == "--seed" && i + 1 < args.size()) {
      seed = std::strtoull(args[++i].c_str(), nullptr, 10);
    } else if (args[i] == "--count" && i + 1 < args.size()) {
      count = std::max(1, std::atoi(args[++i].c_str()));
    } else {
      err << "ridge drill: '" << args[i] << "' is not a flag; accepted: --topic T, --seed N, --count N\n";
      return 2;
    }
  }
  auto topics = practice::drill_topics();
  if (!topic.empty() && std::find(topics.begin(), topics.end(), topic) == topics.end()) {
    std::string list;
    for (const auto& t : topics) list += (list.empty() ? "" : ", ") + t;
    err << "ridge drill: --topic '" << topic << "' has no drills; accepted: " << list << "\n";
    return 2;
  }
  if (seed == 0) {
    account::init_crypto();
    randombytes_buf(&seed, sizeof seed);
    seed %= 1000000000ull;
  }
  int right = 0;
  for (int i = 0; i < count; ++i) {
    auto d = practice::make_drill(seed + static_cast<uint64_t>(i), topic, registry, catalog);
    if (!d) {
      err << "ridge drill: could not make a drill\n";
      return 1;
    }
    out << "\n" << d->prompt << "\n(" << d->unit_hint << "; within 10% counts; seed " << d->seed << ")\n> " << std::flush;
    // An answer that cannot be read is not a wrong answer: say what is accepted and ask again.
    std::string answer;
    practice::Graded g;
    bool answered = false;
    while (std::getline(in, answer)) {
      g = practice::grade_drill(*d, answer);
      if (g.message.empty()) {
        answered = true;
        break;
      }
      out << "Could not read '" << answer << "': " << g.message << ". Try again:\n> " << std::flush;
    }
    if (!answered) {
      count = i;  // input ended: score what was answered
      break;
    }
    right += g.correct;
    out << (g.correct ? "Correct" : "Not within 10%") << ": the engine says " << calc::format_quantity(g.expected, d->unit)
        << " (you: " << calc::format_quantity(g.given, d->unit) << ")\n";
    out << "\n" << calc::render_text(d->answer);
  }
  out << "\n" << right << " of " << count << " right\n";
  return 0;
}

}  // namespace ridge::cli
