#include "bank/course_loader.h"

#include <toml++/toml.h>

#include <algorithm>
#include <set>

#include "bank/checks.h"
#include "bank/markdown.h"

namespace ridge::bank {
namespace {

int line(const toml::node* n) { return n ? static_cast<int>(n->source().begin.line) : 1; }

std::string text(const toml::table& t, const char* key) {
  auto v = t[key].value<std::string>();
  return v ? *v : std::string();
}

std::vector<std::string> list(const toml::table& t, const char* key) {
  std::vector<std::string> out;
  if (const toml::array* a = t[key].as_array()) {
    for (const auto& item : *a) {
      if (auto s = item.value<std::string>()) out.push_back(*s);
    }
  }
  return out;
}

}  // namespace

Course parse_course(std::string_view source, const std::string& id, const std::string& file, const Bank& bank,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    std::vector<Diagnostic>& diags) {
  Course c;
  c.id = id;
  c.file = file;
  toml::table t;
  try {
    t = toml::parse(source, file);
  } catch (const toml::parse_error& e) {
    diags.push_back({file, static_cast<int>(e.source().begin.line), std::string("TOML: ") + std::string(e.description())});
    return c;
  }
  for (const auto& [k, v] : t) {
    std::string key(k.str());
    if (key != "title" && key != "track" && key != "summary" && key != "modules") {
      diags.push_back({file, line(&v), "unknown key '" + key + "'; accepted: title, track, summary, modules"});
    }
  }
  c.title = text(t, "title");
  c.track = text(t, "track");
  c.summary = text(t, "summary");
  if (c.title.empty()) diags.push_back({file, 1, "'title' is required"});
  if (!bank.find_track(c.track)) diags.push_back({file, line(t.get("track")), "track '" + c.track + "' is not a track in topics.toml"});
  std::set<std::string> module_ids;
  const toml::array* modules = t["modules"].as_array();
  if (modules == nullptr || modules->empty()) diags.push_back({file, 1, "a course needs [[modules]]"});
  for (const auto& node : modules ? *modules : toml::array{}) {
    const toml::table* mt = node.as_table();
    if (!mt) continue;
    int ln = line(&node);
    CourseModule m{text(*mt, "id"), text(*mt, "title"), text(*mt, "summary"), list(*mt, "concepts"), list(*mt, "questions"),
                   list(*mt, "drills"), text(*mt, "exercise"), text(*mt, "exercise_prompt"), ""};
    if (m.id.empty() || m.title.empty()) diags.push_back({file, ln, "a module needs an id and a title"});
    if (!module_ids.insert(m.id).second) diags.push_back({file, ln, "module id '" + m.id + "' is used twice"});
    for (const auto& cid : m.concepts) {
      if (!bank.concepts.count(cid)) diags.push_back({file, ln, "module '" + m.id + "': concept '" + cid + "' does not exist"});
    }
    if (m.questions.empty()) diags.push_back({file, ln, "module '" + m.id + "' lists no questions"});
    for (const auto& slug : m.questions) {
      if (!bank.find(slug)) diags.push_back({file, ln, "module '" + m.id + "': question '" + slug + "' does not exist"});
    }
    for (const auto& d : m.drills) {
      if (!options.drill_templates.empty() &&
          std::find(options.drill_templates.begin(), options.drill_templates.end(), d) == options.drill_templates.end()) {
        std::string known;
        for (const auto& k : options.drill_templates) known += (known.empty() ? "" : ", ") + k;
        diags.push_back({file, ln, "module '" + m.id + "': drill '" + d + "' is not a drill template; accepted: " + known});
      }
    }
    if (!m.exercise.empty()) {
      CalcCall call;
      std::string error;
      if (!parse_call(m.exercise, call, error)) {
        diags.push_back({file, ln, "module '" + m.id + "': exercise: " + error});
      } else if (!registry.find(call.calculator)) {
        diags.push_back({file, ln, "module '" + m.id + "': exercise: '" + call.calculator + "' is not a calculator"});
      } else {
        // One network (issue 32 item 2): an exercise names its links like a question's calc block.
        if (options.lint) check_typed_links(call.calculator, call.args, catalog.hardware, file, ln, m.id, diags);
        auto d = registry.evaluate(call.calculator, call.args, catalog);
        if (d) {
          m.exercise_html = calc::render_html(*d);
        } else {
          for (const auto& e : d.errors()) diags.push_back({file, ln, "module '" + m.id + "': exercise: " + e.to_string()});
        }
      }
    }
    c.modules.push_back(std::move(m));
  }
  return c;
}

}  // namespace ridge::bank
