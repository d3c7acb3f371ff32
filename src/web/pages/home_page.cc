// The home page (the bank in numbers, the tracks, the live "will it fit?", the formulas, the
// hardware, the must-know set, the topics, the companies, the price) and the hardware tables.
#include "web/pages.h"

#include <algorithm>
#include <optional>

#include "calc/dates.h"
#include "web/http.h"
#include "web/pages/parts.h"

namespace ridge::web {

using namespace parts;

namespace {

std::string count_of(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// home.mustache: the bank in numbers, the tracks, the live "will it fit?", the formulas, the
// hardware, the must-know set, the topics, the companies, the price and the weekly question.
struct HomeView {
  size_t questions = 0, free = 0, must = 0, must_free = 0, topics_count = 0, calculators = 0, accelerators = 0, companies = 0;
  // Companies listed, and those whose loop has at least one reported round: a page that says
  // nothing first-hand is public is listed but is not counted as a loop (issue 33, item 9).
  size_t companies_with_rounds = 0;
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
  put(d, "reported_loops", std::to_string(v.companies_with_rounds));
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
    put(chip, "as_of", calc::date_in_words(a->as_of));
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
  v.companies_with_rounds = static_cast<size_t>(std::count_if(bank.companies.begin(), bank.companies.end(), [](const auto& kv) { return !kv.second.rounds.empty(); }));

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
  return View(kainjow::mustache::object{{"published", value > 0},
                                        {"text", value > 0 ? calc::format_quantity(value, unit) : ""},
                                        {"sort", calc::format_significant(value, 6)}});  // a sortable column's key
}

// "2022-03-01" as 20220301: the "As of" column sorts by date while it shows the date in words.
std::string iso_sort_key(std::string iso) {
  iso.erase(std::remove(iso.begin(), iso.end(), '-'), iso.end());
  return iso;
}

// source_link.mustache: a source's name, linked when it has a URL.
View source_view(const std::string& name, const std::string& url) {
  return View(kainjow::mustache::object{{"name", calc::dates_in_words(name)}, {"url", url}, {"has_url", !url.empty()}});
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
          {"supported", supported},
          {"text", supported ? calc::format_quantity(a->peak(t), calc::Unit::kFlopPerSecond) : ""},
          {"sort", supported ? calc::format_significant(a->peak(t), 6) : "0"}}));
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
                                                   {"as_of", a->as_of},
                                                   {"as_of_words", calc::date_in_words(a->as_of)},
                                                   {"as_of_sort", iso_sort_key(a->as_of)}}));
    if (!a->has_system()) continue;
    const auto& s = a->system;
    systems.push_back(View(kainjow::mustache::object{{"name", s.name},
                                                     {"gpus", calc::format_significant(s.gpus, 3)},
                                                     {"chip", a->name},
                                                     {"power", quantity_view(s.power_watts, calc::Unit::kWatts)},
                                                     {"power_per_gpu", quantity_view(s.power_per_gpu(), calc::Unit::kWatts)},
                                                     {"scale_out", quantity_view(s.scale_out_bandwidth(), calc::Unit::kBytesPerSecond)},
                                                     {"source", source_view(s.source, s.source_url)},
                                                     {"as_of", s.as_of},
                                                     {"as_of_words", calc::date_in_words(s.as_of)}}));
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

}  // namespace ridge::web
