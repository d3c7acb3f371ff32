// A question's page (the answer with its contents list), its locked and paywalled copies, the
// sign-in and sign-up forms and the error page.
#include "web/pages.h"

#include "bank/loader.h"
#include "bank/markdown.h"
#include "calc/dates.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "web/http.h"
#include "web/pages/parts.h"

namespace ridge::web {

using namespace parts;

// A long answer gets a contents list (its h2 sections and follow-up h3s, anchored), and a
// derivation repeated from the same calculator folds into <details> after the first one, so
// four near-identical tables do not fill the page (they stay in the HTML, one click away).
std::string enhance_answer(const std::string& html) {
  std::string out, toc;
  int headings = 0;
  std::map<std::string, int> seen_calculators;
  std::set<std::string> ids;
  size_t i = 0;
  auto slugify = [&](const std::string& text) {
    std::string id = "s-";
    for (char c : text) {
      unsigned char u = static_cast<unsigned char>(c);
      if (std::isalnum(u)) id += static_cast<char>(std::tolower(u));
      else if (id.back() != '-') id += '-';
      if (id.size() > 60) break;
    }
    while (id.size() > 2 && id.back() == '-') id.pop_back();
    std::string unique = id;
    for (int n = 2; ids.count(unique); ++n) unique = id + "-" + std::to_string(n);
    ids.insert(unique);
    return unique;
  };
  while (i < html.size()) {
    size_t next = html.find('<', i);
    if (next == std::string::npos) {
      out.append(html, i, std::string::npos);
      break;
    }
    out.append(html, i, next - i);
    i = next;
    if (html.compare(i, 4, "<h2>") == 0 || html.compare(i, 4, "<h3>") == 0) {
      char level = html[i + 2];
      size_t close = html.find(std::string("</h") + level + ">", i);
      if (close == std::string::npos) break;
      std::string inner = html.substr(i + 4, close - i - 4);
      std::string text;
      bool tag = false;
      for (char c : inner) {
        if (c == '<') tag = true;
        else if (c == '>') tag = false;
        else if (!tag) text += c;
      }
      std::string id = slugify(text);
      out += std::string("<h") + level + " id=\"" + id + "\">" + inner + "</h" + level + ">";
      toc += std::string("<li class=\"toc-") + level + "\"><a href=\"#" + id + "\">" + inner + "</a></li>";
      ++headings;
      i = close + 5;
      continue;
    }
    static const std::string kSection = "<section class=\"derivation\" data-calculator=\"";
    if (html.compare(i, kSection.size(), kSection) == 0) {
      size_t name_end = html.find('"', i + kSection.size());
      size_t end = html.find("</section>", i);
      if (name_end == std::string::npos || end == std::string::npos) break;
      std::string calculator = html.substr(i + kSection.size(), name_end - i - kSection.size());
      std::string section = html.substr(i, end + 10 - i);
      if (seen_calculators[calculator]++ == 0) {
        out += section;
      } else {
        size_t t1 = section.find("<h3>"), t2 = section.find("</h3>");
        std::string title = t1 == std::string::npos || t2 == std::string::npos ? calculator : section.substr(t1 + 4, t2 - t1 - 4);
        out += "<details class=\"derivation-more\"><summary>Worked chain: " + title + "</summary>" + section + "</details>";
      }
      i = end + 10;
      continue;
    }
    out += html[i];
    ++i;
  }
  if (headings >= 4) {
    out = "<div class=\"with-toc\"><nav class=\"toc\" aria-label=\"Contents of the answer\"><h2>Contents</h2><ol>" + toc +
          "</ol></nav><div class=\"answer-main\">" + out + "</div></div>";
  }
  return out;
}

namespace {

// question.mustache: the question, its answer behind "Reveal", the practice box, the pager
// within the topic and the related concepts and questions.
struct QuestionView {
  std::string topic_id, topic_name, difficulty, slug, title, updated, tldr, lab;
  std::vector<std::string> tracks;
  bool free = false;
  bool behavioral = false;  // a story to tell, not numbers to work out
  bool workable = false;    // Work it (issue 34) can draw this question's chain with new inputs
  Html answer;  // md4c's rendering of the answer, with its contents list (enhance_answer):
                // the template's body_html, put in by render_around (most of the page's bytes)
  struct Neighbour {
    std::string slug, title;
  };
  std::optional<Neighbour> prev, next;  // in the topic
  std::vector<std::pair<std::string, std::string>> concepts;  // id, title
  std::vector<QuestionItemView> related;
};

View to_view(const QuestionView& v) {
  View d;
  put(d, "topic_id", v.topic_id);
  put(d, "topic_name", v.topic_name);
  put(d, "difficulty", v.difficulty);
  put(d, "slug", v.slug);
  put(d, "title", v.title);
  put(d, "updated", v.updated);
  put(d, "behavioral", v.behavioral);
  put(d, "tldr_html", bank::inline_markdown_html(v.tldr));
  put(d, "has_lab", !v.lab.empty());
  put(d, "workable", v.workable);
  put(d, "lab", v.lab);
  ViewList tracks, concepts, related;
  for (const auto& t : v.tracks) tracks.emplace_back(t);
  put(d, "tracks", std::move(tracks));
  put(d, "free", v.free);
  auto neighbour = [](const std::optional<QuestionView::Neighbour>& n) {
    return n ? View(kainjow::mustache::object{{"slug", n->slug}, {"title", n->title}}) : View(false);
  };
  put(d, "prev", neighbour(v.prev));
  put(d, "next", neighbour(v.next));
  for (const auto& [id, title] : v.concepts) concepts.push_back(View(kainjow::mustache::object{{"id", id}, {"title", title}}));
  put(d, "concepts", std::move(concepts));
  for (const auto& r : v.related) related.push_back(to_view(r));
  put(d, "related", std::move(related));
  return d;
}

}  // namespace

std::string question_page(const Site& site, const bank::Question& q, bool workable) {
  QuestionView v;
  v.workable = workable;
  v.topic_id = q.topic;
  v.topic_name = topic_name(site, q.topic);
  v.difficulty = bank::difficulty_name(q.difficulty);
  v.slug = q.slug;
  v.title = q.title;
  v.updated = calc::date_in_words(q.updated);
  v.tldr = q.tldr();
  v.lab = q.lab;
  v.behavioral = q.topic == "behavioral";
  v.tracks = q.tracks;
  v.free = q.free;
  // Rendered here on the page's first request when `ridge serve` loaded the bank without
  // bodies (issue 30); a broken body throws bank::BrokenBody, answered 500.
  v.answer = Html{enhance_answer(bank::answer_html(q, site.registry, site.catalog))};
  // Previous and next in the topic.
  const auto& siblings = site.bank.by_topic(q.topic);
  auto self = std::find_if(siblings.begin(), siblings.end(), [&](size_t i) { return &site.bank.questions[i] == &q; });
  if (self != siblings.end() && self != siblings.begin()) {
    const auto& prev = site.bank.questions[*(self - 1)];
    v.prev = QuestionView::Neighbour{prev.slug, prev.title};
  }
  if (self != siblings.end() && self + 1 != siblings.end()) {
    const auto& next = site.bank.questions[*(self + 1)];
    v.next = QuestionView::Neighbour{next.slug, next.title};
  }
  // Related: concepts, then questions sharing a concept.
  for (const auto& c : q.concepts) {
    auto it = site.bank.concepts.find(c);
    v.concepts.emplace_back(c, it != site.bank.concepts.end() ? it->second.title : c);
  }
  // The first six questions that share a concept. (Collecting every one and then keeping six
  // made start-up quadratic in the questions per concept: 10,000 questions took 100 s.)
  constexpr size_t kRelated = 6;
  std::vector<const bank::Question*> related;
  for (const auto& c : q.concepts) {
    for (size_t i : site.bank.by_concept(c)) {
      if (related.size() == kRelated) break;
      const auto* other = &site.bank.questions[i];
      if (other != &q && std::find(related.begin(), related.end(), other) == related.end()) related.push_back(other);
    }
  }
  for (const auto* r : related) v.related.push_back(question_item_view(*r));
  return layout(site, q.title, q.tldr(), render_around("question", to_view(v), v.answer.text));
}

namespace {

// A paid question's page without its answer (locked_question.mustache, paywall_question.mustache).
struct QuestionDoorView {
  std::string topic_id, topic_name, slug, title, summary, tldr;
  std::string price;             // the paywall's: "$39"
  bool billing_enabled = false;  // the paywall's: a checkout exists (else access is granted by hand)
};

QuestionDoorView question_door_view(const Site& site, const bank::Question& q) {
  // No TL;DR: the locked copy does not show it, and a paid question's is made on first need
  // (issue 30); paywall_question_page reads it.
  return {q.topic, topic_name(site, q.topic), q.slug, q.title, q.summary, "", "", false};
}

View to_view(const QuestionDoorView& v) {
  View d;
  put(d, "topic_id", v.topic_id);
  put(d, "topic_name", v.topic_name);
  put(d, "slug", v.slug);
  put(d, "title", v.title);
  put(d, "summary_html", bank::inline_markdown_html(v.summary));
  put(d, "tldr_html", bank::inline_markdown_html(v.tldr));
  put(d, "price", v.price);
  put(d, "billing_enabled", v.billing_enabled);
  return d;
}

struct AuthView {
  bool signup = false;
  std::string title, action;
  std::string error;  // shown above the form when not empty
  std::string next;   // URL-encoded; the template escapes it for the attribute
  std::string pre_token;
};

View to_view(const AuthView& v) {
  View d;
  put(d, "signup", v.signup);
  put(d, "title", v.title);
  put(d, "action", v.action);
  put(d, "has_error", !v.error.empty());
  put(d, "error", v.error);
  put(d, "has_next", !v.next.empty());
  put(d, "next", v.next);
  put(d, "pre_token", v.pre_token);
  return d;
}

struct ErrorView {
  std::string status, reason, message;
};

View to_view(const ErrorView& v) {
  View d;
  put(d, "status", v.status);
  put(d, "reason", v.reason);
  put(d, "message", v.message);
  return d;
}

}  // namespace

std::string locked_question_page(const Site& site, const bank::Question& q) {
  return layout(site, q.title, "A question for signed-in users", render("locked_question", to_view(question_door_view(site, q))));
}

std::string paywall_question_page(const Site& site, const bank::Question& q, const std::string& price, bool billing_enabled) {
  QuestionDoorView v = question_door_view(site, q);
  v.tldr = q.tldr();
  v.price = price;
  v.billing_enabled = billing_enabled;
  return layout(site, q.title, q.tldr(), render("paywall_question", to_view(v)));
}

std::string auth_page(const Site& site, bool signup, const std::string& error, const std::string& next,
                      const std::string& pre_token) {
  AuthView v{signup, signup ? "Create an account" : "Sign in", signup ? "/signup" : "/signin", error,
             next.empty() ? "" : url_encode(next), pre_token};
  return layout(site, v.title, v.title, render("auth", to_view(v)));
}

std::string error_page(const Site& site, int status, const std::string& message) {
  ErrorView v{std::to_string(status), std::string(status_reason(status)), message};
  return layout(site, v.status + " " + v.reason, message, render("error", to_view(v)));
}

}  // namespace ridge::web
