// The parts every fixed command's flags share, on CLI11 (Debian's libcli11-dev, 2.1.2): the
// validators, the --db flag, the settings of a command's CLI::App, and the one place a parse
// error becomes a message and an exit code.
//
// A validator's message names the value and what is accepted ("'x' is not a port; accepted:
// 0 to 65535"); CLI11 puts the flag's name in front ("--port: 'x' ..."), and failure_message
// joins them into ridge's form: "ridge serve: --port 'x' is not a port; accepted: 0 to 65535".
// Validators never throw; they are pure functions of the value, safe from any thread.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ridge::cli::flags {

// A whole number from `min` to `max` (decimal, no sign unless min < 0). `note` follows the
// range in the message, e.g. "(0 picks a free one)".
CLI::Validator whole_number(long long min, long long max, const std::string& note = "");

// A number (decimal or exponent form) above 0 and at most `max`.
CLI::Validator positive_number(double max);

// One of `accepted`; the message says the value "is not `what`".
CLI::Validator one_of(const std::vector<std::string>& accepted, const std::string& what);

// An existing directory, e.g. a content folder.
CLI::Validator directory();

// sqlite:PATH or postgresql://... (postgres:// too), as store::open_store accepts.
CLI::Validator database_url();

// An address the accounts accept (account::check_email).
CLI::Validator email();

// --db URL on `app`, from $RIDGE_DB when not given, default sqlite:ridge.db.
CLI::Option* add_db(CLI::App& app, std::string& db);

// The settings every ridge command shares: defaults shown in --help, the last of a repeated
// flag wins (as before CLI11), and ridge's failure message. Call before adding options.
void configure(CLI::App& app);

// What a parse error prints, for CLI::App::failure_message: the command's name ("ridge lab
// test"), the message in ridge's form, what is accepted when a flag or a word is unknown, and
// where the help is.
std::string failure_message(const CLI::App* app, const CLI::Error& e);

// The words that name `app`'s flags, for "accepted: --port, --bind, ...".
std::string flag_names(const CLI::App& app);

}  // namespace ridge::cli::flags
