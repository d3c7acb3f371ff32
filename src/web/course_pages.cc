// Course pages: the index of the four courses and one course's modules, with a signed-in
// visitor's progress (from their cards in the store) and where to resume.
#include "web/course_pages.h"

#include "bank/markdown.h"
#include "web/url_encode.h"
#include "practice/drills.h"

#include <algorithm>
#include <optional>

#include "web/template.h"

namespace ridge::web {
namespace {

// A count as a word when it is small ("Four"), for prose that states a fact about the bank.
std::string spelled_capitalized(size_t n) {
  static const char* kWords[] = {"No",     "One",    "Two",       "Three",    "Four",     "Five",    "Six",
                                 "Seven",  "Eight",  "Nine",      "Ten",      "Eleven",   "Twelve",  "Thirteen"};
  return n < std::size(kWords) ? kWords[n] : std::to_string(n);
}

struct CourseCard {
  std::string id, title, summary;
  size_t modules = 0;
};

View to_view(const std::vector<CourseCard>& courses) {
  ViewList list;
  for (const auto& c : courses) {
    list.push_back(View(kainjow::mustache::object{
        {"id", c.id}, {"title", c.title}, {"summary_html", bank::inline_markdown_html(c.summary)}, {"modules", std::to_string(c.modules)}}));
  }
  return object_with("courses", list_view(std::move(list)));
}

// course.mustache: the course's modules, and with `progress` the visitor's state of each.
struct CourseView {
  std::string id, title, track, summary;
  struct Module {
    std::string id, title, summary;
    std::vector<std::pair<std::string, std::string>> concepts;  // id, title
    struct Question {
      std::string slug, title, difficulty;
    };
    std::vector<Question> questions;
    std::string exercise, exercise_prompt;  // empty: no exercise
    Html exercise_result;                   // the exercise's derivation, rendered when the bank loaded
    std::vector<std::string> drills;
  };
  std::vector<Module> modules;
  const std::vector<ModuleProgress>* progress = nullptr;  // null: no session; else one per module
  int done = 0, resume = -1;                              // with progress
};

View comma_list(const std::vector<std::pair<std::string, std::string>>& items) {
  ViewList list;
  for (size_t i = 0; i < items.size(); ++i) {
    list.push_back(View(kainjow::mustache::object{{"comma", i > 0}, {"id", items[i].first}, {"title", items[i].second}}));
  }
  return list_view(std::move(list));
}

View to_view(const CourseView& v) {
  View d;
  put(d, "id", v.id);
  put(d, "title", v.title);
  put(d, "track", v.track);
  put(d, "summary_html", bank::inline_markdown_html(v.summary));
  put(d, "signed_in", v.progress != nullptr);
  put(d, "done", std::to_string(v.done));
  put(d, "module_count", std::to_string(v.modules.size()));
  put(d, "resume", v.resume >= 0 ? View(kainjow::mustache::object{{"id", v.modules[static_cast<size_t>(v.resume)].id},
                                                                 {"title", v.modules[static_cast<size_t>(v.resume)].title}})
                                : View(false));
  ViewList modules;
  for (size_t i = 0; i < v.modules.size(); ++i) {
    const auto& m = v.modules[i];
    View module;
    put(module, "id", m.id);
    put(module, "title", m.title);
    put(module, "summary_html", bank::inline_markdown_html(m.summary));
    if (v.progress) {
      const auto& p = (*v.progress)[i];
      put(module, "progress", View(kainjow::mustache::object{{"reviewed", std::to_string(p.reviewed)},
                                                            {"total", std::to_string(p.total)},
                                                            {"has_due", p.due > 0},
                                                            {"due", std::to_string(p.due)},
                                                            {"resume_here", static_cast<int>(i) == v.resume}}));
    } else {
      put(module, "progress", false);
    }
    put(module, "has_concepts", !m.concepts.empty());
    put(module, "concepts", comma_list(m.concepts));
    ViewList questions;
    for (const auto& q : m.questions) {
      questions.push_back(View(kainjow::mustache::object{{"slug", q.slug}, {"title", q.title}, {"difficulty", q.difficulty}}));
    }
    put(module, "questions", std::move(questions));
    put(module, "has_exercise", !m.exercise.empty());
    // The exercise as the command a reader can type (issue 33 item 4: the page showed the
    // content file's "fit model=..." form, which `ridge calc` refuses), and the calculator's
    // page with the same values.
    bank::CalcCall call;
    std::string why;
    std::string command = m.exercise, query;
    if (bank::parse_call(m.exercise, call, why)) {
      command = "ridge calc " + call.calculator;
      for (const auto& [key, value] : call.args) {
        bool plain = !value.empty() && value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,-_/:+") == std::string::npos;
        command += " --" + key + " " + (plain ? value : "'" + value + "'");
        query += (query.empty() ? '?' : '&') + url_encode(key) + '=' + url_encode(value);
      }
    }
    put(module, "exercise", command);
    put(module, "exercise_calculator", call.calculator);
    put(module, "exercise_query", query);
    put(module, "exercise_prompt", m.exercise_prompt);
    put(module, "exercise_html", m.exercise_result.text);
    // Each drill links to a drill of its template; "graded drills" to the first one's topic
    // (every link was /drill?topic= before issue 33).
    ViewList drills;
    for (size_t k = 0; k < m.drills.size(); ++k) drills.push_back(View(kainjow::mustache::object{{"comma", k > 0}, {"name", m.drills[k]}}));
    put(module, "drill_topic", m.drills.empty() ? std::string() : practice::drill_template_topic(m.drills.front()));
    put(module, "has_drills", !m.drills.empty());
    put(module, "drills", std::move(drills));
    modules.push_back(module);
  }
  put(d, "modules", std::move(modules));
  return d;
}

}  // namespace

std::vector<ModuleProgress> course_progress(const bank::Course& course, const std::vector<store::Card>& cards, int64_t now) {
  std::vector<ModuleProgress> out;
  for (const auto& m : course.modules) {
    ModuleProgress p;
    p.total = static_cast<int>(m.questions.size());
    for (const auto& slug : m.questions) {
      auto it = std::find_if(cards.begin(), cards.end(), [&](const store::Card& c) { return c.slug == slug; });
      if (it == cards.end()) continue;
      ++p.reviewed;
      if (it->due <= now) ++p.due;
    }
    out.push_back(p);
  }
  return out;
}

int resume_module(const std::vector<ModuleProgress>& progress) {
  for (size_t i = 0; i < progress.size(); ++i) {
    if (progress[i].reviewed < progress[i].total || progress[i].due > 0) return static_cast<int>(i);
  }
  return -1;
}

std::string courses_index(const Site& site) {
  std::vector<CourseCard> courses;
  for (const auto& [id, c] : site.bank.courses) courses.push_back({id, c.title, c.summary, c.modules.size()});
  return layout(site, "Courses", spelled_capitalized(site.bank.courses.size()) + " courses, one per interview track",
                render("courses_index", to_view(courses)));
}

std::string course_page(const Site& site, const bank::Course& c, const std::vector<ModuleProgress>* progress) {
  CourseView v{c.id, c.title, c.track, c.summary, {}, progress, 0, progress ? resume_module(*progress) : -1};
  if (progress) {
    for (const auto& p : *progress) v.done += p.reviewed == p.total && p.due == 0;
  }
  for (const auto& m : c.modules) {
    CourseView::Module module{m.id, m.title, m.summary, {}, {}, m.exercise, m.exercise_prompt, Html{m.exercise_html}, m.drills};
    for (const auto& id : m.concepts) {
      auto it = site.bank.concepts.find(id);
      module.concepts.emplace_back(id, it == site.bank.concepts.end() ? id : it->second.title);
    }
    for (const auto& slug : m.questions) {
      const bank::Question* q = site.bank.find(slug);
      if (q != nullptr) module.questions.push_back({slug, q->title, std::string(bank::difficulty_name(q->difficulty))});
    }
    v.modules.push_back(std::move(module));
  }
  return layout(site, c.title, c.summary, render("course", to_view(v)));
}

}  // namespace ridge::web
