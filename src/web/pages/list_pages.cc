// The pages that list questions: topics, tracks, difficulties, and the concepts.
#include "web/pages.h"

#include "bank/markdown.h"

#include <algorithm>

#include "calc/derivation.h"
#include "web/pages/parts.h"

namespace ridge::web {

using namespace parts;

namespace {

// Views of the pages that list questions. Question lists hold indexes into the bank; their
// to_view takes the site to turn them into items.

// question_groups.mustache: a heading and a list per group, or "No questions" for none.
struct QuestionGroup {
  std::string heading;
  std::vector<size_t> questions;
};

void set_groups(const Site& site, const std::vector<QuestionGroup>& groups, bool no_questions, View& d) {
  ViewList list;
  for (const auto& g : groups) {
    View group;
    put(group, "heading", g.heading);
    put(group, "list", question_list_view(site, g.questions));
    list.push_back(group);
  }
  put(d, "groups", std::move(list));
  put(d, "no_questions", no_questions);
}

// topic.mustache and difficulty.mustache: a heading, the filters, the questions in groups.
struct GroupedQuestionsView {
  std::string name, description;  // the topic's, or the level's name ("Hard") and no description
  Html filters;
  std::vector<QuestionGroup> groups;
  bool no_questions = false;
};

View to_view(const Site& site, const GroupedQuestionsView& v) {
  View d;
  put(d, "name", v.name);
  put(d, "description", v.description);
  put(d, "filters_html", v.filters.text);
  set_groups(site, v.groups, v.no_questions, d);
  return d;
}

struct TopicCard {
  std::string id, name, description;
  size_t questions = 0;
};

View to_view(const std::vector<TopicCard>& topics) {
  ViewList list;
  for (const auto& t : topics) {
    list.push_back(View(kainjow::mustache::object{
        {"id", t.id}, {"name", t.name}, {"description", t.description}, {"count", std::to_string(t.questions)}}));
  }
  return object_with("topics", list_view(std::move(list)));
}

struct TrackView {
  std::string name, description;
  std::vector<std::pair<std::string, std::string>> topics;  // id, name: heaviest first
  std::vector<int> weights;                                 // per topic
  Html filters;
  std::vector<size_t> questions;
};

View to_view(const Site& site, const TrackView& v) {
  View d;
  ViewList weights;
  for (size_t i = 0; i < v.topics.size(); ++i) {
    weights.push_back(View(kainjow::mustache::object{
        {"topic_id", v.topics[i].first}, {"topic_name", v.topics[i].second}, {"weight", std::to_string(v.weights[i])}}));
  }
  put(d, "name", v.name);
  put(d, "description", v.description);
  put(d, "weights", std::move(weights));
  put(d, "filters_html", v.filters.text);
  put(d, "list", question_list_view(site, v.questions));
  return d;
}

struct ConceptView {
  std::string topic_id, topic_name;  // empty: not placed in a topic
  std::string title, summary;
  std::vector<std::pair<std::string, std::string>> prerequisites;  // id, title
  bool stub = false;
  Html text;  // the concept's Markdown, rendered by md4c when the bank loaded
  std::vector<std::string> calculators;
  Html filters;
  std::vector<size_t> questions;
};

View to_view(const Site& site, const ConceptView& v) {
  View d;
  put(d, "has_topic", !v.topic_id.empty());
  put(d, "topic_id", v.topic_id);
  put(d, "topic_name", v.topic_name);
  put(d, "title", v.title);
  put(d, "has_summary", !v.summary.empty());
  put(d, "summary_html", bank::inline_markdown_html(v.summary));
  ViewList prerequisites, calculators;
  for (size_t i = 0; i < v.prerequisites.size(); ++i) {
    prerequisites.push_back(View(kainjow::mustache::object{
        {"comma", i > 0}, {"id", v.prerequisites[i].first}, {"title", v.prerequisites[i].second}}));
  }
  for (const auto& calculator : v.calculators) calculators.emplace_back(calculator);
  put(d, "has_prerequisites", !v.prerequisites.empty());
  put(d, "prerequisites", std::move(prerequisites));
  put(d, "stub", v.stub);
  put(d, "text_html", v.text.text);
  put(d, "has_calculators", !v.calculators.empty());
  put(d, "calculators", std::move(calculators));
  put(d, "filters_html", v.filters.text);
  put(d, "list", question_list_view(site, v.questions));
  return d;
}

struct ConceptSection {
  std::string heading;
  struct Item {
    std::string id, title, summary;
    size_t questions = 0;
  };
  std::vector<Item> concepts;
};

View to_view(const std::vector<ConceptSection>& sections) {
  ViewList list;
  for (const auto& s : sections) {
    ViewList concepts;
    for (const auto& c : s.concepts) {
      concepts.push_back(View(kainjow::mustache::object{
          {"id", c.id}, {"title", c.title}, {"summary_html", bank::inline_markdown_html(c.summary)}, {"count", std::to_string(c.questions)}}));
    }
    list.push_back(View(kainjow::mustache::object{{"heading", s.heading}, {"concepts", concepts}}));
  }
  return object_with("sections", list_view(std::move(list)));
}

}  // namespace

std::string topic_page(const Site& site, const bank::Topic& topic) {
  const auto& all = site.bank.by_topic(topic.id);
  GroupedQuestionsView v{topic.name, topic.description, Html{list_filters(site)}, {}, all.empty()};
  for (bank::Difficulty level : kDifficulties) {
    QuestionGroup g{capitalized(std::string(bank::difficulty_name(level))), {}};
    for (size_t i : all) {
      if (site.bank.questions[i].difficulty == level) g.questions.push_back(i);
    }
    if (!g.questions.empty()) v.groups.push_back(std::move(g));
  }
  return layout(site, topic.name, topic.description, render("topic", to_view(site, v)));
}

std::string topics_index(const Site& site) {
  std::vector<TopicCard> topics;
  for (const auto& t : site.bank.topics) topics.push_back({t.id, t.name, t.description, site.bank.by_topic(t.id).size()});
  return layout(site, "Topics", "The " + spelled(site.bank.topics.size()) + " topics of the bank", render("topics_index", to_view(topics)));
}

std::string track_page(const Site& site, const bank::Track& track) {
  std::vector<std::pair<int, std::string>> weights;
  for (const auto& [topic, w] : track.weights) weights.emplace_back(-w, topic);
  std::sort(weights.begin(), weights.end());
  TrackView v{track.name, track.description, {}, {}, Html{list_filters(site)}, site.bank.by_track(track.id)};
  for (const auto& [w, topic] : weights) {
    v.topics.emplace_back(topic, topic_name(site, topic));
    v.weights.push_back(-w);
  }
  // Mock loops (issue 36): the start page holds the signed-in form.
  return layout(site, track.name, track.description,
                render("track", to_view(site, v)) + "<p id=\"rehearse\"><a href=\"/rehearse?track=" + calc::html_escape(track.id) +
                    "\">Rehearse this track's loop</a>: four timed rounds drawn from its weights, with a report.</p>");
}

std::string difficulty_page(const Site& site, bank::Difficulty level) {
  std::string name(bank::difficulty_name(level));
  const auto& all = site.bank.by_difficulty(level);
  GroupedQuestionsView v{capitalized(name), "", Html{list_filters(site)}, {}, all.empty()};
  for (const auto& t : site.bank.topics) {
    QuestionGroup g{t.name, {}};
    for (size_t i : all) {
      if (site.bank.questions[i].topic == t.id) g.questions.push_back(i);
    }
    if (!g.questions.empty()) v.groups.push_back(std::move(g));
  }
  return layout(site, v.name + " questions", "Questions at the " + name + " level", render("difficulty", to_view(site, v)));
}

std::string concept_page(const Site& site, const bank::Concept& c) {
  ConceptView v;
  if (!c.topic.empty()) v.topic_id = c.topic, v.topic_name = topic_name(site, c.topic);
  v.title = c.title;
  v.summary = c.summary;
  for (const auto& id : c.prerequisites) {
    auto it = site.bank.concepts.find(id);
    v.prerequisites.emplace_back(id, it == site.bank.concepts.end() ? id : it->second.title);
  }
  v.stub = c.stub;
  v.text = Html{c.html};
  v.calculators = c.calculators;
  v.filters = Html{list_filters(site)};
  v.questions = site.bank.by_concept(c.id);
  return layout(site, c.title, c.summary.empty() ? "The concept: " + c.title : c.summary, render("concept", to_view(site, v)));
}

std::string concepts_index(const Site& site) {
  // Grouped by topic in the bank's topic order, ordered by name within a topic.
  std::vector<ConceptSection> sections;
  auto section = [&](const std::string& topic_id, const std::string& heading) {
    std::vector<const bank::Concept*> list;
    for (const auto& [id, c] : site.bank.concepts) {
      if (c.topic == topic_id) list.push_back(&c);
    }
    if (list.empty()) return;
    std::sort(list.begin(), list.end(), [](const bank::Concept* a, const bank::Concept* b) { return a->title < b->title; });
    ConceptSection s{heading, {}};
    for (const bank::Concept* c : list) s.concepts.push_back({c->id, c->title, c->summary, site.bank.by_concept(c->id).size()});
    sections.push_back(std::move(s));
  };
  for (const auto& t : site.bank.topics) section(t.id, t.name);
  section("", "Not yet placed in a topic");
  return layout(site, "Concepts", "Concepts the questions build on, by topic", render("concepts_index", to_view(sections)));
}

}  // namespace ridge::web
