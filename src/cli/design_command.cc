#include "cli/design_command.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/bank_commands.h"
#include "cli/flags.h"
#include "cli/validate_command.h"

namespace ridge::cli {

CLI::App* add_design(CLI::App& parent, DesignFlags& f) {
  CLI::App* design = parent.add_subcommand("design", "design rounds: submit a deployment or a training plan, get a verdict");
  design->footer(
      "Examples:\n"
      "  ridge design --list\n"
      "  ridge design chat-70b-at-20-rps --submit my-design.toml --json\n"
      "  ridge design --check            grade every reference (passes) and common mistake (fails)");
  design->add_option("ID", f.id, "the challenge id (ridge design --list)");
  design->add_flag("--list", f.list, "print the challenge ids, one a line");
  design->add_option("--submit", f.submit, "the design to grade: a TOML file of field = value")->check(CLI::ExistingFile);
  design->add_flag("--json", f.json, "print the verdict as JSON");
  design->add_flag("--check", f.check, "grade every challenge's reference and common mistake");
  design->add_option("--content", f.content, "the content directory (default: as ridge check)")->check(flags::directory());
  return design;
}

design::Trust ledger_trust(const calc::Registry& registry, const calc::Catalog& catalog, const std::string& runs_path) {
  ValidateFlags vf;
  vf.json = true;
  std::ostringstream out, err;
  run_validate(vf, registry, catalog, runs_path, out, err);
  return design::trust_from_validate_json(out.str());
}

calc::Errors check_challenges(const design::LoadedChallenges& loaded, const calc::Registry& registry,
                              const calc::Catalog& catalog) {
  calc::Errors errors = loaded.errors;
  const design::Trust none;
  for (const auto& c : loaded.challenges) {
    auto ref = design::grade(c, c.reference, registry, catalog, none);
    if (!ref.pass) {
      std::string why = ref.failure;
      for (const auto& o : ref.objectives) {
        if (!o.pass) why += (why.empty() ? "" : "; ") + o.name + " " + (o.unbounded ? "unbounded" : std::to_string(o.predicted)) + " vs " + std::to_string(o.target);
      }
      errors.push_back({c.file + ": reference", c.id, "does not pass: " + why, "a reference design that passes every objective"});
    }
    auto mistake = design::grade(c, c.common_mistake, registry, catalog, none);
    if (mistake.pass) {
      errors.push_back({c.file + ": common_mistake", c.id, "passes", "a common mistake that fails at least one objective"});
    }
  }
  return errors;
}

namespace {

void print_text(const design::Verdict& v, std::ostream& out) {
  out << v.challenge << ": " << (v.pass ? "PASS" : "FAIL") << "  (" << v.grader_version << ")\n";
  if (!v.runs) out << "  the design cannot run: " << v.failure << "\n";
  for (const auto& o : v.objectives) {
    out << "  " << (o.pass ? "pass " : "FAIL ") << o.name << ": ";
    if (o.unbounded) out << "unbounded";
    else out << o.predicted;
    out << " " << o.unit << " (target " << (o.at_most ? "<= " : ">= ") << o.target << ", binding: " << o.binding << ")\n";
    out << "      " << o.derivation << "\n";
  }
  if (v.suggestion) {
    out << "  suggestion: set " << v.suggestion->field << " from " << v.suggestion->from << " to " << v.suggestion->to << ": "
        << v.suggestion->effect << "\n";
  }
  for (const auto& t : v.trust) out << "  trust: " << t << "\n";
}

}  // namespace

int run_design(const DesignFlags& f, const calc::Registry& registry, const calc::Catalog& catalog,
               const std::string& runs_path, std::ostream& out, std::ostream& err) {
  const std::string content = f.content.empty() ? default_content_dir() : f.content;
  const auto loaded = design::load_challenges((std::filesystem::path(content) / "challenges").string());
  if (f.check) {
    auto errors = check_challenges(loaded, registry, catalog);
    for (const auto& e : errors) err << e.to_string() << "\n";
    out << "ridge design --check: " << loaded.challenges.size() << " challenges, " << errors.size() << " error"
        << (errors.size() == 1 ? "" : "s") << "\n";
    return errors.empty() ? 0 : 1;
  }
  if (!loaded.errors.empty()) {
    for (const auto& e : loaded.errors) err << e.to_string() << "\n";
  }
  if (f.list) {
    for (const auto& c : loaded.challenges) out << c.id << "\n";
    return loaded.errors.empty() ? 0 : 1;
  }
  if (f.id.empty()) {
    err << "ridge design: give a challenge id (ridge design --list) or --list\n";
    return 2;
  }
  const design::Challenge* c = nullptr;
  for (const auto& x : loaded.challenges) {
    if (x.id == f.id) c = &x;
  }
  if (c == nullptr) {
    err << "ridge design: '" << f.id << "' is not a challenge; accepted: ";
    for (size_t i = 0; i < loaded.challenges.size(); ++i) err << (i ? ", " : "") << loaded.challenges[i].id;
    err << "\n";
    return 2;
  }
  design::Design d = c->reference;
  if (!f.submit.empty()) {
    std::ifstream in(f.submit);
    std::stringstream ss;
    ss << in.rdbuf();
    auto parsed = design::parse_submission(*c, ss.str());
    if (!parsed) {
      err << "ridge design: " << f.submit << ":\n" << calc::to_string(parsed.errors());
      return 2;
    }
    d = *parsed;
  } else {
    err << "ridge design: give --submit FILE.toml (the fields: ";
    const auto& specs = design::submission_fields(c->kind);
    for (size_t i = 0; i < specs.size(); ++i) err << (i ? ", " : "") << specs[i].name;
    err << ")\n";
    return 2;
  }
  const auto v = design::grade(*c, d, registry, catalog, ledger_trust(registry, catalog, runs_path));
  if (f.json) out << design::verdict_json(v) << "\n";
  else print_text(v, out);
  return v.pass ? 0 : 1;
}

}  // namespace ridge::cli
