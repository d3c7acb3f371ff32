#include "web/pages.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <map>
#include <optional>
#include <sstream>

#include "diagram/diagrams.h"
#include "practice/card_state.h"
#include "web/http.h"
#include "web/template.h"

namespace ridge::web {

namespace {

constexpr bank::Difficulty kDifficulties[] = {bank::Difficulty::kEasy, bank::Difficulty::kMedium, bank::Difficulty::kHard,
                                              bank::Difficulty::kExpert};

// A count as a word when it is small ("thirteen"), for prose that states a fact about the bank.
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

// One question as a link and as an item of a list (question_link.mustache, question_list.mustache).
struct QuestionItemView {
  std::string slug, title, difficulty, summary;
  std::string tracks, companies;  // ids, space-separated: the list filter's data attributes
  bool free = false;
};

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
  put(d, "summary", v.summary);
  put(d, "tracks", v.tracks);
  put(d, "companies", v.companies);
  return d;
}

// The filter bar above a list of questions (list_filters.mustache; app.js applies it, and
// without script every question stays listed). For a signed-in visitor app.js shows the state
// filter and marks each question with its state (new, due, seen, mastered) and bookmark.
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

// The questions at `indexes` as question_list.mustache's view.
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

// field.mustache: one parameter of a calculator's form, a select for a catalog or a choice and
// a text input otherwise, with its hint (unit and accepted range) and its error.
struct FieldView {
  std::string id, name, value, example, hint, error;
  bool optional = false;  // neither required nor defaulted
  bool select = false;
  std::vector<std::pair<std::string, std::string>> options;  // value, label (select only)
};

FieldView field_view(const Site& site, const calc::ParamSpec& spec, const calc::Given& values, const std::string& error,
                     const std::string& form_id) {
  FieldView v;
  v.id = form_id + "-" + spec.name;
  v.name = spec.name;
  auto it = values.find(spec.name);
  v.value = it != values.end() ? it->second : spec.default_value;
  v.example = spec.example;
  v.hint = spec.help;
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

}  // namespace

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
  LayoutView v{title, description, site.assets.url("style.css"), site.assets.url("favicon.svg"), site.assets.url("app.js")};
  return render_around("layout", to_view(v), body);
}

namespace {

std::string count_of(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// home.mustache: the bank in numbers, the tracks, the live "will it fit?", the formulas, the
// hardware, the must-know set, the topics, the companies, the price and the weekly question.
struct HomeView {
  size_t questions = 0, free = 0, must = 0, must_free = 0, topics_count = 0, calculators = 0, accelerators = 0, companies = 0;
  struct Track {
    std::string id, name, description;
    size_t questions = 0;
    std::vector<std::pair<std::string, std::string>> topics;  // id, name: heaviest first
    std::vector<int> shares;                                  // per topic, percent of the track's weight
    std::vector<std::pair<std::string, std::string>> companies;  // id, name: those whose loops it is
    std::vector<std::pair<std::string, size_t>> courses;         // id, modules
  };
  std::vector<Track> tracks;
  struct Fit {
    std::vector<FieldView> fields;
    std::optional<calc::Derivation> result;
  };
  std::optional<Fit> fit;  // when the registry has "fit"
  struct Formula {
    std::string name, formula, calculator, query;
    std::optional<std::pair<std::string, std::string>> result;  // the derivation's title, the value
  };
  std::vector<Formula> formulas;
  std::vector<const calc::Accelerator*> chips;
  struct MustTopic {
    std::string name;
    size_t count = 0, free = 0;
    std::vector<QuestionItemView> questions;
  };
  std::vector<MustTopic> must_topics;
  struct Topic {
    std::string id, name, description;
    size_t questions = 0;
  };
  std::vector<Topic> topics;
  Html company_table;
  Offer offer;
};

View to_view(const HomeView& v) {
  View d;
  put(d, "questions", std::to_string(v.questions));
  put(d, "free", std::to_string(v.free));
  put(d, "paid", std::to_string(v.questions - v.free));
  put(d, "must", std::to_string(v.must));
  put(d, "must_free", std::to_string(v.must_free));
  put(d, "topic_count", std::to_string(v.topics_count));
  put(d, "calculators", std::to_string(v.calculators));
  put(d, "accelerators", std::to_string(v.accelerators));
  put(d, "company_count", std::to_string(v.companies));
  ViewList tracks;
  for (const auto& t : v.tracks) {
    View track;
    put(track, "id", t.id);
    put(track, "name", t.name);
    put(track, "description", t.description);
    put(track, "questions", count_of(t.questions, "question", "questions"));
    ViewList weights, companies, courses;
    for (size_t i = 0; i < t.topics.size(); ++i) {
      View w;
      put(w, "topic_id", t.topics[i].first);
      put(w, "topic_name", t.topics[i].second);
      put(w, "share", std::to_string(t.shares[i]));
      weights.push_back(std::move(w));
    }
    for (size_t i = 0; i < t.companies.size(); ++i) {
      View c;
      put(c, "comma", i > 0);
      put(c, "id", t.companies[i].first);
      put(c, "name", t.companies[i].second);
      companies.push_back(std::move(c));
    }
    for (const auto& [id, modules] : t.courses) {
      View c;
      put(c, "id", id);
      put(c, "modules", count_of(modules, "module", "modules"));
      courses.push_back(std::move(c));
    }
    put(track, "weights", std::move(weights));
    put(track, "has_companies", !t.companies.empty());
    put(track, "companies", std::move(companies));
    put(track, "courses", std::move(courses));
    tracks.push_back(std::move(track));
  }
  put(d, "tracks", std::move(tracks));
  if (v.fit) {
    View fit;
    ViewList fields;
    for (const auto& f : v.fit->fields) fields.push_back(to_view(f));
    put(fit, "fields", std::move(fields));
    if (const auto& r = v.fit->result) {
      View result;
      for (const char* key : {"kv_bytes_per_token", "kv_bytes_per_sequence", "max_sequences", "weights_bytes"}) {
        put(result, key, display(*r, key));
      }
      put(result, "conclusion", r->conclusion());
      put(result, "derivation_html", calc::render_html(*r));
      put(fit, "result", std::move(result));
    } else {
      put(fit, "result", false);
    }
    put(d, "fit", std::move(fit));
  } else {
    put(d, "fit", false);
  }
  put(d, "formula_count", capitalized(spelled(v.formulas.size())));
  ViewList formulas, chips, must_topics, topics;
  for (const auto& f : v.formulas) {
    View formula;
    put(formula, "name", f.name);
    put(formula, "formula", f.formula);
    put(formula, "calculator", f.calculator);
    put(formula, "query", f.query);
    if (f.result) {
      View result;
      put(result, "title", f.result->first);
      put(result, "value", f.result->second);
      put(formula, "result", std::move(result));
    } else {
      put(formula, "result", false);
    }
    formulas.push_back(std::move(formula));
  }
  put(d, "formulas", std::move(formulas));
  for (const calc::Accelerator* a : v.chips) {
    double bf16 = a->peak(calc::Dtype::kBf16), fp8 = a->peak(calc::Dtype::kFp8);
    View chip;
    put(chip, "id", a->id);
    put(chip, "name", a->name);
    put(chip, "memory", calc::format_quantity(a->memory_bytes, calc::Unit::kBytes));
    put(chip, "bandwidth", calc::format_quantity(a->memory_bandwidth, calc::Unit::kBytesPerSecond));
    put(chip, "bf16", calc::format_quantity(bf16, calc::Unit::kFlopPerSecond));
    put(chip, "fp8", fp8 > 0 ? calc::format_quantity(fp8, calc::Unit::kFlopPerSecond) : "none");
    put(chip, "ridge", calc::format_significant(bf16 / a->memory_bandwidth, 3));
    put(chip, "as_of", a->as_of);
    chips.push_back(std::move(chip));
  }
  put(d, "chips", std::move(chips));
  for (const auto& m : v.must_topics) {
    View topic;
    put(topic, "name", m.name);
    put(topic, "count", std::to_string(m.count) + (m.free == m.count ? " free" : ", " + std::to_string(m.free) + " free"));
    ViewList questions;
    for (const auto& q : m.questions) questions.push_back(to_view(q));
    put(topic, "questions", std::move(questions));
    must_topics.push_back(std::move(topic));
  }
  put(d, "must_topics", std::move(must_topics));
  for (const auto& t : v.topics) {
    View topic;
    put(topic, "id", t.id);
    put(topic, "name", t.name);
    put(topic, "description", t.description);
    put(topic, "questions", count_of(t.questions, "question", "questions"));
    topics.push_back(std::move(topic));
  }
  put(d, "topics", std::move(topics));
  put(d, "company_table_html", v.company_table.text);
  put(d, "price", v.offer.price);
  put(d, "months", std::to_string(v.offer.months));
  return d;
}

}  // namespace

std::string home_page(const Site& site, const Offer& offer) {
  const auto& bank = site.bank;
  HomeView v;
  for (const auto& q : bank.questions) {
    v.free += q.free ? 1 : 0;
    v.must += q.must_know ? 1 : 0;
    v.must_free += q.must_know && q.free ? 1 : 0;
  }
  v.questions = bank.questions.size();
  v.topics_count = bank.topics.size();
  v.calculators = site.registry.all().size();
  v.accelerators = site.catalog.hardware.all().size();
  v.companies = bank.companies.size();

  // Which loop: each track with what its rounds weigh (the readiness check's weights, as
  // shares) and the companies whose loops the bank places on it.
  for (const auto& t : bank.tracks) {
    HomeView::Track track{t.id, t.name, t.description, bank.by_track(t.id).size(), {}, {}, {}, {}};
    std::vector<std::pair<int, std::string>> weights;
    int total = 0;
    for (const auto& [topic, w] : t.weights) {
      weights.emplace_back(-w, topic);
      total += w;
    }
    std::sort(weights.begin(), weights.end());
    for (const auto& [w, topic] : weights) {
      track.topics.emplace_back(topic, topic_name(site, topic));
      track.shares.push_back(total > 0 ? static_cast<int>(-w * 100.0 / total + 0.5) : 0);
    }
    for (const auto& [id, c] : bank.companies) {
      if (std::find(c.tracks.begin(), c.tracks.end(), t.id) != c.tracks.end()) track.companies.emplace_back(c.id, c.name);
    }
    for (const auto& [id, course] : bank.courses) {
      if (course.track == t.id) track.courses.emplace_back(id, course.modules.size());
    }
    v.tracks.push_back(std::move(track));
  }

  // The live "will it fit?" widget.
  calc::Given fit_in = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}};
  if (const calc::Calculator* fit = site.registry.find("fit")) {
    HomeView::Fit widget;
    for (const auto& spec : fit->params) {
      if (spec.name == "model" || spec.name == "gpu" || spec.name == "gpus" || spec.name == "context") {
        widget.fields.push_back(field_view(site, spec, fit_in, "", "fit"));
      }
    }
    widget.result = evaluate(site, "fit", fit_in);
    v.fit = std::move(widget);
  }

  // The formulas, each worked by the engine.
  struct Formula {
    const char* name;
    const char* formula;
    const char* calculator;
    calc::Given given;
    const char* key;
  };
  const Formula formulas[] = {
      {"Training FLOPs", "6 × N × D", "train", {{"params", "70B"}, {"tokens", "15T"}, {"gpu", "h100-sxm"}, {"gpus", "2048"}, {"mfu", "0.4"}}, "train_flops"},
      {"KV cache per token", "2 × L × H_kv × d × bytes", "fit", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}}, "kv_bytes_per_token"},
      {"Ridge point", "peak FLOP/s ÷ bandwidth", "roofline", {{"gpu", "h100-sxm"}}, "ridge_flops_per_byte"},
      {"MFU", "achieved FLOP/s ÷ peak", "mfu", {{"params", "405B"}, {"tokens", "15.6T"}, {"gpu", "h100-sxm"}, {"gpu-hours", "30.84e6"}}, "mfu"},
      {"Decode tokens/s", "batch × bandwidth ÷ bytes per step", "decode", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "8"}}, "tokens_per_second"},
      {"Dollars per million tokens", "$/s ÷ tokens/s × 10⁶", "cost", {{"usd-per-hour", "2.50"}, {"tokens-per-second", "1000"}}, "usd_per_million_tokens"},
  };
  for (const auto& f : formulas) {
    HomeView::Formula formula{f.name, f.formula, f.calculator, "", std::nullopt};
    for (const auto& [k, value] : f.given) formula.query += (formula.query.empty() ? "?" : "&") + url_encode(k) + "=" + url_encode(value);
    if (auto d = evaluate(site, f.calculator, f.given)) formula.result.emplace(d->title(), display(*d, f.key));
    v.formulas.push_back(std::move(formula));
  }

  for (const auto& a : site.catalog.hardware.all()) v.chips.push_back(&a);

  // The must-know set, grouped by topic (folded, so the page stays short; all in the HTML).
  for (const auto& t : bank.topics) {
    HomeView::MustTopic topic{t.name, 0, 0, {}};
    for (size_t i : bank.by_topic(t.id)) {
      const auto& q = bank.questions[i];
      if (!q.must_know) continue;
      ++topic.count;
      topic.free += q.free ? 1 : 0;
      topic.questions.push_back(question_item_view(q));
    }
    if (topic.count > 0) v.must_topics.push_back(std::move(topic));
  }
  for (const auto& t : bank.topics) v.topics.push_back({t.id, t.name, t.description, bank.by_topic(t.id).size()});
  v.company_table = Html{company_table(site)};
  v.offer = offer;
  return layout(site, "Interview preparation for AI infrastructure", "Questions with worked numbers, calculators and the hardware catalog",
                render("home", to_view(v)));
}

namespace {

// quantity.mustache: a figure with its unit, or "not published" for a zero.
View quantity_view(double value, calc::Unit unit) {
  return View(kainjow::mustache::object{{"published", value > 0}, {"text", value > 0 ? calc::format_quantity(value, unit) : ""}});
}

// source_link.mustache: a source's name, linked when it has a URL.
View source_view(const std::string& name, const std::string& url) {
  return View(kainjow::mustache::object{{"name", name}, {"url", url}, {"has_url", !url.empty()}});
}

// hardware.mustache: every accelerator's figures, then the vendors' systems.
struct HardwareView {
  std::vector<calc::Dtype> dtypes;  // those at least one chip supports
  std::vector<const calc::Accelerator*> chips;
};

View to_view(const HardwareView& v) {
  View d;
  ViewList dtypes, chips, systems;
  for (calc::Dtype t : v.dtypes) dtypes.emplace_back(std::string(calc::dtype_name(t)));
  for (const calc::Accelerator* a : v.chips) {
    ViewList peaks;
    for (calc::Dtype t : v.dtypes) {
      bool supported = a->supports(t);
      peaks.push_back(View(kainjow::mustache::object{
          {"supported", supported}, {"text", supported ? calc::format_quantity(a->peak(t), calc::Unit::kFlopPerSecond) : ""}}));
    }
    chips.push_back(View(kainjow::mustache::object{{"id", a->id},
                                                   {"name", a->name},
                                                   {"vendor", a->vendor},
                                                   {"generation", a->generation},
                                                   {"memory", quantity_view(a->memory_bytes, calc::Unit::kBytes)},
                                                   {"memory_type", a->memory_type},
                                                   {"bandwidth", quantity_view(a->memory_bandwidth, calc::Unit::kBytesPerSecond)},
                                                   {"scale_up", a->scale_up},
                                                   {"scale_up_bandwidth", quantity_view(a->scale_up_bandwidth, calc::Unit::kBytesPerSecond)},
                                                   {"power", quantity_view(a->power_watts, calc::Unit::kWatts)},
                                                   {"peaks", peaks},
                                                   {"source", source_view(a->source, a->source_url)},
                                                   {"as_of", a->as_of}}));
    if (!a->has_system()) continue;
    const auto& s = a->system;
    systems.push_back(View(kainjow::mustache::object{{"name", s.name},
                                                     {"gpus", calc::format_significant(s.gpus, 3)},
                                                     {"chip", a->name},
                                                     {"power", quantity_view(s.power_watts, calc::Unit::kWatts)},
                                                     {"power_per_gpu", quantity_view(s.power_per_gpu(), calc::Unit::kWatts)},
                                                     {"scale_out", quantity_view(s.scale_out_bandwidth(), calc::Unit::kBytesPerSecond)},
                                                     {"source", source_view(s.source, s.source_url)},
                                                     {"as_of", s.as_of}}));
  }
  put(d, "dtypes", std::move(dtypes));
  put(d, "chips", std::move(chips));
  put(d, "systems", std::move(systems));
  return d;
}

}  // namespace

std::string hardware_page(const Site& site) {
  HardwareView v;
  for (const auto& a : site.catalog.hardware.all()) v.chips.push_back(&a);
  for (calc::Dtype d : calc::kAllDtypes) {
    if (std::any_of(v.chips.begin(), v.chips.end(), [&](const calc::Accelerator* a) { return a->supports(d); })) v.dtypes.push_back(d);
  }
  return layout(site, "Hardware", "Accelerator specifications with sources and dates", render("hardware", to_view(v)));
}

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
  put(d, "summary", v.summary);
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
          {"id", c.id}, {"title", c.title}, {"summary", c.summary}, {"count", std::to_string(c.questions)}}));
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
  return layout(site, track.name, track.description, render("track", to_view(site, v)));
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
  put(d, "updated", c.updated);
  put(d, "has_summary", !c.summary.empty());
  put(d, "summary", c.summary);
  put(d, "has_note", !c.note.empty());
  put(d, "note", c.note);
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
        {"id", s.id}, {"title", s.title}, {"kind", s.kind}, {"url", s.url}, {"read", s.read}}));
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
                render("company", to_view(v)));
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
  put(d, "tldr", v.tldr);
  put(d, "has_lab", !v.lab.empty());
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

std::string question_page(const Site& site, const bank::Question& q) {
  QuestionView v;
  v.topic_id = q.topic;
  v.topic_name = topic_name(site, q.topic);
  v.difficulty = bank::difficulty_name(q.difficulty);
  v.slug = q.slug;
  v.title = q.title;
  v.updated = q.updated;
  v.tldr = q.tldr;
  v.lab = q.lab;
  v.tracks = q.tracks;
  v.free = q.free;
  v.answer = Html{enhance_answer(q.html)};
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
  return layout(site, q.title, q.tldr, render_around("question", to_view(v), v.answer.text));
}

namespace {

// The performance model against published runs (`ridge validate --json`): each run's
// prediction, the measured figure, the signed error, the source; then the error per group.
struct ValidationView {
  struct Run {
    std::string id, half;
    bool has_prediction = false;
    std::string predicted, measured, error;  // with units; the error's magnitude in percent
    bool negative = false;
    std::string failure;       // without a prediction
    std::string source, url;   // url: linked only when https
  };
  struct Group {
    std::string heading, mean, worst, n, held_out_mean, held_out_worst;
    std::vector<Run> runs;
  };
  std::vector<Group> groups;
};

std::optional<ValidationView> validation_view(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("runs")) return std::nullopt;
  ValidationView out;
  auto pct = [](double x) { return calc::format_significant(x * 100, 3) + "%"; };
  for (const char* group : {"training", "serving"}) {
    const auto& sum = v["summary"][group];
    ValidationView::Group g{group == std::string("training") ? "Training: step time, throughput and MFU" : "Serving: latency and throughput",
                            pct(sum["all"]["mean_abs_error"].get<double>()),
                            pct(sum["all"]["worst_abs_error"].get<double>()),
                            std::to_string(sum["all"]["n"].get<int>()),
                            pct(sum["held-out"]["mean_abs_error"].get<double>()),
                            pct(sum["held-out"]["worst_abs_error"].get<double>()),
                            {}};
    for (const auto& r : v["runs"]) {
      if (r.value("group", "") != group) continue;
      ValidationView::Run run;
      run.id = r.value("id", "");
      run.half = r.value("half", "");
      std::string unit = r.value("unit", "");
      if (r.contains("predicted")) {
        double err = r["error"].get<double>() * 100;
        run.has_prediction = true;
        run.predicted = calc::format_significant(r["predicted"].get<double>(), 3) + " " + unit;
        run.measured = calc::format_significant(r["measured"].get<double>(), 3) + " " + unit;
        run.negative = err < 0;
        run.error = calc::format_significant(std::abs(err), 2);
      } else {
        run.failure = r.value("failure", "");
      }
      run.source = r.value("source", "") + (r.value("date", "").empty() ? "" : ", " + r.value("date", ""));
      std::string url = r.value("url", "");
      if (url.rfind("https://", 0) == 0) run.url = url;
      g.runs.push_back(std::move(run));
    }
    out.groups.push_back(std::move(g));
  }
  return out;
}

View to_view(const ValidationView& v) {
  ViewList groups;
  for (const auto& g : v.groups) {
    ViewList runs;
    for (const auto& r : g.runs) {
      runs.push_back(View(kainjow::mustache::object{{"id", r.id},
                                                    {"half", r.half},
                                                    {"has_prediction", r.has_prediction},
                                                    {"predicted", r.predicted},
                                                    {"measured", r.measured},
                                                    {"negative", r.negative},
                                                    {"error", r.error},
                                                    {"failure", r.failure},
                                                    {"has_link", !r.url.empty()},
                                                    {"url", r.url},
                                                    {"source", r.source}}));
    }
    groups.push_back(View(kainjow::mustache::object{{"heading", g.heading},
                                                    {"mean", g.mean},
                                                    {"worst", g.worst},
                                                    {"n", g.n},
                                                    {"held_out_mean", g.held_out_mean},
                                                    {"held_out_worst", g.held_out_worst},
                                                    {"runs", runs}}));
  }
  return object_with("groups", list_view(std::move(groups)));
}

}  // namespace

std::string calculators_index(const Site& site, const nlohmann::json& validation) {
  View d;
  ViewList calculators;
  for (const auto& c : site.registry.all()) calculators.push_back(View(kainjow::mustache::object{{"name", c.name}, {"summary", c.summary}}));
  put(d, "calculators", std::move(calculators));
  auto table = validation_view(validation);
  put(d, "validation", table ? to_view(*table) : View(false));
  return layout(site, "Calculators", "Napkin-math calculators for AI infrastructure", render("calculators_index", d));
}

namespace {

// calculator.mustache: the form from the calculator's specs, then the derivation or the errors
// next to their fields, the diagram and the same call for the terminal.
struct CalculatorView {
  std::string name, summary, form_error;
  std::vector<FieldView> fields;
  Html result;                              // the derivation (calc::render_html), when it succeeded
  std::optional<std::string> diagram_kind;  // with a result whose calculator has a diagram
  std::string query;                        // "?k=v&..." of the values, for the diagram's URL
  std::vector<std::pair<std::string, std::string>> values;
};

View to_view(const CalculatorView& v) {
  View d;
  put(d, "name", v.name);
  put(d, "summary", v.summary);
  put(d, "form_error", v.form_error);
  ViewList fields, values;
  for (const auto& f : v.fields) fields.push_back(to_view(f));
  put(d, "fields", std::move(fields));
  put(d, "result_html", v.result.text);
  if (v.diagram_kind) {
    View diagram;
    put(diagram, "query", v.query);
    put(diagram, "alt", *v.diagram_kind + " diagram of this result");
    put(d, "diagram", std::move(diagram));
  } else {
    put(d, "diagram", false);
  }
  for (const auto& [k, value] : v.values) {
    View item;
    put(item, "key", k);
    put(item, "value", value);
    values.push_back(std::move(item));
  }
  put(d, "values", std::move(values));
  return d;
}

// search.mustache: the form, filled in; the count, the hits and the pages.
struct SearchView {
  std::string query, topic, difficulty;
  std::vector<std::pair<std::string, std::string>> topics;  // id, name
  const std::vector<SearchHit>* hits = nullptr;
  SearchPaging paging;
};

View to_view(const SearchView& v) {
  View d;
  put(d, "query", v.query);
  ViewList topics, difficulties, hits, pages;
  for (const auto& [id, name] : v.topics) {
    View t;
    put(t, "id", id);
    put(t, "name", name);
    put(t, "selected", id == v.topic);
    topics.push_back(std::move(t));
  }
  put(d, "topics", std::move(topics));
  for (bank::Difficulty level : kDifficulties) {
    std::string name(bank::difficulty_name(level));
    View t;
    put(t, "name", name);
    put(t, "selected", name == v.difficulty);
    difficulties.push_back(std::move(t));
  }
  put(d, "difficulties", std::move(difficulties));
  put(d, "searched", !v.query.empty());
  const SearchPaging& paging = v.paging;
  int first = (paging.page - 1) * paging.per_page + 1;
  put(d, "total", std::to_string(paging.total));
  put(d, "plural", paging.total != 1);
  put(d, "shown", paging.total > paging.per_page && !v.hits->empty());
  put(d, "first", std::to_string(first));
  put(d, "last", std::to_string(first + static_cast<int>(v.hits->size()) - 1));
  put(d, "timed_out", paging.timed_out);
  for (const auto& h : *v.hits) {
    View hit;
    put(hit, "href", h.kind == "question" ? "/q/" + h.id : "/concepts/" + h.id);
    put(hit, "title", h.title);
    put(hit, "tag", h.kind == "question" ? h.difficulty : "concept");
    put(hit, "snippet_html", h.snippet_html);  // escaped by the search index, with <mark> around matches
    hits.push_back(std::move(hit));
  }
  put(d, "hits", std::move(hits));
  int count = (paging.total + paging.per_page - 1) / paging.per_page;
  put(d, "paged", count > 1);
  std::string base = "/search?q=" + url_encode(v.query) + (v.topic.empty() ? "" : "&topic=" + url_encode(v.topic)) +
                     (v.difficulty.empty() ? "" : "&difficulty=" + url_encode(v.difficulty)) + "&page=";
  auto link = [&](int p) { return object_with("href", base + std::to_string(p)); };
  put(d, "prev", paging.page > 1 ? link(paging.page - 1) : View(false));
  put(d, "next", paging.page < count ? link(paging.page + 1) : View(false));
  for (int p = 1; count > 1 && p <= count; ++p) {
    View page = link(p);
    put(page, "n", std::to_string(p));
    put(page, "current", p == paging.page);
    pages.push_back(std::move(page));
  }
  put(d, "pages", std::move(pages));
  return d;
}

}  // namespace

std::string calculator_page(const Site& site, const calc::Calculator& c, const calc::Given& values,
                            const calc::Result<calc::Derivation>* result) {
  std::map<std::string, std::string> errors;
  CalculatorView v;
  v.name = c.name;
  v.summary = c.summary;
  if (result && !result->ok()) {
    for (const auto& err : result->errors()) {
      std::string message = (err.value.empty() ? "" : "'" + err.value + "' ") + err.message +
                            (err.accepted.empty() ? "" : "; accepted: " + err.accepted);
      if (std::any_of(c.params.begin(), c.params.end(), [&](const calc::ParamSpec& s) { return s.name == err.field; })) {
        errors[err.field] += message;
      } else {
        v.form_error += err.to_string() + " ";
      }
    }
  }
  for (const auto& spec : c.params) {
    if (spec.type == calc::ParamType::kConfig) continue;  // the web reads no files
    auto it = errors.find(spec.name);
    v.fields.push_back(field_view(site, spec, values, it == errors.end() ? "" : it->second, "c"));
  }
  if (result && result->ok()) {
    v.result = Html{calc::render_html(**result)};
    v.diagram_kind = diagram::kind_for_calculator(c.name);
  }
  for (const auto& [k, value] : values) {
    v.query += (v.query.empty() ? "?" : "&") + url_encode(k) + "=" + url_encode(value);
    v.values.emplace_back(k, value);
  }
  return layout(site, c.name + " calculator", c.summary, render("calculator", to_view(v)));
}

std::string search_page(const Site& site, const std::string& query, const std::string& topic,
                        const std::string& difficulty, const std::vector<SearchHit>& hits, const SearchPaging& paging) {
  SearchView v{query, topic, difficulty, {}, &hits, paging};
  for (const auto& t : site.bank.topics) v.topics.emplace_back(t.id, t.name);
  return layout(site, query.empty() ? "Search" : "Search: " + query, "Search questions and concepts", render("search", to_view(v)));
}

std::string diagrams_page(const Site& site) {
  struct Example {
    const char* kind;
    calc::Given params;
  };
  const Example examples[] = {
      {"roofline", {{"gpu", "h100-sxm,b200,mi300x"}, {"kernels", "softmax@1.25,gemm@600"}}},
      {"pipeline", {{"stages", "4"}, {"microbatches", "8"}, {"schedule", "1f1b"}}},
      {"ring", {{"bytes", "16GB"}, {"ranks", "8"}, {"bus-bandwidth", "400GB/s"}}},
      {"kv-blocks", {{"tokens", "40,25,33"}, {"block-size", "16"}, {"shared-prefix", "16"}}},
      {"memory", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}, {"sequences", "64"}}},
      {"checkpoint", {{"mtbf-hours", "3"}, {"write-seconds", "60"}}},
      {"step-waterfall", {{"params", "70B"}, {"tokens", "4M"}, {"gpu", "h100-sxm"}, {"gpus", "1024"}, {"seconds", "6"}, {"comm", "0.8"}, {"bubble", "0.6"}}},
  };
  ViewList diagrams;
  int n = 0;
  for (const auto& ex : examples) {
    diagram::Options options;
    options.id = "gallery-" + std::to_string(++n);
    auto drawn = diagram::draw(ex.kind, ex.params, site.registry, site.catalog, options);
    std::string call;
    for (const auto& [k, value] : ex.params) call += " " + k + "=" + value;
    View d;
    put(d, "kind", ex.kind);
    put(d, "call", call);
    put(d, "drawn", drawn.ok());
    put(d, "svg_html", drawn ? drawn->svg : "");  // the diagram's SVG, drawn (and escaped) by the engine
    put(d, "error", drawn ? "" : calc::to_string(drawn.errors()));
    diagrams.push_back(std::move(d));
  }
  return layout(site, "Diagrams", "The diagram kinds drawn from the engine", render("diagrams", object_with("diagrams", list_view(std::move(diagrams)))));
}

namespace {

// A paid question's page without its answer (locked_question.mustache, paywall_question.mustache).
struct QuestionDoorView {
  std::string topic_id, topic_name, slug, title, summary, tldr;
  std::string price;             // the paywall's: "$39"
  bool billing_enabled = false;  // the paywall's: a checkout exists (else access is granted by hand)
};

QuestionDoorView question_door_view(const Site& site, const bank::Question& q) {
  return {q.topic, topic_name(site, q.topic), q.slug, q.title, q.summary, q.tldr, "", false};
}

View to_view(const QuestionDoorView& v) {
  View d;
  put(d, "topic_id", v.topic_id);
  put(d, "topic_name", v.topic_name);
  put(d, "slug", v.slug);
  put(d, "title", v.title);
  put(d, "summary", v.summary);
  put(d, "tldr", v.tldr);
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
  v.price = price;
  v.billing_enabled = billing_enabled;
  return layout(site, q.title, q.tldr, render("paywall_question", to_view(v)));
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
