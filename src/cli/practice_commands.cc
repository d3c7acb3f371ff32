#include "cli/practice_commands.h"

#include <sodium.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "account/security.h"
#include "cli/flags.h"
#include "practice/drills.h"
#include "store/store.h"

namespace ridge::cli {

CLI::App* add_user(CLI::App& parent, UserFlags& f) {
  CLI::App* user = parent.add_subcommand("user", "accounts, for operators");
  user->require_subcommand(1);
  flags::add_db(*user, f.db);
  CLI::App* add = user->add_subcommand("add", "add an account; the password is read from standard input (one line)");
  add->add_option("EMAIL", f.email, "the account's address")->required()->check(flags::email());
  CLI::App* list = user->add_subcommand("list", "every account: id, address, created (unix seconds)");
  CLI::App* remove = user->add_subcommand("remove", "remove an account and everything that was theirs");
  remove->add_option("EMAIL", f.email, "the account's address")->required();
  for (CLI::App* verb : {add, list, remove}) {
    flags::add_db(*verb, f.db);
    verb->callback([&f, verb] { f.verb = verb->get_name(); });
  }
  return user;
}

int run_user(const UserFlags& f, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::string& db = f.db;
  auto opened = store::open_store(db);
  if (!opened.ok()) {
    err << "ridge user: " << opened.error().detail << "\n";
    return 1;
  }
  store::Store& s = **opened;
  const std::string& verb = f.verb;
  if (verb == "list") {
    auto users = s.list_users();
    if (!users.ok()) {
      err << "ridge user: " << users.error().detail << "\n";
      return 1;
    }
    for (const auto& u : *users) out << u.id << "\t" << u.email << "\t" << u.created_at << "\n";
    return 0;
  }
  if (verb == "add") {
    const std::string& email = f.email;  // checked by the flag's validator
    std::string password;
    std::getline(in, password);
    if (auto why = account::check_password(password); !why.empty()) {
      err << "ridge user add: the password " << why << "\n";
      return 2;
    }
    auto id = s.create_user(email, account::hash_password(password), static_cast<int64_t>(std::time(nullptr)));
    if (!id.ok()) {
      err << "ridge user add: " << (id.error().conflict() ? "'" + email + "' is already registered" : id.error().detail) << "\n";
      return 1;
    }
    out << "added " << email << " (id " << *id << ")\n";
    return 0;
  }
  if (verb == "remove") {
    auto user = s.find_user_by_email(f.email);
    if (!user.ok() || !user->has_value()) {
      err << "ridge user remove: no user '" << f.email << "'\n";
      return 1;
    }
    auto done = s.delete_user((*user)->id);
    if (!done.ok()) {
      err << "ridge user remove: " << done.error().detail << "\n";
      return 1;
    }
    out << "removed " << f.email << " and everything that was theirs\n";
    return 0;
  }
  err << "ridge user: '" << verb << "' is not a verb; accepted: add, list, remove\n";  // add_user has no other
  return 2;
}

CLI::App* add_drill(CLI::App& parent, DrillFlags& f) {
  CLI::App* drill = parent.add_subcommand("drill", "numeric drills in the terminal, graded within 10%");
  drill->add_option("--topic", f.topic, "drills of one topic (default: any)")->check(
      CLI::Validator(
          [](std::string& topic) -> std::string {
            auto topics = practice::drill_topics();
            if (std::find(topics.begin(), topics.end(), topic) != topics.end()) return "";
            std::string list;
            for (const auto& t : topics) list += (list.empty() ? "" : ", ") + t;
            return "'" + topic.substr(0, 80) + "' has no drills; accepted: " + list;
          },
          "TOPIC"));
  drill->add_option("--seed", f.seed, "the first drill's seed, to repeat a drill (0: random)")
      ->check(flags::whole_number(0, 999999999999999999LL, "(0: random)"));
  drill->add_option("--count", f.count, "how many drills")->check(flags::whole_number(1, 10000));
  return drill;
}

int run_drill(const DrillFlags& f, const calc::Registry& registry, const calc::Catalog& catalog, std::istream& in,
              std::ostream& out, std::ostream& err) {
  const std::string& topic = f.topic;  // checked by the flag's validator
  uint64_t seed = f.seed;
  int count = f.count;
  if (seed == 0) {
    account::init_crypto();
    randombytes_buf(&seed, sizeof seed);
    seed %= 1000000000ull;
  }
  int right = 0;
  for (int i = 0; i < count; ++i) {
    // The next drill starts from the seed after the last one's (a topic may have moved it on).
    auto d = practice::make_drill(seed, topic, registry, catalog);
    if (!d) {
      err << "ridge drill: could not make a drill\n";
      return 1;
    }
    seed = d->seed + 1;
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
