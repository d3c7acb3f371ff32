// ridge: the command line. Subcommands dispatch to their own files; exceptions are
// caught here, once, and turned into an exit code with a message.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "calc_io/load_catalog.h"
#include "cli/bank_commands.h"
#include "cli/billing_commands.h"
#include "cli/calc_command.h"
#include "cli/lab_command.h"
#include "cli/mail_commands.h"
#include "cli/practice_commands.h"
#include "cli/serve_command.h"
#include "cli/validate_command.h"

namespace {

const char* kUsage =
    "ridge: preparation for AI infrastructure interviews, with the numbers worked out\n\n"
    "Usage:\n"
    "  ridge calc --list                 list the calculators\n"
    "  ridge calc NAME --help            a calculator's flags, units and ranges\n"
    "  ridge calc NAME [flags] [--json]  work the numbers\n"
    "  ridge calc --list-gpus | --list-models\n"
    "  ridge check [DIR] [--run-snippets]  prove every number, snippet and sentence of the bank\n"
    "  ridge show SLUG                   one question in the terminal, numbers worked\n"
    "  ridge serve [--port 8080] ...     the website and the JSON API (ridge serve --help)\n"
    "  ridge lab list|test|measure       reference builds for the coding questions\n"
    "  ridge validate [--json] [--check] the performance model against data/published-runs.toml\n"
    "  ridge drill [--topic T]           numeric drills in the terminal, graded within 10%\n"
    "  ridge user add|list|remove        accounts, for operators (--db URL)\n"
    "  ridge grant EMAIL [--months N]    paid access for N months (default 6) from the later of now and its end\n"
    "  ridge revoke EMAIL                end a user's paid access now\n"
    "  ridge mail weekly|send            the weekly question to subscribers, once per ISO week; deliver the queue\n\n"
    "Global: --data DIR (catalogs; default $RIDGE_DATA or ./data)\n";

int run(std::vector<std::string> args) {
  std::filesystem::path data_dir;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--data" && i + 1 < args.size()) {
      data_dir = args[i + 1];
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
      break;
    }
    if (args[i].rfind("--data=", 0) == 0) {
      data_dir = args[i].substr(7);
      args.erase(args.begin() + static_cast<long>(i));
      break;
    }
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (data_dir.empty()) data_dir = ridge::calc_io::default_data_dir();
  const std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "serve") return ridge::cli::run_serve(rest, data_dir.string());
  if (command == "lab") return ridge::cli::run_lab(rest, std::cout, std::cerr);
  if (command == "user") return ridge::cli::run_user(rest, std::cin, std::cout, std::cerr);
  if (command == "grant") return ridge::cli::run_grant(rest, std::cout, std::cerr);
  if (command == "revoke") return ridge::cli::run_revoke(rest, std::cout, std::cerr);
  if (command == "calc" || command == "validate" || command == "check" || command == "show" || command == "drill" || command == "mail") {
    auto catalog = ridge::calc_io::load_catalog(data_dir);
    if (!catalog) {
      std::cerr << "ridge: cannot load the catalogs in " << data_dir << ":\n" << ridge::calc::to_string(catalog.errors());
      return 1;
    }
    const auto registry = ridge::calc::make_builtin_registry();
    if (command == "validate") {
      return ridge::cli::run_validate(rest, registry, *catalog, (data_dir / "published-runs.toml").string(), std::cout,
                                      std::cerr);
    }
    if (command == "calc") return ridge::cli::run_calc(rest, registry, *catalog, std::cout, std::cerr);
    if (command == "check") return ridge::cli::run_check(rest, registry, *catalog, std::cout, std::cerr);
    if (command == "mail") return ridge::cli::run_mail(rest, registry, *catalog, std::cout, std::cerr);
    if (command == "drill") return ridge::cli::run_drill(rest, registry, *catalog, std::cin, std::cout, std::cerr);
    return ridge::cli::run_show(rest, registry, *catalog, std::cout, std::cerr);
  }
  std::cerr << "ridge: '" << command << "' is not a command\n\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "ridge: internal error: " << e.what() << "\n";
    return 70;
  }
}
