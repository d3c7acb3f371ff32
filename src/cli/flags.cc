#include "cli/flags.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "account/security.h"

namespace ridge::cli::flags {
namespace {

// A value as a message quotes it: at most 80 characters, so a pasted file cannot flood the
// terminal.
std::string quote_value(const std::string& value) {
  return "'" + (value.size() > 80 ? value.substr(0, 80) + "..." : value) + "'";
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

// The deepest subcommand that was parsed: the command a message is about.
const CLI::App* command_of(const CLI::App* app) {
  while (true) {
    auto parsed = app->get_subcommands();
    if (parsed.empty()) return app;
    app = parsed.back();
  }
}

std::string command_name(const CLI::App* app) {
  std::string name;
  for (; app != nullptr; app = app->get_parent()) name = app->get_name() + (name.empty() ? "" : " " + name);
  return name;
}

std::string subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());  // `ridge help` is hidden
  }
  return join(names);
}

}  // namespace

CLI::Validator whole_number(long long min, long long max, const std::string& note) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max) + (note.empty() ? "" : " " + note);
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        long long n = 0;
        const char* end = value.data() + value.size();
        auto [ptr, ec] = std::from_chars(value.data(), end, n);
        if (value.empty() || ec == std::errc::invalid_argument || (ec == std::errc() && ptr != end)) {
          return quote_value(value) + " is not a whole number; accepted: " + range;
        }
        if (ec == std::errc::result_out_of_range || n < min || n > max) return quote_value(value) + " is out of range; accepted: " + range;
        return "";
      },
      std::to_string(min) + ".." + std::to_string(max));
}

CLI::Validator positive_number(double max) {
  std::ostringstream limit;
  limit << max;
  return CLI::Validator(
      [max, at_most = limit.str()](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || end == nullptr || *end != '\0' || !(v > 0) || v > max) {
          return quote_value(value) + " is not accepted; give a number above 0 and at most " + at_most;
        }
        return "";
      },
      "(0, " + limit.str() + "]");
}

CLI::Validator one_of(const std::vector<std::string>& accepted, const std::string& what) {
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        for (const auto& a : accepted) {
          if (value == a) return "";
        }
        return quote_value(value) + " is not " + what + "; accepted: " + join(accepted);
      },
      "{" + join(accepted) + "}");
}

CLI::Validator directory() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_directory(value, ec)) return "";
        return quote_value(value) + " is not a directory; accepted: an existing directory";
      },
      "DIR");
}

CLI::Validator database_url() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.rfind("sqlite:", 0) == 0 && value.size() > 7) return "";
        if (value.rfind("postgresql://", 0) == 0 || value.rfind("postgres://", 0) == 0) return "";
        return quote_value(value) + " is not a database URL; accepted: sqlite:PATH, postgresql://...";
      },
      "URL");
}

CLI::Validator email() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string why = account::check_email(value);
        return why.empty() ? "" : quote_value(value) + " " + why;
      },
      "EMAIL");
}

CLI::Option* add_db(CLI::App& app, std::string& db) {
  return app.add_option("--db", db, "the database: sqlite:PATH or postgresql://user@host:port/db")
      ->envname("RIDGE_DB")
      ->check(database_url());
}

void configure(CLI::App& app) {
  app.option_defaults()->always_capture_default()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.failure_message(failure_message);
}

std::string flag_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->get_positional()) names.push_back(opt->get_name());
  }
  // Flags that a subcommand passes up to its parent (--data, --db) are accepted too.
  for (const CLI::App* up = app.get_parent(); app.get_fallthrough() && up != nullptr; up = up->get_parent()) {
    for (const CLI::Option* opt : up->get_options()) {
      if (!opt->get_positional() && opt->get_name() != "--help") names.push_back(opt->get_name());
    }
    if (!up->get_fallthrough()) break;
  }
  return join(names);
}

std::string failure_message(const CLI::App* root, const CLI::Error& e) {
  const CLI::App* app = command_of(root);
  const std::string name = command_name(app);
  std::string message = e.what();
  if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) {
    // "--port: 'x' is not a port" -> "--port 'x' is not a port"
    if (auto colon = message.find(": '"); colon != std::string::npos) message.erase(colon, 1);
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // A word a subcommand does not know passes up to the root (fallthrough), so the root holds
    // them all, in order (CLI11's own message lists them reversed).
    const auto words = root->remaining(true);
    if (!words.empty()) message = quote_value(words.front()) + " is not expected";
    message += app->get_subcommands([](const CLI::App*) { return true; }).empty()
                   ? "; accepted: " + flag_names(*app)
                   : "; accepted: " + subcommand_names(*app) + " (or " + flag_names(*app) + ")";
  } else if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && message.rfind("A subcommand", 0) == 0) {
    const auto words = root->remaining(true);
    message = (words.empty() ? std::string("a command is required") : quote_value(words.front()) + " is not a command") +
              "; accepted: " + subcommand_names(*app);
  }
  return name + ": " + message + "\n" + "Run `" + name + " --help` for the flags and their defaults.\n";
}

}  // namespace ridge::cli::flags
