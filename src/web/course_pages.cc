// Course pages: the index of the four courses and one course's modules, with a signed-in
// visitor's progress (from their cards in the store) and where to resume.
#include "web/course_pages.h"

#include "calc/derivation.h"

namespace ridge::web {
namespace {

std::string e(std::string_view s) { return calc::html_escape(s); }

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
  std::string body = "<h1>Courses</h1><p class=\"prose\">One ordered path per track. Each module lists its concepts, its "
                     "questions from easy to expert, a drill and a calculator exercise; signed in, you see which modules "
                     "are done, what is due and where to resume.</p><div class=\"grid\">";
  for (const auto& [id, c] : site.bank.courses) {
    body += "<div class=\"card\"><h2><a href=\"/courses/" + e(id) + "\">" + e(c.title) + "</a></h2><p>" + e(c.summary) +
            "</p><p class=\"muted\">" + std::to_string(c.modules.size()) + " modules</p></div>";
  }
  return layout(site, "Courses", "Four courses, one per interview track", body + "</div>");
}

std::string course_page(const Site& site, const bank::Course& c, const std::vector<ModuleProgress>* progress) {
  std::string body = "<article class=\"prose\"><nav aria-label=\"Breadcrumb\" class=\"muted\"><a href=\"/courses\">Courses</a> · "
                     "<a href=\"/tracks/" + e(c.track) + "\">" + e(c.track) + "</a></nav><h1>" + e(c.title) + "</h1><p>" +
                     e(c.summary) + "</p>";
  int resume = progress ? resume_module(*progress) : -1;
  if (progress) {
    int done = 0;
    for (const auto& p : *progress) done += p.reviewed == p.total && p.due == 0;
    body += "<p id=\"course-progress\" class=\"card\">" + std::to_string(done) + " of " + std::to_string(c.modules.size()) +
            " modules done." +
            (resume >= 0 ? " <a id=\"resume\" href=\"#m-" + e(c.modules[static_cast<size_t>(resume)].id) + "\">Resume at " +
                               e(c.modules[static_cast<size_t>(resume)].title) + "</a>"
                         : std::string(" Every module is done and nothing is due.")) +
            "</p>";
  } else {
    body += "<p class=\"muted\"><a href=\"/signin?next=/courses/" + e(c.id) + "\">Sign in</a> to track your progress.</p>";
  }
  body += "<ol class=\"modules\">";
  for (size_t i = 0; i < c.modules.size(); ++i) {
    const auto& m = c.modules[i];
    std::string state;
    if (progress) {
      const auto& p = (*progress)[i];
      state = " <span class=\"tag\">" + std::to_string(p.reviewed) + "/" + std::to_string(p.total) + " reviewed" +
              (p.due > 0 ? ", " + std::to_string(p.due) + " due" : "") + "</span>" +
              (static_cast<int>(i) == resume ? " <span class=\"tag free\">resume here</span>" : "");
    }
    body += "<li id=\"m-" + e(m.id) + "\" class=\"module\"><h2>" + e(m.title) + state + "</h2><p>" + e(m.summary) + "</p>";
    if (!m.concepts.empty()) {
      body += "<p><span class=\"muted\">Concepts:</span> ";
      for (size_t k = 0; k < m.concepts.size(); ++k) {
        auto it = site.bank.concepts.find(m.concepts[k]);
        body += (k ? ", " : "") + std::string("<a href=\"/concepts/") + e(m.concepts[k]) + "\">" +
                e(it == site.bank.concepts.end() ? m.concepts[k] : it->second.title) + "</a>";
      }
      body += "</p>";
    }
    body += "<ol class=\"questions\">";
    for (const auto& slug : m.questions) {
      const bank::Question* q = site.bank.find(slug);
      if (q == nullptr) continue;
      body += "<li><a href=\"/q/" + e(slug) + "\">" + e(q->title) + "</a> <span class=\"muted\">" +
              e(std::string(bank::difficulty_name(q->difficulty))) + "</span></li>";
    }
    body += "</ol>";
    if (!m.exercise.empty()) {
      body += "<details><summary>Calculator exercise: " + e(m.exercise_prompt) + "</summary><p><code>ridge calc " + e(m.exercise) +
              "</code></p>" + m.exercise_html + "</details>";
    }
    if (!m.drills.empty()) {
      body += "<p><span class=\"muted\">Check:</span> <a href=\"/drill?topic=\">graded drills</a> (";
      for (size_t k = 0; k < m.drills.size(); ++k) body += (k ? ", " : "") + e(m.drills[k]);
      body += ")</p>";
    }
    body += "</li>";
  }
  body += "</ol></article>";
  return layout(site, c.title, c.summary, body);
}

}  // namespace ridge::web
