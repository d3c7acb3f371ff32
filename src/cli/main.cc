// ridge: the command line. The fixed commands' flags are declared with CLI11 in their own
// files (add_serve, add_lab, ...) and checked by validators there; `ridge calc` keeps the
// flags its registry generates, so it gets its words unparsed. Exceptions are caught here,
// once: a parse error becomes its message and exit code 2, anything else exit code 70.
#include <CLI/CLI.hpp>

#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "calc_io/load_catalog.h"
#include "cli/bank_commands.h"
#include "cli/billing_commands.h"
#include "cli/calc_command.h"
#include "cli/export_command.h"
#include "cli/design_command.h"
#include "cli/flags.h"
#include "cli/lab_command.h"
#include "cli/mail_commands.h"
#include "cli/practice_commands.h"
#include "cli/serve_command.h"
#include "cli/validate_command.h"
#include "cli/work_command.h"

namespace {

const char* kFooter =
    "Examples:\n"
    "  ridge calc --list                 list the calculators\n"
    "  ridge calc NAME --help            a calculator's flags, units and ranges\n"
    "  ridge calc NAME [flags] [--json]  work the numbers\n"
    "  ridge calc --list-gpus | --list-models\n"
    "  ridge serve --port 8080 --db sqlite:ridge.db\n"
    "  ridge COMMAND --help              a command's flags and their defaults\n"
    "Exit status: 0 ok, 1 the work failed, 2 a bad flag or value (named, with what is accepted).";

// `ridge calc`'s words, with --data DIR taken out: it is ridge's, and was always accepted
// anywhere on the line.
std::vector<std::string> take_data(std::vector<std::string> words, std::filesystem::path& data_dir) {
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--data" && i + 1 < words.size()) {
      data_dir = words[i + 1];
      words.erase(words.begin() + static_cast<long>(i), words.begin() + static_cast<long>(i) + 2);
      break;
    }
    if (words[i].rfind("--data=", 0) == 0) {
      data_dir = words[i].substr(7);
      words.erase(words.begin() + static_cast<long>(i));
      break;
    }
  }
  return words;
}

int run(int argc, char** argv) {
  using namespace ridge::cli;
  CLI::App app("ridge: preparation for AI infrastructure interviews, with the numbers worked out", "ridge");
  flags::configure(app);
  app.require_subcommand(1);  // also keeps a command's words (`ridge calc serve`) from naming another command
  std::string data_dir;
  app.add_option("--data", data_dir, "the catalogs (default $RIDGE_DATA or ./data)")->check(flags::directory());

  // `ridge help` as before: the same as --help.
  CLI::App* help = app.add_subcommand("help", "")->group("");
  CLI::App* calc = app.add_subcommand("calc", "work the numbers: ridge calc --list, ridge calc NAME --help");
  calc->prefix_command()->allow_extras()->fallthrough(false);
  calc->set_help_flag();  // `ridge calc NAME --help` is the calculator's
  CheckFlags check_flags;
  CLI::App* check = add_check(app, check_flags);
  ShowFlags show_flags;
  CLI::App* show = add_show(app, show_flags);
  ServeFlags serve_flags;
  CLI::App* serve = add_serve(app, serve_flags);
  LabFlags lab_flags;
  CLI::App* lab = add_lab(app, lab_flags);
  ValidateFlags validate_flags;
  CLI::App* validate = add_validate(app, validate_flags);
  DrillFlags drill_flags;
  CLI::App* drill = add_drill(app, drill_flags);
  UserFlags user_flags;
  CLI::App* user = add_user(app, user_flags);
  GrantFlags grant_flags, revoke_flags;
  CLI::App* grant = add_grant(app, grant_flags);
  CLI::App* revoke = add_revoke(app, revoke_flags);
  MailFlags mail_flags;
  CLI::App* mail = add_mail(app, mail_flags);
  ExportFlags export_flags;  // issue 37
  CLI::App* exporter = add_export(app, export_flags);
  WorkFlags work_flags;  // Work it (issue 34)
  CLI::App* work = add_work(app, work_flags);
  DesignFlags design_flags;  // design rounds (issue 35)
  CLI::App* design = add_design(app, design_flags);
  design->fallthrough();
  app.footer(kFooter);  // after the subcommands, which would inherit it
  // --data may come after the command too (`ridge validate --data DIR`), as it always could.
  for (CLI::App* sub : {check, show, serve, lab, validate, drill, user, grant, revoke, mail, exporter, work}) sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // --help prints and is 0; an error prints failure_message
    return rc == 0 ? 0 : 2;
  }

  if (help->parsed()) {
    std::cout << app.help();
    return 0;
  }
  std::filesystem::path data = data_dir;
  std::vector<std::string> calc_words = take_data(calc->remaining(), data);
  if (data.empty()) data = ridge::calc_io::default_data_dir();
  if (serve->parsed()) return run_serve(serve_flags, data.string());
  if (lab->parsed()) return run_lab(lab_flags, std::cout, std::cerr);
  if (user->parsed()) return run_user(user_flags, std::cin, std::cout, std::cerr);
  if (grant->parsed()) return run_grant(grant_flags, std::cout, std::cerr);
  if (revoke->parsed()) return run_revoke(revoke_flags, std::cout, std::cerr);

  // The rest need the catalogs.
  auto catalog = ridge::calc_io::load_catalog(data);
  if (!catalog) {
    std::cerr << "ridge: cannot load the catalogs in " << data << ":\n" << ridge::calc::to_string(catalog.errors());
    return 1;
  }
  const auto registry = ridge::calc::make_builtin_registry();
  if (calc->parsed()) return run_calc(calc_words, registry, *catalog, std::cout, std::cerr);
  if (validate->parsed()) {
    return run_validate(validate_flags, registry, *catalog, (data / "published-runs.toml").string(), std::cout, std::cerr);
  }
  if (design->parsed()) {
    return run_design(design_flags, registry, *catalog, (data / "published-runs.toml").string(), std::cout, std::cerr);
  }
  if (check->parsed()) return run_check(check_flags, registry, *catalog, std::cout, std::cerr);
  if (show->parsed()) return run_show(show_flags, registry, *catalog, std::cout, std::cerr);
  if (mail->parsed()) return run_mail(mail_flags, registry, *catalog, std::cout, std::cerr);
  if (exporter->parsed()) return run_export(export_flags, registry, *catalog, std::cout, std::cerr);
  if (work->parsed()) return run_work(work_flags, registry, *catalog, std::cin, std::cout, std::cerr);
  if (drill->parsed()) return run_drill(drill_flags, registry, *catalog, std::cin, std::cout, std::cerr);
  std::cerr << "ridge: no command ran\n";  // require_subcommand(1) leaves none unhandled
  return 70;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ridge: internal error: " << e.what() << "\n";
    return 70;
  }
}
