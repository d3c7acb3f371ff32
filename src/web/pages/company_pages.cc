// The companies: each loop round by round, what it weighs, sources and confidence.
#include "web/pages.h"

#include "bank/markdown.h"
#include "calc/dates.h"



#include "calc/derivation.h"
#include "web/pages/parts.h"

namespace ridge::web {

using namespace parts;

namespace {

// What a company's loop weighs, the columns of its tables, in this order.
constexpr const char* kWeightKeys[] = {"kernels", "platform", "distributed", "design", "cost"};

// confidence_tag.mustache: a confidence level and where such a level comes from.
View confidence_view(const std::string& confidence) {
  return View(kainjow::mustache::object{
      {"level", confidence},
      {"why", confidence == "documented" ? "from the company's own published material"
              : confidence == "partial"  ? "from first-hand candidate reports"
                                         : "from one report or secondary guides only"}});
}

// weight_cell.mustache for each of kWeightKeys: 0 (not reported) to 3 (central) stars.
View weight_cells(const bank::Company& c) {
  static const char* kLabels[] = {"not reported", "some", "much", "central"};
  ViewList cells;
  for (const char* key : kWeightKeys) {
    auto it = c.weights.find(key);
    int w = it == c.weights.end() ? 0 : it->second;
    cells.push_back(View(kainjow::mustache::object{{"weight", std::to_string(w)},
                                                   {"label", kLabels[w]},
                                                   {"stars", std::string(static_cast<size_t>(w), '*')},
                                                   {"none", w == 0}}));
  }
  return list_view(std::move(cells));
}

View weight_keys() {
  ViewList keys;
  for (const char* key : kWeightKeys) keys.emplace_back(key);
  return list_view(std::move(keys));
}

// company.mustache: the loop round by round, what it weighs, what to drill, the questions
// tagged to it and the sources, each as the company's file states them.
struct CompanyView {
  const bank::Company* company = nullptr;
  std::vector<std::pair<std::string, std::string>> topics;  // id, name: what to drill
  struct Tagged {
    QuestionItemView question;
    std::string why, source;
  };
  std::vector<Tagged> questions;
};

View to_view(const CompanyView& v) {
  const bank::Company& c = *v.company;
  View d;
  put(d, "name", c.name);
  put(d, "has_kind", !c.kind.empty());
  put(d, "kind", c.kind);
  put(d, "confidence", c.confidence.empty() ? View(false) : confidence_view(c.confidence));
  put(d, "has_updated", !c.updated.empty());
  put(d, "updated", calc::date_in_words(c.updated));
  put(d, "has_summary", !c.summary.empty());
  put(d, "summary_html", bank::inline_markdown_html(calc::dates_in_words(c.summary)));
  put(d, "has_note", !c.note.empty());
  put(d, "note", calc::dates_in_words(c.note));
  put(d, "has_sources", !c.sources.empty());
  ViewList rounds;
  for (const auto& r : c.rounds) {
    ViewList sources;
    for (size_t i = 0; i < r.sources.size(); ++i) sources.push_back(View(kainjow::mustache::object{{"comma", i > 0}, {"id", r.sources[i]}}));
    rounds.push_back(View(kainjow::mustache::object{{"name", r.name},
                                                    {"confidence", confidence_view(r.confidence)},
                                                    {"has_format", !r.format.empty()},
                                                    {"format", r.format},
                                                    {"has_length", !r.length.empty()},
                                                    {"length", r.length},
                                                    {"has_weighs", !r.weighs.empty()},
                                                    {"weighs", r.weighs},
                                                    {"sources", sources}}));
  }
  put(d, "has_rounds", !c.rounds.empty());
  put(d, "rounds", std::move(rounds));
  put(d, "no_public_rounds", c.rounds.empty() && !c.sources.empty());
  put(d, "has_weights", !c.weights.empty());
  put(d, "weight_keys", weight_keys());
  put(d, "weights", weight_cells(c));
  put(d, "has_drill", !c.tracks.empty() || !c.topics.empty());
  ViewList tracks, topics, stack, questions, sources;
  for (const auto& t : c.tracks) tracks.emplace_back(t);
  for (const auto& [id, name] : v.topics) topics.push_back(View(kainjow::mustache::object{{"id", id}, {"name", name}}));
  for (size_t i = 0; i < c.stack.size(); ++i) stack.push_back(View(kainjow::mustache::object{{"comma", i > 0}, {"name", c.stack[i]}}));
  put(d, "tracks", std::move(tracks));
  put(d, "topics", std::move(topics));
  put(d, "has_stack", !c.stack.empty());
  put(d, "stack", std::move(stack));
  for (const auto& t : v.questions) {
    View q = to_view(t.question);
    put(q, "has_why", !t.why.empty());
    put(q, "why", t.why);
    put(q, "source", t.source);
    questions.push_back(q);
  }
  put(d, "no_questions", c.questions.empty());
  put(d, "questions", std::move(questions));
  for (const auto& s : c.sources) {
    sources.push_back(View(kainjow::mustache::object{
        {"id", s.id}, {"title", calc::dates_in_words(s.title)}, {"kind", s.kind}, {"url", s.url}, {"read", calc::date_in_words(s.read)}}));
  }
  put(d, "sources", std::move(sources));
  return d;
}

}  // namespace

std::string company_page(const Site& site, const bank::Company& c) {
  CompanyView v{&c, {}, {}};
  for (const auto& t : c.topics) v.topics.emplace_back(t, topic_name(site, t));
  for (const auto& tag : c.questions) {
    if (const bank::Question* q = site.bank.find(tag.slug)) v.questions.push_back({question_item_view(*q), tag.why, tag.source});
  }
  return layout(site, c.name, "The " + c.name + " interview loop as publicly reported, with sources and confidence levels",
                render("company", to_view(v)) +
                    // Mock loops (issue 36): the start page holds the signed-in form.
                    "<p id=\"rehearse\"><a href=\"/rehearse?company=" + calc::html_escape(c.id) + "\">Rehearse this loop</a>: timed, " +
                    "scored round by round, with a report.</p>");
}

std::string company_table(const Site& site) {
  View d;
  ViewList companies;
  for (const auto& [id, c] : site.bank.companies) {
    companies.push_back(View(kainjow::mustache::object{{"id", id},
                                                       {"name", c.name},
                                                       {"kind", c.kind},
                                                       {"weights", weight_cells(c)},
                                                       {"confidence", c.confidence.empty() ? View(false) : confidence_view(c.confidence)},
                                                       {"questions", std::to_string(c.questions.size())}}));
  }
  put(d, "weight_keys", weight_keys());
  put(d, "companies", std::move(companies));
  return render("company_table", d);
}

std::string companies_index(const Site& site) {
  return layout(site, "Companies", "Company interview loops with sources and confidence levels",
                render("companies_index", object_with("table_html", company_table(site))));
}

}  // namespace ridge::web
