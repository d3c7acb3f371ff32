#include "cli/work_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bank/loader.h"
#include "cli/bank_commands.h"
#include "cli/flags.h"
#include "practice/misconceptions.h"
#include "practice/workit.h"

namespace ridge::cli {
namespace {

nlohmann::json exercise_json(const practice::Exercise& ex) {
  nlohmann::json j;
  j["slug"] = ex.slug;
  j["seed"] = ex.seed;
  j["prompt"] = ex.prompt;
  j["tolerance"] = ex.tolerance;
  j["inputs"] = nlohmann::json::array();
  for (const auto& in : ex.inputs) {
    j["inputs"].push_back({{"block", in.block}, {"param", in.param}, {"value", in.drawn}, {"original", in.original}});
  }
  j["steps"] = nlohmann::json::array();
  for (const auto& s : ex.steps) {
    j["steps"].push_back({{"name", s.ref}, {"label", s.label}, {"unit", std::string(calc::unit_symbol(s.unit))}});
  }
  return j;
}

// A step by its ref ("fit.max_sequences") or, when only one step has it, its key.
int step_named(const practice::Exercise& ex, const std::string& name) {
  int found = -1;
  for (size_t i = 0; i < ex.steps.size(); ++i) {
    const std::string& ref = ex.steps[i].ref;
    if (ref == name) return static_cast<int>(i);
    if (ref.substr(ref.find('.') + 1) == name) found = found == -1 ? static_cast<int>(i) : -2;
  }
  return found;
}

nlohmann::json grade_json(const practice::StepGrade& g, const practice::WorkStep& s, const std::string& answer) {
  nlohmann::json j{{"name", s.ref}, {"answer", answer}, {"correct", g.correct}, {"value", s.value},
                   {"unit", std::string(calc::unit_symbol(s.unit))}};
  if (!g.message.empty()) {
    j["error"] = g.message;
  } else {
    j["given"] = g.given;
    j["relative_error"] = g.relative_error;
  }
  if (g.misconception != nullptr) {
    j["misconception"] = {{"id", g.misconception->id},
                          {"title", g.misconception->title},
                          {"concept", "/concepts/" + g.misconception->concept_id}};
  }
  return j;
}

void print_grade(const practice::StepGrade& g, const practice::WorkStep& s, std::ostream& out) {
  if (!g.message.empty()) {
    out << "  could not read that: " << g.message << "\n";
    return;
  }
  out << (g.correct ? "  right: " : "  wrong: ") << "the engine has " << calc::format_quantity(s.value, s.unit) << "\n";
  if (g.misconception != nullptr) {
    out << "  that is the mistake \"" << g.misconception->title << "\" (see /concepts/" << g.misconception->concept_id << ")\n";
  }
}

}  // namespace

CLI::App* add_work(CLI::App& parent, WorkFlags& f) {
  CLI::App* work = parent.add_subcommand("work", "Work it: a question's numbers with new inputs, graded step by step");
  work->add_flag("--list", f.list, "print the workable slugs, one a line");
  work->add_flag("--reasons", f.reasons, "with --list: also the questions with calc blocks that are not, and why");
  work->add_option("SLUG", f.slug, "the question's slug");
  work->add_option("--seed", f.seed, "the draw (the same seed gives the same inputs)")
      ->check(flags::whole_number(0, 999999999999999999LL));
  work->add_option("--answer", f.answers, "NAME=VALUE for a step (NAME: fit.max_sequences or max_sequences)")
      ->expected(1, 64);
  work->add_flag("--json", f.json, "JSON output");
  work->add_option("--content", f.content, "the content directory (default $RIDGE_CONTENT, ./content or the source tree's)")
      ->check(flags::directory());
  return work;
}

int run_work(const WorkFlags& f, const calc::Registry& registry, const calc::Catalog& catalog, std::istream& in,
             std::ostream& out, std::ostream& err) {
  const std::string dir = f.content.empty() ? default_content_dir() : f.content;
  bank::LoadResult loaded = bank::load_bank(dir, registry, catalog, {/*lint=*/false});
  if (f.list) {
    for (const auto& q : loaded.bank.questions) {
      if (q.calcs.empty()) continue;
      practice::WorkPlan plan = practice::plan_question(q, registry, catalog);
      if (plan.workable) {
        out << q.slug << "\n";
      } else if (f.reasons) {
        out << q.slug << ": not workable: " << plan.reason << "\n";
      }
    }
    return 0;
  }
  if (f.slug.empty()) {
    err << "ridge work: give a SLUG (ridge work --list prints them) or --list\n";
    return 2;
  }
  const bank::Question* q = loaded.bank.find(f.slug);
  if (q == nullptr) {
    err << "ridge work: no question '" << f.slug.substr(0, 120) << "'; ridge work --list prints the workable ones\n";
    return 2;
  }
  practice::WorkPlan plan = practice::plan_question(*q, registry, catalog);
  if (!plan.workable) {
    err << "ridge work: " << f.slug << " is not workable: " << plan.reason << "\n";
    return 2;
  }
  std::string error;
  auto ex = practice::make_exercise(plan, q->title, f.seed, registry, catalog, &error);
  if (!ex) {
    err << "ridge work: " << error << "\n";
    return 1;
  }
  if (!f.answers.empty()) {
    // Read every NAME=VALUE first: a name no step has is a bad flag, before any grading.
    std::vector<std::pair<int, std::string>> given;
    for (const auto& a : f.answers) {
      size_t eq = a.find('=');
      int step = eq == std::string::npos ? -1 : step_named(*ex, a.substr(0, eq));
      if (step < 0) {
        std::string names;
        for (const auto& s : ex->steps) names += (names.empty() ? "" : ", ") + s.ref;
        err << "ridge work: --answer '" << a.substr(0, 120) << "' is not NAME=VALUE for a step; accepted names: " << names << "\n";
        return 2;
      }
      given.emplace_back(step, a.substr(eq + 1));
    }
    nlohmann::json j = exercise_json(*ex);
    j["grades"] = nlohmann::json::array();
    int right = 0;
    for (const auto& [step, answer] : given) {
      auto g = practice::grade_step(*ex, static_cast<size_t>(step), answer, registry, catalog);
      right += g.correct ? 1 : 0;
      if (f.json) {
        j["grades"].push_back(grade_json(g, ex->steps[static_cast<size_t>(step)], answer));
      } else {
        out << ex->steps[static_cast<size_t>(step)].ref << " = " << answer << "\n";
        print_grade(g, ex->steps[static_cast<size_t>(step)], out);
      }
    }
    j["right"] = right;
    if (f.json) out << j.dump(2) << "\n";
    return 0;
  }
  if (f.json) {
    out << exercise_json(*ex).dump(2) << "\n";
    return 0;
  }
  // Interactive: one step at a time, right or wrong at once, the derivation at the end.
  out << ex->prompt << "\n";
  int right = 0;
  for (size_t i = 0; i < ex->steps.size(); ++i) {
    const auto& s = ex->steps[i];
    out << "\nStep " << (i + 1) << " of " << ex->steps.size() << ": " << s.label << " [" << s.unit_hint << "]\n> " << std::flush;
    // An answer that cannot be read is asked again (three tries), as `ridge drill` does.
    std::string line;
    practice::StepGrade g;
    for (int tries = 0; tries < 3; ++tries) {
      if (!std::getline(in, line)) break;
      g = practice::grade_step(*ex, i, line, registry, catalog);
      print_grade(g, s, out);
      if (g.message.empty()) break;
      out << "> " << std::flush;
    }
    if (!in) break;
    right += g.correct ? 1 : 0;
  }
  out << "\n" << right << " of " << ex->steps.size() << " right. The chain for these inputs:\n";
  for (size_t i = 0; i < ex->chain.derivations.size(); ++i) {
    out << "\n[" << ex->chain.ids[i] << "] " << ex->chain.calls[i] << "\n" << calc::render_text(ex->chain.derivations[i]);
  }
  return 0;
}

}  // namespace ridge::cli
