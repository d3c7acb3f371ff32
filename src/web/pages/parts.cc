#include "web/pages/parts.h"

#include "bank/markdown.h"
#include "web/wording.h"

#include <cctype>
#include <sstream>

#include "practice/card_state.h"

namespace ridge::web {
namespace parts {

namespace {

struct ListFiltersView {
  std::vector<std::pair<std::string, std::string>> tracks, companies;  // id, name
  std::string mastered_days;
};

View to_view(const ListFiltersView& v) {
  View d;
  ViewList difficulties, tracks, companies;
  for (bank::Difficulty level : kDifficulties) difficulties.emplace_back(std::string(bank::difficulty_name(level)));
  for (const auto& [id, name] : v.tracks) tracks.push_back(View(kainjow::mustache::object{{"id", id}, {"name", name}}));
  for (const auto& [id, name] : v.companies) companies.push_back(View(kainjow::mustache::object{{"id", id}, {"name", name}}));
  put(d, "difficulties", std::move(difficulties));
  put(d, "tracks", std::move(tracks));
  put(d, "companies", std::move(companies));
  put(d, "mastered_days", v.mastered_days);
  return d;
}

}  // namespace

std::string spelled(size_t n) {
  static const char* kWords[] = {"no",      "one",     "two",       "three",    "four",    "five",     "six",
                                 "seven",   "eight",   "nine",      "ten",      "eleven",  "twelve",   "thirteen",
                                 "fourteen", "fifteen", "sixteen",  "seventeen", "eighteen", "nineteen", "twenty"};
  return n < std::size(kWords) ? kWords[n] : std::to_string(n);
}

std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

QuestionItemView question_item_view(const bank::Question& q) {
  QuestionItemView v{q.slug, q.title, std::string(bank::difficulty_name(q.difficulty)), q.summary, "", "", q.free};
  for (const auto& t : q.tracks) v.tracks += (v.tracks.empty() ? "" : " ") + t;
  for (const auto& c : q.companies) v.companies += (v.companies.empty() ? "" : " ") + c.id;
  return v;
}

View to_view(const QuestionItemView& v) {
  View d;
  put(d, "slug", v.slug);
  put(d, "title", v.title);
  put(d, "difficulty", v.difficulty);
  put(d, "free", v.free);
  put(d, "free_flag", v.free ? "1" : "0");
  put(d, "has_summary", !v.summary.empty());
  put(d, "summary_html", bank::inline_markdown_html(v.summary));
  put(d, "tracks", v.tracks);
  put(d, "companies", v.companies);
  return d;
}

std::string list_filters(const Site& site) {
  ListFiltersView v;
  for (const auto& t : site.bank.tracks) v.tracks.emplace_back(t.id, t.name);
  // Companies that name a question (in their file or in the question's front matter).
  for (const auto& [id, c] : site.bank.companies) {
    if (!site.bank.by_company(id).empty()) v.companies.emplace_back(id, c.name);
  }
  v.mastered_days = calc::format_significant(practice::kMasteredStabilityDays, 3);
  return render("list_filters", to_view(v));
}

View question_list_view(const Site& site, const std::vector<size_t>& indexes) {
  View d;
  ViewList questions;
  questions.reserve(indexes.size());
  for (size_t i : indexes) questions.push_back(to_view(question_item_view(site.bank.questions[i])));
  put(d, "empty", indexes.empty());
  put(d, "questions", std::move(questions));
  return d;
}

std::string topic_name(const Site& site, const std::string& id) {
  const bank::Topic* t = site.bank.find_topic(id);
  return t ? t->name : id;
}

std::optional<calc::Derivation> evaluate(const Site& site, const std::string& name, const calc::Given& given) {
  auto d = site.registry.evaluate(name, given, site.catalog);
  if (!d) return std::nullopt;
  return *d;
}

std::string display(const calc::Derivation& d, const std::string& key) {
  const calc::NamedResult* r = d.find(key);
  return r ? calc::format_quantity(r->value, r->unit) : "";
}

FieldView field_view(const Site& site, const calc::ParamSpec& spec, const calc::Given& values, const std::string& error,
                     const std::string& form_id) {
  FieldView v;
  v.id = form_id + "-" + spec.name;
  v.name = spec.name;
  auto it = values.find(spec.name);
  v.value = it != values.end() ? it->second : spec.default_value;
  v.example = spec.example;
  // The engine's help is written for the command line ("model id from data/models (or give
  // --config)"); a visitor picks from the list, so the catalog fields say that (issue 33).
  if (spec.type == calc::ParamType::kGpu) v.hint = "an accelerator from the list; its figures are on the hardware page";
  else if (spec.type == calc::ParamType::kModel) v.hint = "a model from the list";
  else v.hint = without_flags(spec.help);
  std::string accepted = calc::accepted_range(spec, site.catalog);
  if (spec.type == calc::ParamType::kNumber || spec.type == calc::ParamType::kCount) {
    std::string unit(calc::unit_symbol(spec.unit));
    if (!unit.empty() && unit != "count") v.hint += " (" + unit + "; " + accepted + ")";
    else v.hint += " (" + accepted + ")";
  }
  v.error = error;
  v.optional = !spec.required && spec.default_value.empty();
  v.select = true;
  switch (spec.type) {
    case calc::ParamType::kGpu:
      for (const auto& a : site.catalog.hardware.all()) v.options.emplace_back(a.id, a.name);
      break;
    case calc::ParamType::kModel:
      for (const auto& [mid, m] : site.catalog.models) v.options.emplace_back(mid, mid);
      break;
    case calc::ParamType::kDtype:
      for (calc::Dtype d : calc::kAllDtypes) v.options.emplace_back(std::string(calc::dtype_name(d)), std::string(calc::dtype_name(d)));
      break;
    case calc::ParamType::kChoice:
      for (const auto& c : spec.choices) v.options.emplace_back(c, c);
      break;
    default:
      v.select = false;
  }
  return v;
}

View to_view(const FieldView& v) {
  View d;
  put(d, "id", v.id);
  put(d, "name", v.name);
  put(d, "value", v.value);
  put(d, "example", v.example);
  put(d, "hint", v.hint);
  put(d, "error", v.error);
  put(d, "invalid", !v.error.empty());
  put(d, "optional", v.optional);
  put(d, "select", v.select);
  put(d, "none_option", v.optional);
  ViewList options;
  for (const auto& [value, label] : v.options) {
    View o;
    put(o, "value", value);
    put(o, "label", label);
    put(o, "selected", value == v.value);
    options.push_back(std::move(o));
  }
  put(d, "options", std::move(options));
  return d;
}

}  // namespace parts

calc::Given example_values(const calc::Calculator& c) {
  calc::Given given;
  std::istringstream words(c.example);
  std::string flag, value;
  while (words >> flag >> value) given[calc::normalize_param_name(flag)] = value;
  return given;
}

namespace {

// The page around every body (web/templates/layout.mustache); the body itself goes in through
// render_around(), not through the view.
struct LayoutView {
  std::string title, description;  // the <title> (before " · ridge") and the meta description
  std::string style_url, favicon_url, script_url;  // the assets' hashed URLs
};

View to_view(const LayoutView& v) {
  View d;
  put(d, "title", v.title);
  put(d, "description", v.description);
  put(d, "style_url", v.style_url);
  put(d, "favicon_url", v.favicon_url);
  put(d, "script_url", v.script_url);
  put(d, "nav_account_html", std::string(kNavSignedOut));
  return d;
}

}  // namespace

std::string layout(const Site& site, const std::string& title, const std::string& description, const std::string& body) {
  // A description is a summary or a TL;DR, written in Markdown: plain text in the meta tag
  // (search engines quote it as it is).
  LayoutView v{title, bank::markdown_plain(description), site.assets.url("style.css"), site.assets.url("favicon.svg"),
               site.assets.url("app.js")};
  return render_around("layout", to_view(v), body);
}

}  // namespace ridge::web
