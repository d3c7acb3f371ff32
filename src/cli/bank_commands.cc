#include "cli/bank_commands.h"
#include "practice/work_check.h"
#include "cli/design_command.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "bank/loader.h"
#include "practice/drills.h"
#include "bank/snippets.h"
#include "bank/terminal.h"
#include "cli/flags.h"
#include "calc/source_dir.h"

namespace ridge::cli {
namespace fs = std::filesystem;

std::string default_content_dir() {
  if (const char* env = std::getenv("RIDGE_CONTENT"); env != nullptr && *env != 0) return env;
  std::error_code ec;
  if (fs::exists("content/topics.toml", ec)) return "content";
  return (fs::path(ridge::source_dir()) / "content").string();
}

CLI::App* add_check(CLI::App& parent, CheckFlags& f) {
  CLI::App* check = parent.add_subcommand("check", "prove every number, snippet and sentence of the bank");
  check->footer(
      "Loads the bank strictly: front matter, ids, calc blocks, references, sections, citations,\n"
      "links and prose lint. --run-snippets also builds and runs every snippet (cached by hash).");
  check->add_option("DIR", f.dir, "the content directory (default $RIDGE_CONTENT, ./content or the source tree's)")
      ->check(flags::directory());
  check->add_flag("--run-snippets", f.run_snippets, "build and run every snippet (cached by hash)");
  return check;
}

int run_check(const CheckFlags& f, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
              std::ostream& err) {
  std::string dir = f.dir;
  const bool run_snippets = f.run_snippets;
  if (dir.empty()) dir = default_content_dir();
  auto start = std::chrono::steady_clock::now();
  bank::LoadOptions options;
  options.lint = true;
  options.drill_templates = practice::drill_template_ids();
  // The product's seed pages sit beside the repository in a development checkout
  // (../shared/seeds); RIDGE_SEEDS points elsewhere. No folder, no overlap check.
  if (const char* env = std::getenv("RIDGE_SEEDS"); env != nullptr && *env != 0) {
    options.seeds_dir = env;
  } else {
    std::error_code ec;
    fs::path guess = fs::absolute(dir, ec).parent_path().parent_path() / "shared" / "seeds";
    if (fs::is_directory(guess, ec)) options.seeds_dir = guess.string();
  }
  bank::LoadResult loaded = bank::load_bank(dir, registry, catalog, options);
  auto& errors = loaded.errors;
  // Design challenges (issue 35): loaded, and every reference and common mistake graded.
  if (fs::is_directory(fs::path(dir) / "challenges")) {
    for (const auto& e : check_challenges(design::load_challenges((fs::path(dir) / "challenges").string()), registry, catalog)) {
      errors.push_back({e.field, 0, "'" + e.value + "' " + e.message + "; accepted: " + e.accepted});
    }
  }
  int ran = 0, cached = 0, skipped = 0;
  if (run_snippets) {
    bank::SnippetRunner runner(fs::path(dir).parent_path() / ".cache" / "snippets");
    for (const auto& q : loaded.bank.questions) {
      for (const auto& s : q.snippets) {
        auto outcome = runner.run(s);
        if (outcome.status == bank::SnippetOutcome::kSkipped) {
          ++skipped;
          out << q.file << ":" << s.line << ": skipped: " << outcome.message << "\n";
        } else if (outcome.status == bank::SnippetOutcome::kFailed) {
          errors.push_back({q.file, s.line, "```" + s.language + " " + s.mode + " snippet " + outcome.message});
        } else {
          ++(outcome.cached ? cached : ran);
        }
      }
    }
  }
  // Work it (issue 34): every workable question at 20 seeded draws; an invalid draw fails.
  const practice::WorkCoverage work = practice::check_work(loaded.bank.questions, registry, catalog, 20, errors);
  std::stable_sort(errors.begin(), errors.end(), [](const bank::Diagnostic& a, const bank::Diagnostic& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  for (const auto& d : errors) err << d.to_string() << "\n";
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out << "ridge check: " << loaded.bank.questions.size() << " questions, " << loaded.calc_blocks << " calc blocks, "
      << loaded.snippets << " snippets";
  if (run_snippets) out << " (" << ran << " run, " << cached << " cached, " << skipped << " skipped)";
  else out << " (not run; --run-snippets runs them)";
  out << ": " << errors.size() << " error" << (errors.size() == 1 ? "" : "s") << " in " << static_cast<int>(ms) << " ms\n";
  int with_calc = 0;
  for (const auto& [topic, n] : work.with_calc) with_calc += n;
  out << "work it: " << work.total_workable << " workable of " << with_calc << " questions with calc blocks ("
      << work.marked_not_workable << " marked not workable), 20 draws each:";
  for (const auto& [topic, n] : work.with_calc) {
    auto it = work.workable.find(topic);
    out << " " << topic << " " << (it == work.workable.end() ? 0 : it->second) << "/" << n;
  }
  out << "\n";
  return errors.empty() ? 0 : 1;
}

CLI::App* add_show(CLI::App& parent, ShowFlags& f) {
  CLI::App* show = parent.add_subcommand("show", "one question in the terminal, numbers worked");
  show->add_option("SLUG", f.slug, "the question's slug, as in its URL")->required();
  show->add_option("--content", f.content, "the content directory (default $RIDGE_CONTENT, ./content or the source tree's)")
      ->check(flags::directory());
  return show;
}

int run_show(const ShowFlags& f, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
             std::ostream& err) {
  std::string dir = f.content;
  const std::string& slug = f.slug;
  if (dir.empty()) dir = default_content_dir();
  bank::LoadResult loaded = bank::load_bank(dir, registry, catalog, {/*lint=*/false});
  const bank::Question* q = loaded.bank.find(slug);
  if (q == nullptr) {
    err << "ridge show: no question '" << slug << "'";
    // Suggest the slugs that share a word with what was typed.
    std::string hint;
    int shown = 0;
    for (const auto& other : loaded.bank.questions) {
      if (shown < 8 && (other.slug.find(slug) != std::string::npos || slug.find(other.slug) != std::string::npos)) {
        hint += "\n  " + other.slug;
        ++shown;
      }
    }
    err << (hint.empty() ? "; `ridge show --list` is not a thing yet, see content/questions/" : "; did you mean:" + hint)
        << "\n";
    return 2;
  }
  out << bank::render_terminal(*q);
  return 0;
}

}  // namespace ridge::cli
