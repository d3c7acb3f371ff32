#include "cli/export_command.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>

#include "bank/loader.h"
#include "cli/bank_commands.h"
#include "cli/flags.h"
#include "cli/serve_command.h"
#include "web/assets.h"
#include "web/export/anki.h"
#include "web/export/site_export.h"

namespace ridge::cli {
namespace fs = std::filesystem;


CLI::App* add_export(CLI::App& parent, ExportFlags& f) {
  CLI::App* e = parent.add_subcommand("export", "take it with you: an Anki deck, or the site as static files");
  e->require_subcommand(1);
  f.anki = e->add_subcommand("anki", "an Anki text-import file (GUIDs per question: a re-import updates)");
  f.anki->add_option("--deck", f.deck, "topic:ID, track:ID or course:ID")->required();
  f.anki->add_option("--out", f.out, "the file to write (default: standard output)");
  f.anki->add_flag("--include-paid", f.include_paid, "include paid answers (the operator's choice)");
  f.anki->add_option("--content", f.content, "the content directory")->check(flags::directory());
  f.site = e->add_subcommand("site", "every public page, the stylesheet, scripts and diagrams, with relative links");
  f.site->add_option("DIR", f.dir, "where to write (created if missing)")->required();
  f.site->add_flag("--include-paid", f.include_paid, "include paid answers (the operator's choice)");
  f.site->add_option("--content", f.content, "the content directory")->check(flags::directory());
  f.site->add_option("--static", f.static_dir, "the stylesheet and scripts (default web/static)")->check(flags::directory());
  for (CLI::App* sub : {f.anki, f.site}) sub->fallthrough();
  return e;
}

int run_export(const ExportFlags& f, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
               std::ostream& err) {
  bank::LoadOptions options;
  options.lint = false;
  bank::LoadResult loaded = bank::load_bank(f.content.empty() ? default_content_dir() : f.content, registry, catalog, options);
  if (!loaded.errors.empty()) {
    err << "ridge export: the bank does not load (" << loaded.errors.size() << " errors; run ridge check)\n";
    return 1;
  }
  const bank::Bank& bank = loaded.bank;
  if (f.anki->parsed()) {
    auto deck = web::exports::parse_deck(f.deck, bank);
    if (!deck || deck->personal()) {
      err << "ridge export anki: --deck '" << f.deck << "' is not a deck; accepted: "
          << (deck ? "topic:ID, track:ID, course:ID (bookmarks and due are an account's: GET /export/anki with a session)"
                   : deck.errors().front().accepted)
          << "\n";
      return 2;
    }
    std::ofstream file;
    if (!f.out.empty()) {
      file.open(f.out, std::ios::binary | std::ios::trunc);
      if (!file) {
        err << "ridge export anki: --out '" << f.out << "' cannot be written\n";
        return 1;
      }
    }
    std::ostream& to = f.out.empty() ? out : file;
    // Streamed: each note is written as soon as it is made.
    auto written = web::exports::write_anki(web::exports::deck_questions(*deck, bank), web::exports::deck_title(*deck, bank),
                                            f.include_paid,
                                            [&](const bank::Question& q) { return bank::answer_html(q, registry, catalog); },
                                            [&to](std::string_view part) { to << part; });
    to.flush();
    if (!to) {
      err << "ridge export anki: writing failed\n";
      return 1;
    }
    err << "ridge export anki: " << written.notes << " notes";
    if (written.left_out > 0) err << "; " << written.left_out << " paid questions left out (--include-paid adds them)";
    err << "\n";
    return 0;
  }
  const std::string static_dir = f.static_dir.empty() ? default_static_dir() : f.static_dir;
  web::Assets assets(static_dir);
  web::Site site{bank, catalog, registry, assets};
  web::AppOptions app_options;
  auto report = web::exports::export_site(site, app_options, static_dir, f.dir,
                                          f.include_paid);
  if (!report) {
    err << "ridge export site: " << calc::to_string(report.errors());
    return 1;
  }
  out << "ridge export site: " << report->pages << " pages, " << report->assets << " assets, " << report->diagrams
      << " diagrams in " << f.dir;
  if (report->paid_locked > 0) out << "; " << report->paid_locked << " paid answers left out (--include-paid adds them)";
  out << "\n";
  return 0;
}

}  // namespace ridge::cli
