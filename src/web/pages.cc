#include "web/pages.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <map>
#include <sstream>

#include "diagram/diagrams.h"
#include "practice/card_state.h"
#include "web/http.h"

namespace ridge::web {

using calc::html_escape;

namespace {

std::string e(std::string_view s) { return html_escape(s); }

std::string question_link(const bank::Question& q) {
  std::string tags = "<span class=\"tag\">" + std::string(bank::difficulty_name(q.difficulty)) + "</span>";
  if (q.free) tags += "<span class=\"tag free\">free</span>";
  return "<a href=\"/q/" + e(q.slug) + "\">" + e(q.title) + "</a> " + tags;
}

// The filter bar above a list of questions (app.js applies it; without script every
// question stays listed). For a signed-in visitor app.js shows the state filter and marks
// each question with its state (new, due, seen, mastered) and bookmark.
std::string list_filters(const Site& site) {
  std::string out = "<form class=\"filters\" data-filter-list aria-label=\"Filter the questions\">"
                    "<label>Difficulty <select name=\"difficulty\"><option value=\"\">any</option>";
  for (const char* d : {"easy", "medium", "hard", "expert"}) out += std::string("<option>") + d + "</option>";
  out += "</select></label> <label>Track <select name=\"track\"><option value=\"\">any</option>";
  for (const auto& t : site.bank.tracks) out += "<option value=\"" + e(t.id) + "\">" + e(t.name) + "</option>";
  out += "</select></label> <label>Company <select name=\"company\"><option value=\"\">any</option>";
  // Companies that name a question (in their file or in the question's front matter).
  for (const auto& [id, c] : site.bank.companies) {
    if (!site.bank.by_company(id).empty()) out += "<option value=\"" + e(id) + "\">" + e(c.name) + "</option>";
  }
  out += "</select></label> <span data-signed-in hidden><label>State <select name=\"state\"><option value=\"\">any</option>"
         "<option value=\"new\">new</option><option value=\"due\">due</option><option value=\"seen\">seen</option>"
         "<option value=\"mastered\">mastered</option></select></label> "
         "<label><input type=\"checkbox\" name=\"bookmarked\" value=\"1\"> bookmarked</label></span> "
         "<label><input type=\"checkbox\" name=\"free\" value=\"1\"> free only</label> <span class=\"muted\" data-filter-count></span>"
         "<p class=\"hint\" data-signed-in hidden id=\"state-legend\">New: not graded yet. Due: its review is due now. Seen: graded, "
         "next review coming. Mastered: " + calc::format_significant(practice::kMasteredStabilityDays, 3) +
         " days of stability or more (FSRS: at the default retention it next comes back in three weeks or later).</p></form>";
  return out;
}

std::string question_list(const Site& site, const std::vector<size_t>& indexes) {
  if (indexes.empty()) return "<p class=\"muted\">No questions here yet.</p>\n";
  std::string out = "<ol class=\"questions\">\n";
  for (size_t i : indexes) {
    const auto& q = site.bank.questions[i];
    std::string tracks, companies;
    for (const auto& t : q.tracks) tracks += (tracks.empty() ? "" : " ") + t;
    for (const auto& c : q.companies) companies += (companies.empty() ? "" : " ") + c.id;
    out += "<li data-slug=\"" + e(q.slug) + "\" data-difficulty=\"" + e(std::string(bank::difficulty_name(q.difficulty))) +
           "\" data-tracks=\"" + e(tracks) + "\" data-companies=\"" + e(companies) + "\" data-free=\"" + (q.free ? "1" : "0") + "\">" +
           question_link(q) + (q.summary.empty() ? "" : "<br><span class=\"muted summary\">" + e(q.summary) + "</span>") + "</li>\n";
  }
  return out + "</ol>\n";
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

std::string field(const Site& site, const calc::ParamSpec& spec, const calc::Given& values, const std::string& error,
                  const std::string& form_id) {
  std::string id = form_id + "-" + spec.name;
  auto it = values.find(spec.name);
  std::string value = it != values.end() ? it->second : spec.default_value;
  std::string hint = spec.help;
  std::string accepted = calc::accepted_range(spec, site.catalog);
  if (spec.type == calc::ParamType::kNumber || spec.type == calc::ParamType::kCount) {
    std::string unit(calc::unit_symbol(spec.unit));
    if (!unit.empty() && unit != "count") hint += " (" + unit + "; " + accepted + ")";
    else hint += " (" + accepted + ")";
  }
  std::string invalid = error.empty() ? "" : " aria-invalid=\"true\"";
  std::string out = "<div class=\"field\"><label for=\"" + e(id) + "\">" + e(spec.name) + (spec.required || !spec.default_value.empty() ? "" : " <span class=\"muted\">(optional)</span>") + "</label>";
  auto select = [&](const std::vector<std::pair<std::string, std::string>>& options) {
    std::string s = "<select id=\"" + e(id) + "\" name=\"" + e(spec.name) + "\" aria-describedby=\"" + e(id) + "-hint " +
                    e(id) + "-err\"" + invalid + ">";
    if (!spec.required && spec.default_value.empty()) s += "<option value=\"\">(none)</option>";
    for (const auto& [v, label] : options) {
      s += "<option value=\"" + e(v) + "\"" + (v == value ? " selected" : "") + ">" + e(label) + "</option>";
    }
    return s + "</select>";
  };
  switch (spec.type) {
    case calc::ParamType::kGpu: {
      std::vector<std::pair<std::string, std::string>> options;
      for (const auto& a : site.catalog.hardware.all()) options.emplace_back(a.id, a.name);
      out += select(options);
      break;
    }
    case calc::ParamType::kModel: {
      std::vector<std::pair<std::string, std::string>> options;
      for (const auto& [mid, m] : site.catalog.models) options.emplace_back(mid, mid);
      out += select(options);
      break;
    }
    case calc::ParamType::kDtype: {
      std::vector<std::pair<std::string, std::string>> options;
      for (calc::Dtype d : calc::kAllDtypes) options.emplace_back(std::string(calc::dtype_name(d)), std::string(calc::dtype_name(d)));
      out += select(options);
      break;
    }
    case calc::ParamType::kChoice: {
      std::vector<std::pair<std::string, std::string>> options;
      for (const auto& c : spec.choices) options.emplace_back(c, c);
      out += select(options);
      break;
    }
    default:
      out += "<input id=\"" + e(id) + "\" name=\"" + e(spec.name) + "\" type=\"text\" inputmode=\"decimal\" value=\"" +
             e(value) + "\" placeholder=\"" + e(spec.example) + "\" aria-describedby=\"" + e(id) + "-hint " + e(id) +
             "-err\"" + invalid + ">";
  }
  out += "<span class=\"hint\" id=\"" + e(id) + "-hint\">" + e(hint) + "</span>";
  out += "<p class=\"error\" id=\"" + e(id) + "-err\" data-for=\"" + e(spec.name) + "\" role=\"alert\">" + e(error) + "</p>";
  return out + "</div>\n";
}

}  // namespace

calc::Given example_values(const calc::Calculator& c) {
  calc::Given given;
  std::istringstream words(c.example);
  std::string flag, value;
  while (words >> flag >> value) given[calc::normalize_param_name(flag)] = value;
  return given;
}

std::string layout(const Site& site, const std::string& title, const std::string& description, const std::string& body) {
  std::string topics;
  return "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>" + e(title) + " · ridge</title>\n"
         "<meta name=\"description\" content=\"" + e(description) + "\">\n"
         "<link rel=\"stylesheet\" href=\"" + site.assets.url("style.css") + "\">\n"
         "<link rel=\"icon\" type=\"image/svg+xml\" href=\"" + site.assets.url("favicon.svg") + "\">\n"
         "<script src=\"" + site.assets.url("app.js") + "\" defer></script>\n"
         "</head>\n<body>\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n"
         "<header class=\"site\"><div class=\"bar\"><a class=\"brand\" href=\"/\">"
         // The mark is a roofline: the bandwidth slope meeting the compute roof at the ridge.
         "<svg viewBox=\"0 0 24 24\" aria-hidden=\"true\" focusable=\"false\"><path d=\"M2 21 L10 7 L22 7\" fill=\"none\" "
         "stroke=\"currentColor\" stroke-width=\"2.5\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/><circle cx=\"10\" cy=\"7\" "
         "r=\"2.6\" fill=\"currentColor\"/></svg>ridge</a>\n"
         "<nav class=\"main\" aria-label=\"Main\"><a href=\"/topics\">Topics</a><a href=\"/courses\">Courses</a>"
         "<a href=\"/calc\">Calculators</a><a href=\"/concepts\">Concepts</a><a href=\"/companies\">Companies</a><a href=\"/drill\">Drill</a>"
         + std::string(kNavSignedOut) +
         "<form action=\"/search\" method=\"get\" role=\"search\"><label class=\"vh\" for=\"nav-q\">Search</label>"
         "<input id=\"nav-q\" name=\"q\" type=\"search\" placeholder=\"Search questions\"><button type=\"submit\">"
         "<svg viewBox=\"0 0 24 24\" aria-hidden=\"true\" focusable=\"false\"><circle cx=\"10.5\" cy=\"10.5\" r=\"6.5\" fill=\"none\" "
         "stroke=\"currentColor\" stroke-width=\"2.2\"/><path d=\"M15.5 15.5 L21 21\" stroke=\"currentColor\" stroke-width=\"2.2\" "
         "stroke-linecap=\"round\"/></svg><span class=\"vh\">Search</span></button></form>"
         "</nav></div></header>\n<main id=\"main\">\n" +
         body +
         "</main>\n<footer class=\"site\"><div class=\"bar\"><p>ridge: interview preparation for AI infrastructure. "
         "Every number on this site is computed by the engine or cited with its source.</p><nav aria-label=\"Site\">"
         "<a href=\"/subscribe\">The weekly question by mail</a><a href=\"/pricing\">Pricing</a><a href=\"/hardware\">Hardware</a>"
         "<a href=\"/diagrams\">Diagrams</a><a href=\"/easy\">By difficulty</a></nav></div></footer>\n</body>\n</html>\n";
}

std::string home_page(const Site& site, const Offer& offer) {
  const auto& bank = site.bank;
  size_t free = 0, must = 0, must_free = 0;
  for (const auto& q : bank.questions) {
    free += q.free ? 1 : 0;
    must += q.must_know ? 1 : 0;
    must_free += q.must_know && q.free ? 1 : 0;
  }
  auto count = [](size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  std::string body;
  body += "<section class=\"hero\"><h1>AI infrastructure interviews, with the numbers worked out</h1>"
          "<p class=\"lead\">Practice for the kernel, distributed-training, serving and GPU-fleet loops. Each answer carries its "
          "whole chain, from a config.json to a KV cache, from a datasheet to a ridge point, from a failure rate to a checkpoint "
          "interval, and the calculators on this page run the same engine.</p>"
          "<ul class=\"facts\" aria-label=\"The bank in numbers\"><li><strong>" + std::to_string(bank.questions.size()) +
          "</strong> questions</li><li><strong>" + std::to_string(free) + "</strong> free with their answers</li><li><strong>" +
          std::to_string(bank.topics.size()) + "</strong> topics</li><li><strong>" + std::to_string(site.registry.all().size()) +
          "</strong> calculators</li><li><strong>" + std::to_string(site.catalog.hardware.all().size()) +
          "</strong> accelerators</li><li><strong>" + std::to_string(bank.companies.size()) + "</strong> company loops</li></ul>"
          "<p class=\"actions\"><a class=\"button\" href=\"#must-h\">Start with the must-know set</a> "
          "<a class=\"button secondary\" href=\"#tracks-h\">Pick your loop</a></p></section>\n";

  // Which loop: each track with what its rounds weigh (the readiness check's weights, as
  // shares) and the companies whose loops the bank places on it.
  body += "<section aria-labelledby=\"tracks-h\"><h2 id=\"tracks-h\">Which loop are you preparing for?</h2><div class=\"grid tracks\">\n";
  for (const auto& t : bank.tracks) {
    std::vector<std::pair<int, std::string>> weights;
    int total = 0;
    for (const auto& [topic, w] : t.weights) {
      weights.emplace_back(-w, topic);
      total += w;
    }
    std::sort(weights.begin(), weights.end());
    body += "<div class=\"card track\"><h3><a href=\"/tracks/" + e(t.id) + "\">" + e(t.name) + "</a></h3><p>" + e(t.description) +
            "</p><p class=\"muted\">" + count(bank.by_track(t.id).size(), "question", "questions") + "</p>"
            "<h4>What the rounds weigh</h4><ul class=\"weights\">";
    for (const auto& [w, topic] : weights) {
      int share = total > 0 ? static_cast<int>(-w * 100.0 / total + 0.5) : 0;
      body += "<li><span class=\"w-name\"><a href=\"/topics/" + e(topic) + "\">" + e(topic_name(site, topic)) + "</a></span>"
              "<svg class=\"w-bar\" viewBox=\"0 0 100 6\" preserveAspectRatio=\"none\" aria-hidden=\"true\" focusable=\"false\">"
              "<rect class=\"w-track\" width=\"100\" height=\"6\" rx=\"3\"/><rect class=\"w-fill\" width=\"" + std::to_string(share) +
              "\" height=\"6\" rx=\"3\"/></svg>"
              "<span class=\"w-share\">" + std::to_string(share) + "%</span></li>";
    }
    body += "</ul>";
    std::vector<const bank::Company*> runs;
    for (const auto& [id, c] : bank.companies) {
      if (std::find(c.tracks.begin(), c.tracks.end(), t.id) != c.tracks.end()) runs.push_back(&c);
    }
    if (!runs.empty()) {
      body += "<h4>Companies that run it</h4><p class=\"companies-list\">";
      for (size_t i = 0; i < runs.size(); ++i) {
        body += (i ? ", " : "") + std::string("<a href=\"/companies/") + e(runs[i]->id) + "\">" + e(runs[i]->name) + "</a>";
      }
      body += "</p>";
    }
    for (const auto& [id, course] : bank.courses) {
      if (course.track == t.id) {
        body += "<p><a class=\"button secondary\" href=\"/courses/" + e(id) + "\">The course: " +
                count(course.modules.size(), "module", "modules") + "</a></p>";
      }
    }
    body += "</div>\n";
  }
  body += "</div></section>\n";

  // The live "will it fit?" widget.
  calc::Given fit_in = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}};
  if (const calc::Calculator* fit = site.registry.find("fit")) {
    auto d = evaluate(site, "fit", fit_in);
    body += "<section class=\"card\" aria-labelledby=\"fit-h\"><h2 id=\"fit-h\">Will it fit?</h2>\n"
            "<form class=\"calc\" action=\"/calc/fit\" method=\"get\" data-live=\"fit\" data-output=\"fit-out\">\n";
    for (const auto& spec : fit->params) {
      if (spec.name == "model" || spec.name == "gpu" || spec.name == "gpus" || spec.name == "context") {
        body += field(site, spec, fit_in, "", "fit");
      }
    }
    body += "<p class=\"error\" data-for=\"_form\"></p><div class=\"field\"><button type=\"submit\">Work it out</button></div></form>\n";
    // Any model from its own config.json: pasted or uploaded, sent to POST /api/calc/fit and
    // parsed by the same engine on the server (needs JavaScript; the catalog models do not).
    body += "<details class=\"config-upload\"><summary>Or size any model from its config.json</summary>"
            "<label for=\"fit-config\">Paste a config.json</label><textarea id=\"fit-config\" rows=\"4\" data-config-for=\"fit\" "
            "spellcheck=\"false\" placeholder=\"{&quot;hidden_size&quot;: 8192, ...}\"></textarea>"
            "<label for=\"fit-config-file\">or upload one</label> <input id=\"fit-config-file\" type=\"file\" accept=\".json,application/json\" "
            "data-config-file-for=\"fit-config\"><p class=\"muted\">Up to 1 MB; it is read on the server by the engine that reads "
            "<code>ridge calc fit --config</code>, and not kept.</p></details>\n";
    if (d) {
      body += "<div class=\"kpis\">"
              "<div class=\"kpi\"><span class=\"v\" data-result=\"kv_bytes_per_token\">" + e(display(*d, "kv_bytes_per_token")) +
              "</span><span class=\"k\">KV per token</span></div>"
              "<div class=\"kpi\"><span class=\"v\" data-result=\"kv_bytes_per_sequence\">" + e(display(*d, "kv_bytes_per_sequence")) +
              "</span><span class=\"k\">KV per sequence</span></div>"
              "<div class=\"kpi\"><span class=\"v\" data-result=\"max_sequences\">" + e(display(*d, "max_sequences")) +
              "</span><span class=\"k\">sequences that fit</span></div>"
              "<div class=\"kpi\"><span class=\"v\" data-result=\"weights_bytes\">" + e(display(*d, "weights_bytes")) +
              "</span><span class=\"k\">weights</span></div></div>\n"
              "<p data-conclusion>" + e(d->conclusion()) + "</p>\n<details class=\"derivation-more\"><summary>The worked chain, step by "
              "step</summary><div id=\"fit-out\">" + calc::render_html(*d) + "</div></details>\n";
    }
    body += "</section>\n";
  }

  // The six formulas, each worked by the engine.
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
  body += "<section aria-labelledby=\"formulas-h\"><h2 id=\"formulas-h\">Six formulas every loop expects</h2><div class=\"grid\">\n";
  for (const auto& f : formulas) {
    auto d = evaluate(site, f.calculator, f.given);
    std::string query;
    for (const auto& [k, v] : f.given) query += (query.empty() ? "?" : "&") + url_encode(k) + "=" + url_encode(v);
    body += "<div class=\"card\"><h3>" + e(f.name) + "</h3><p><code>" + e(f.formula) + "</code></p>";
    if (d) {
      body += "<p>" + e(d->title()) + ": <strong>" + e(display(*d, f.key)) + "</strong></p>";
    }
    body += "<p><a href=\"/calc/" + e(f.calculator) + e(query) + "\">Work it in the calculator</a></p></div>\n";
  }
  body += "</div></section>\n";

  // Hardware table from the catalog.
  body += "<section aria-labelledby=\"hw-h\"><h2 id=\"hw-h\">The hardware, dated</h2>"
          "<p class=\"muted\">Dense peaks from each vendor's datasheet; the ridge point is bf16 peak ÷ memory bandwidth.</p>"
          "<table><thead><tr><th scope=\"col\">Accelerator</th><th scope=\"col\">Memory</th><th scope=\"col\">Bandwidth</th>"
          "<th scope=\"col\">bf16 dense</th><th scope=\"col\">fp8 dense</th><th scope=\"col\">Ridge (FLOP/B)</th><th scope=\"col\">As of</th></tr></thead><tbody>\n";
  for (const auto& a : site.catalog.hardware.all()) {
    double bf16 = a.peak(calc::Dtype::kBf16), fp8 = a.peak(calc::Dtype::kFp8);
    body += "<tr><td><a href=\"/calc/roofline?gpu=" + e(a.id) + "\">" + e(a.name) + "</a></td><td>" +
            e(calc::format_quantity(a.memory_bytes, calc::Unit::kBytes)) + "</td><td>" +
            e(calc::format_quantity(a.memory_bandwidth, calc::Unit::kBytesPerSecond)) + "</td><td>" +
            e(calc::format_quantity(bf16, calc::Unit::kFlopPerSecond)) + "</td><td>" +
            (fp8 > 0 ? e(calc::format_quantity(fp8, calc::Unit::kFlopPerSecond)) : "none") + "</td><td>" +
            e(calc::format_significant(bf16 / a.memory_bandwidth, 3)) + "</td><td>" + e(a.as_of) + "</td></tr>\n";
  }
  body += "</tbody></table><p><a href=\"/hardware\">The full spec table</a>: every dtype's peak, the scale-up link, power, "
          "the vendor's system and each figure's source.</p></section>\n";

  // The must-know set, grouped by topic (folded, so the page stays short; all in the HTML).
  body += "<section aria-labelledby=\"must-h\"><h2 id=\"must-h\">The must-know set</h2><p>" + std::to_string(must) +
          " questions every loop in the field draws on, " + std::to_string(must_free) + " of them free with the worked answer. Start here.</p>"
          "<div class=\"must\">\n";
  for (const auto& t : bank.topics) {
    std::string items;
    size_t n = 0, n_free = 0;
    for (size_t i : bank.by_topic(t.id)) {
      const auto& q = bank.questions[i];
      if (!q.must_know) continue;
      ++n;
      n_free += q.free ? 1 : 0;
      items += "<li>" + question_link(q) + "</li>";
    }
    if (n == 0) continue;
    body += "<details><summary>" + e(t.name) + " <span class=\"muted\">" + std::to_string(n) +
            (n_free == n ? " free" : ", " + std::to_string(n_free) + " free") + "</span></summary><ol class=\"questions\">" + items +
            "</ol></details>\n";
  }
  body += "</div></section>\n";

  body += "<section aria-labelledby=\"topics-h\"><h2 id=\"topics-h\">" + std::to_string(bank.topics.size()) +
          " topics</h2><div class=\"grid\">\n";
  for (const auto& t : bank.topics) {
    body += "<div class=\"card\"><h3><a href=\"/topics/" + e(t.id) + "\">" + e(t.name) + "</a></h3><p class=\"muted\">" +
            count(bank.by_topic(t.id).size(), "question", "questions") + "</p><p>" + e(t.description) + "</p></div>\n";
  }
  body += "</div></section>\n<section aria-labelledby=\"co-h\"><h2 id=\"co-h\">" + std::to_string(bank.companies.size()) +
          " company loops</h2><p class=\"muted\">Each loop only as publicly reported, with its sources and a confidence level.</p>" +
          company_table(site) + "</section>\n";

  // The price and what it unlocks; then the weekly question.
  body += "<section aria-labelledby=\"price-h\" class=\"split\"><div class=\"card\"><h2 id=\"price-h\">Free, and what paying adds</h2>"
          "<ul class=\"checks\"><li>" + std::to_string(free) + " questions with their worked answers, " + std::to_string(must_free) +
          " of the must-know set among them</li>"
          "<li>every calculator, the hardware tables and the company loops</li><li>drills, spaced review and the readiness check "
          "with a free account</li></ul><p>Paid access adds the other " + std::to_string(bank.questions.size() - free) +
          " worked answers: <strong id=\"home-price\">" + e(offer.price) + "</strong> for " + std::to_string(offer.months) +
          " months, paid once, no subscription.</p><p><a class=\"button\" href=\"/pricing\">See pricing</a></p></div>"
          "<div class=\"card\"><h2 id=\"weekly-h\">The weekly question</h2><p>One free question by mail each week, its TL;DR and "
          "a link to the worked answer. No account needed; every mail has a one-click unsubscribe.</p>"
          "<form class=\"subscribe\" action=\"/subscribe\" method=\"get\" data-subscribe aria-labelledby=\"weekly-h\">"
          "<label for=\"weekly-email\">Email</label><span class=\"inline\"><input id=\"weekly-email\" name=\"email\" type=\"email\" "
          "autocomplete=\"email\" required><button type=\"submit\">Subscribe</button></span>"
          "<p role=\"status\" data-subscribe-status></p></form></div></section>\n";
  return layout(site, "Interview preparation for AI infrastructure", "Questions with worked numbers, calculators and the hardware catalog", body);
}

std::string hardware_page(const Site& site) {
  const auto& chips = site.catalog.hardware.all();
  std::vector<calc::Dtype> dtypes;
  for (calc::Dtype d : calc::kAllDtypes) {
    if (std::any_of(chips.begin(), chips.end(), [&](const calc::Accelerator& a) { return a.supports(d); })) dtypes.push_back(d);
  }
  auto q = [](double v, calc::Unit u) { return v > 0 ? e(calc::format_quantity(v, u)) : std::string("<span class=\"muted\">not published</span>"); };
  std::string body = "<p class=\"muted\"><a href=\"/\">Home</a></p><h1>The hardware catalog</h1><p class=\"prose\">Every accelerator the "
                     "engine knows, as its vendor states it, with the source and the date each figure was read. Peaks are dense "
                     "(no structured sparsity); a dtype the chip lacks shows as a dash. The calculators read these same figures.</p>"
                     "<table class=\"specs\" tabindex=\"0\" aria-label=\"Accelerator specifications\"><thead><tr><th scope=\"col\">Accelerator</th><th scope=\"col\">Vendor</th>"
                     "<th scope=\"col\">Generation</th><th scope=\"col\">Memory</th><th scope=\"col\">Bandwidth</th><th scope=\"col\">Scale-up</th><th scope=\"col\">Power</th>";
  for (calc::Dtype d : dtypes) body += "<th scope=\"col\">" + e(std::string(calc::dtype_name(d))) + "</th>";
  body += "<th scope=\"col\">Source</th><th scope=\"col\">As of</th></tr></thead><tbody>\n";
  for (const auto& a : chips) {
    body += "<tr id=\"hw-" + e(a.id) + "\"><th scope=\"row\"><a href=\"/calc/chip?gpu=" + e(a.id) + "\">" + e(a.name) + "</a></th><td>" +
            e(a.vendor) + "</td><td>" + e(a.generation) + "</td><td>" + q(a.memory_bytes, calc::Unit::kBytes) + " " + e(a.memory_type) +
            "</td><td>" + q(a.memory_bandwidth, calc::Unit::kBytesPerSecond) + "</td><td>" + e(a.scale_up) + " " +
            q(a.scale_up_bandwidth, calc::Unit::kBytesPerSecond) + "</td><td>" + q(a.power_watts, calc::Unit::kWatts) + "</td>";
    for (calc::Dtype d : dtypes) {
      body += "<td>" + (a.supports(d) ? e(calc::format_quantity(a.peak(d), calc::Unit::kFlopPerSecond)) : std::string("&ndash;")) + "</td>";
    }
    body += "<td>" + (a.source_url.empty() ? e(a.source) : "<a href=\"" + e(a.source_url) + "\" rel=\"nofollow noopener\">" + e(a.source) + "</a>") +
            "</td><td>" + e(a.as_of) + "</td></tr>\n";
  }
  body += "</tbody></table>\n<h2>Systems</h2><p class=\"prose\">The vendor's integrated system for each chip, where the catalog lists "
          "one: what a rack or a node draws and how much scale-out network each accelerator gets.</p>"
          "<table class=\"specs\" tabindex=\"0\" aria-label=\"Systems\"><thead><tr><th scope=\"col\">System</th><th scope=\"col\">Accelerators</th>"
          "<th scope=\"col\">Power</th><th scope=\"col\">Power per accelerator</th><th scope=\"col\">Scale-out per accelerator</th>"
          "<th scope=\"col\">Source</th><th scope=\"col\">As of</th></tr></thead><tbody>\n";
  for (const auto& a : chips) {
    if (!a.has_system()) continue;
    const auto& s = a.system;
    body += "<tr><th scope=\"row\">" + e(s.name) + "</th><td>" + e(calc::format_significant(s.gpus, 3)) + " × " + e(a.name) + "</td><td>" +
            q(s.power_watts, calc::Unit::kWatts) + "</td><td>" + q(s.power_per_gpu(), calc::Unit::kWatts) + "</td><td>" +
            q(s.scale_out_bandwidth(), calc::Unit::kBytesPerSecond) + "</td><td>" +
            (s.source_url.empty() ? e(s.source) : "<a href=\"" + e(s.source_url) + "\" rel=\"nofollow noopener\">" + e(s.source) + "</a>") +
            "</td><td>" + e(s.as_of) + "</td></tr>\n";
  }
  body += "</tbody></table>\n";
  return layout(site, "Hardware", "Accelerator specifications with sources and dates", body);
}

std::string topic_page(const Site& site, const bank::Topic& topic) {
  std::string body = "<h1>" + e(topic.name) + "</h1><p class=\"prose\">" + e(topic.description) + "</p>\n" + list_filters(site);
  const auto& all = site.bank.by_topic(topic.id);
  for (bank::Difficulty d : {bank::Difficulty::kEasy, bank::Difficulty::kMedium, bank::Difficulty::kHard, bank::Difficulty::kExpert}) {
    std::vector<size_t> level;
    for (size_t i : all) {
      if (site.bank.questions[i].difficulty == d) level.push_back(i);
    }
    if (level.empty()) continue;
    std::string name(bank::difficulty_name(d));
    name[0] = static_cast<char>(std::toupper(name[0]));
    body += "<h2>" + e(name) + "</h2>" + question_list(site, level);
  }
  if (all.empty()) body += "<p class=\"muted\">No questions here yet.</p>";
  return layout(site, topic.name, topic.description, body);
}

std::string topics_index(const Site& site) {
  std::string body = "<h1>Topics</h1><div class=\"grid\">\n";
  for (const auto& t : site.bank.topics) {
    body += "<div class=\"card\"><h2><a href=\"/topics/" + e(t.id) + "\">" + e(t.name) + "</a></h2><p class=\"muted\">" +
            std::to_string(site.bank.by_topic(t.id).size()) + " questions</p><p>" + e(t.description) + "</p></div>\n";
  }
  return layout(site, "Topics", "The thirteen topics of the bank", body + "</div>\n");
}

std::string track_page(const Site& site, const bank::Track& track) {
  std::string body = "<h1>" + e(track.name) + "</h1><p class=\"prose\">" + e(track.description) + "</p><h2>What it weighs</h2><ul>";
  std::vector<std::pair<int, std::string>> weights;
  for (const auto& [topic, w] : track.weights) weights.emplace_back(-w, topic);
  std::sort(weights.begin(), weights.end());
  for (const auto& [w, topic] : weights) {
    body += "<li><a href=\"/topics/" + e(topic) + "\">" + e(topic_name(site, topic)) + "</a> <span class=\"muted\">weight " + std::to_string(-w) + "</span></li>";
  }
  body += "</ul><h2>Questions</h2>" + list_filters(site) + question_list(site, site.bank.by_track(track.id));
  return layout(site, track.name, track.description, body);
}

std::string difficulty_page(const Site& site, bank::Difficulty d) {
  std::string name(bank::difficulty_name(d));
  std::string title = name;
  title[0] = static_cast<char>(std::toupper(title[0]));
  std::string body = "<h1>" + e(title) + " questions</h1>\n" + list_filters(site);
  const auto& all = site.bank.by_difficulty(d);
  for (const auto& t : site.bank.topics) {
    std::vector<size_t> in_topic;
    for (size_t i : all) {
      if (site.bank.questions[i].topic == t.id) in_topic.push_back(i);
    }
    if (!in_topic.empty()) body += "<h2>" + e(t.name) + "</h2>" + question_list(site, in_topic);
  }
  if (all.empty()) body += "<p class=\"muted\">No questions here yet.</p>";
  return layout(site, title + " questions", "Questions at the " + name + " level", body);
}

std::string concept_page(const Site& site, const bank::Concept& c) {
  std::string body = "<article class=\"prose\"><nav aria-label=\"Breadcrumb\" class=\"muted\"><a href=\"/concepts\">Concepts</a>" +
                     (c.topic.empty() ? std::string() : " · <a href=\"/topics/" + e(c.topic) + "\">" + e(topic_name(site, c.topic)) + "</a>") +
                     "</nav><h1>" + e(c.title) + "</h1>";
  if (!c.summary.empty()) body += "<p class=\"tldr\">" + e(c.summary) + "</p>";
  if (!c.prerequisites.empty()) {
    body += "<p><span class=\"muted\">Read first:</span> ";
    for (size_t i = 0; i < c.prerequisites.size(); ++i) {
      auto it = site.bank.concepts.find(c.prerequisites[i]);
      std::string title = it == site.bank.concepts.end() ? c.prerequisites[i] : it->second.title;
      body += (i ? ", " : "") + std::string("<a href=\"/concepts/") + e(c.prerequisites[i]) + "\">" + e(title) + "</a>";
    }
    body += "</p>";
  }
  body += c.stub ? "<p class=\"muted\">This concept page is being written.</p>" : c.html;
  if (!c.calculators.empty()) {
    body += "<h2>Try it</h2><p>";
    for (const auto& calc : c.calculators) body += "<a class=\"tag\" href=\"/calc/" + e(calc) + "\">" + e(calc) + "</a> ";
    body += "</p>";
  }
  body += "<h2>Questions that use it</h2>" + list_filters(site) + question_list(site, site.bank.by_concept(c.id)) + "</article>";
  return layout(site, c.title, c.summary.empty() ? "The concept: " + c.title : c.summary, body);
}

std::string concepts_index(const Site& site) {
  // Grouped by topic in the bank's topic order, ordered by name within a topic.
  std::string body = "<h1>Concepts</h1>";
  auto section = [&](const std::string& topic_id, const std::string& heading) {
    std::vector<const bank::Concept*> list;
    for (const auto& [id, c] : site.bank.concepts) {
      if (c.topic == topic_id) list.push_back(&c);
    }
    if (list.empty()) return;
    std::sort(list.begin(), list.end(), [](const bank::Concept* a, const bank::Concept* b) { return a->title < b->title; });
    body += "<h2>" + e(heading) + "</h2><ul class=\"concepts\">";
    for (const bank::Concept* c : list) {
      body += "<li><a href=\"/concepts/" + e(c->id) + "\">" + e(c->title) + "</a> <span class=\"muted\">" +
              e(c->summary) + " (" + std::to_string(site.bank.by_concept(c->id).size()) + " questions)</span></li>";
    }
    body += "</ul>";
  };
  for (const auto& t : site.bank.topics) section(t.id, t.name);
  section("", "Not yet placed in a topic");
  return layout(site, "Concepts", "Concepts the questions build on, by topic", body);
}

namespace {

std::string confidence_tag(const std::string& confidence) {
  return "<span class=\"tag confidence-" + e(confidence) + "\" title=\"" +
         e(confidence == "documented" ? "from the company's own published material"
           : confidence == "partial"  ? "from first-hand candidate reports"
                                      : "from one report or secondary guides only") +
         "\">" + e(confidence) + "</span>";
}

std::string weight_cell(const bank::Company& c, const std::string& key) {
  auto it = c.weights.find(key);
  int w = it == c.weights.end() ? 0 : it->second;
  static const char* kLabels[] = {"not reported", "some", "much", "central"};
  return "<td class=\"weight w" + std::to_string(w) + "\" title=\"" + kLabels[w] + "\">" + std::string(static_cast<size_t>(w), '*') +
         (w == 0 ? "&middot;" : "") + "</td>";
}

}  // namespace

std::string company_page(const Site& site, const bank::Company& c) {
  std::string body = "<article class=\"prose\"><h1>" + e(c.name) + "</h1><p>" + (c.kind.empty() ? "" : "<span class=\"tag\">" + e(c.kind) + "</span> ") +
                     (c.confidence.empty() ? "" : "confidence " + confidence_tag(c.confidence)) +
                     (c.updated.empty() ? "" : " <span class=\"muted\">updated " + e(c.updated) + "</span>") + "</p>";
  if (!c.summary.empty()) body += "<p>" + e(c.summary) + "</p>";
  if (!c.note.empty()) body += "<p class=\"muted\">" + e(c.note) + "</p>";
  if (c.sources.empty()) {
    body += "<p class=\"muted\">This company's page is being written: nothing about its loop is published here yet.</p>";
  }
  if (!c.rounds.empty()) {
    body += "<h2>The loop, round by round</h2><ol class=\"rounds\">";
    for (const auto& r : c.rounds) {
      body += "<li><strong>" + e(r.name) + "</strong> " + confidence_tag(r.confidence);
      if (!r.format.empty()) body += "<br>" + e(r.format);
      if (!r.length.empty()) body += " <span class=\"muted\">(" + e(r.length) + ")</span>";
      if (!r.weighs.empty()) body += "<br><span class=\"muted\">Weighs:</span> " + e(r.weighs);
      body += "<br><span class=\"muted\">Sources:</span> ";
      for (size_t i = 0; i < r.sources.size(); ++i) {
        body += (i ? ", " : "") + std::string("<a href=\"#src-") + e(r.sources[i]) + "\">" + e(r.sources[i]) + "</a>";
      }
      body += "</li>";
    }
    body += "</ol>";
  } else if (!c.sources.empty()) {
    body += "<h2>The loop</h2><p class=\"muted\">No round of this company's loop is publicly reported in a source we could verify; "
            "we show only what is public.</p>";
  }
  if (!c.weights.empty()) {
    body += "<h2>What it weighs</h2><table><thead><tr><th>kernels</th><th>platform</th><th>distributed</th><th>design</th><th>cost</th></tr></thead><tbody><tr>";
    for (const char* k : {"kernels", "platform", "distributed", "design", "cost"}) body += weight_cell(c, k);
    body += "</tr></tbody></table>";
  }
  if (!c.tracks.empty() || !c.topics.empty()) {
    body += "<h2>What to drill</h2><p>";
    for (const auto& t : c.tracks) body += "<a class=\"tag\" href=\"/tracks/" + e(t) + "\">" + e(t) + "</a> ";
    for (const auto& t : c.topics) body += "<a class=\"tag\" href=\"/topics/" + e(t) + "\">" + e(topic_name(site, t)) + "</a> ";
    body += "</p>";
  }
  if (!c.stack.empty()) {
    body += "<p><span class=\"muted\">Named in its job postings:</span> ";
    for (size_t i = 0; i < c.stack.size(); ++i) body += (i ? ", " : "") + e(c.stack[i]);
    body += "</p>";
  }
  body += "<h2>Questions that match its rounds</h2>";
  if (c.questions.empty()) {
    body += "<p class=\"muted\">No question is tagged to this company yet.</p>";
  } else {
    body += "<ol class=\"questions\">";
    for (const auto& tag : c.questions) {
      const bank::Question* q = site.bank.find(tag.slug);
      if (q == nullptr) continue;
      body += "<li>" + question_link(*q) + (tag.why.empty() ? "" : " <span class=\"muted\">" + e(tag.why) + "</span>") +
              " <a class=\"muted\" href=\"#src-" + e(tag.source) + "\">[" + e(tag.source) + "]</a></li>";
    }
    body += "</ol>";
  }
  if (!c.sources.empty()) {
    body += "<h2>Sources</h2><ol class=\"sources\">";
    for (const auto& s : c.sources) {
      body += "<li id=\"src-" + e(s.id) + "\">" + e(s.title) + " <span class=\"tag\">" + e(s.kind) + "</span> <a href=\"" + e(s.url) +
              "\" rel=\"nofollow noopener\">" + e(s.url) + "</a> <span class=\"muted\">read " + e(s.read) + "</span></li>";
    }
    body += "</ol>";
  }
  body += "</article>";
  return layout(site, c.name, "The " + c.name + " interview loop as publicly reported, with sources and confidence levels", body);
}

std::string company_table(const Site& site) {
  std::string body = "<table class=\"companies\"><thead><tr><th>company</th><th>kind</th><th>kernels</th><th>platform</th>"
                     "<th>distributed</th><th>design</th><th>cost</th><th>confidence</th><th>questions</th></tr></thead><tbody>";
  for (const auto& [id, c] : site.bank.companies) {
    body += "<tr><td><a href=\"/companies/" + e(id) + "\">" + e(c.name) + "</a></td><td>" + e(c.kind) + "</td>";
    for (const char* k : {"kernels", "platform", "distributed", "design", "cost"}) body += weight_cell(c, k);
    body += "<td>" + (c.confidence.empty() ? std::string("<span class=\"muted\">being written</span>") : confidence_tag(c.confidence)) +
            "</td><td>" + std::to_string(c.questions.size()) + "</td></tr>";
  }
  return body + "</tbody></table>";
}

std::string companies_index(const Site& site) {
  std::string body = "<h1>Companies</h1><p class=\"prose\">Each loop as publicly reported, round by round. Confidence says where it "
                     "comes from: <strong>documented</strong> (the company's own material), <strong>partial</strong> (first-hand "
                     "candidate reports), <strong>limited</strong> (one report or secondary guides). Stars show what the sources say a "
                     "loop weighs.</p>" + company_table(site);
  return layout(site, "Companies", "Company interview loops with sources and confidence levels", body);
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

std::string question_page(const Site& site, const bank::Question& q) {
  std::string body = "<nav aria-label=\"Breadcrumb\" class=\"muted\"><a href=\"/topics/" + e(q.topic) + "\">" +
                     e(topic_name(site, q.topic)) + "</a> · <a href=\"/" + e(std::string(bank::difficulty_name(q.difficulty))) +
                     "\">" + e(std::string(bank::difficulty_name(q.difficulty))) + "</a></nav>\n";
  body += "<article class=\"prose\"><h1>" + e(q.title) + "</h1><p>";
  for (const auto& t : q.tracks) body += "<a class=\"tag\" href=\"/tracks/" + e(t) + "\">" + e(t) + "</a>";
  if (q.free) body += "<span class=\"tag free\">free</span>";
  body += " <span class=\"muted\">updated " + e(q.updated) + "</span></p>\n";
  body += "<p><strong>Try it first.</strong> Work the answer out on paper, with the numbers, before you reveal it.</p>\n";
  body += "<details class=\"reveal\" id=\"answer\"><summary>Reveal the answer</summary>\n";
  body += "<p class=\"tldr\"><strong>TL;DR:</strong> " + e(q.tldr) + "</p>\n" + enhance_answer(q.html) + "</details>\n";
  // Filled in by app.js for a signed-in visitor (the page itself is the same for everyone).
  body += "<section id=\"practice\" class=\"card\" data-slug=\"" + e(q.slug) + "\" hidden aria-labelledby=\"practice-h\">"
          "<h2 id=\"practice-h\">How did you do?</h2><p class=\"grades\">"
          "<button type=\"button\" data-grade=\"1\">Again</button> <button type=\"button\" data-grade=\"2\">Hard</button> "
          "<button type=\"button\" data-grade=\"3\">Good</button> <button type=\"button\" data-grade=\"4\">Easy</button></p>"
          "<p id=\"practice-status\" role=\"status\"></p><p><button type=\"button\" id=\"bookmark\">Bookmark</button></p>"
          "<label for=\"note\">Private note</label><textarea id=\"note\" rows=\"3\"></textarea>"
          "<p><button type=\"button\" id=\"save-note\">Save note</button></p></section>\n"
          "<p id=\"practice-signin\" class=\"muted\"><a href=\"/signin?next=/q/" + e(q.slug) + "\">Sign in</a> to grade yourself and "
          "have this question scheduled for review.</p>\n";
  if (!q.lab.empty()) {
    body += "<p class=\"card lab-build\"><strong>In the lab:</strong> the build <code>lab/" + e(q.lab) +
            "/</code> runs this question's code. <code>ridge lab test " + e(q.lab) + "</code> runs its tests against "
            "the reference; <code>ridge lab test " + e(q.lab) + " --impl yours.cc</code> runs them against your own.</p>\n";
  }
  // Previous and next in the topic.
  const auto& siblings = site.bank.by_topic(q.topic);
  auto self = std::find_if(siblings.begin(), siblings.end(), [&](size_t i) { return &site.bank.questions[i] == &q; });
  body += "<nav class=\"pager\" aria-label=\"In this topic\">";
  if (self != siblings.end() && self != siblings.begin()) {
    const auto& prev = site.bank.questions[*(self - 1)];
    body += "<a rel=\"prev\" href=\"/q/" + e(prev.slug) + "\">← " + e(prev.title) + "</a>";
  } else {
    body += "<span></span>";
  }
  if (self != siblings.end() && self + 1 != siblings.end()) {
    const auto& next = site.bank.questions[*(self + 1)];
    body += "<a rel=\"next\" href=\"/q/" + e(next.slug) + "\">" + e(next.title) + " →</a>";
  }
  body += "</nav>\n";
  // Related: concepts, then questions sharing a concept.
  body += "<section aria-labelledby=\"rel-h\"><h2 id=\"rel-h\">Related</h2><p>";
  for (const auto& c : q.concepts) {
    auto it = site.bank.concepts.find(c);
    body += "<a class=\"tag\" href=\"/concepts/" + e(c) + "\">" + e(it != site.bank.concepts.end() ? it->second.title : c) + "</a>";
  }
  body += "</p><ul>";
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
  for (const auto* r : related) body += "<li>" + question_link(*r) + "</li>";
  body += "</ul></section></article>\n";
  return layout(site, q.title, q.tldr, body);
}

// The performance model against published runs (`ridge validate --json`): each run's
// prediction, the measured figure, the signed error, the source; then the error per group.
std::string validation_section(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("runs")) return "";
  std::string out = "<section aria-labelledby=\"val-h\"><h2 id=\"val-h\">The performance model against published runs</h2>"
                    "<p class=\"prose\"><code>step</code> and <code>serve</code> predict a training step and a deployment's "
                    "latency from a layout. These are their predictions for runs whose conditions and figures were published, "
                    "computed when this server started (<code>ridge validate</code> prints the same; ctest fails if the "
                    "error grows). Half the runs fitted the model's constants; the held-out half did not.</p>";
  for (const char* group : {"training", "serving"}) {
    const auto& sum = v["summary"][group];
    auto pct = [](double x) { return calc::format_significant(x * 100, 3) + "%"; };
    out += "<h3>" + std::string(group == std::string("training") ? "Training: step time, throughput and MFU" : "Serving: latency and throughput") +
           "</h3><p>Mean absolute error " + pct(sum["all"]["mean_abs_error"].get<double>()) + ", worst " +
           pct(sum["all"]["worst_abs_error"].get<double>()) + " over " + std::to_string(sum["all"]["n"].get<int>()) +
           " runs; held out: mean " + pct(sum["held-out"]["mean_abs_error"].get<double>()) + ", worst " +
           pct(sum["held-out"]["worst_abs_error"].get<double>()) + ".</p>";
    out += "<div class=\"table-wrap\" tabindex=\"0\"><table class=\"specs\"><thead><tr><th scope=\"col\">Run</th><th scope=\"col\">Half</th>"
           "<th scope=\"col\">Predicted</th><th scope=\"col\">Measured</th><th scope=\"col\">Error</th><th scope=\"col\">Source</th></tr></thead><tbody>";
    for (const auto& r : v["runs"]) {
      if (r.value("group", "") != group) continue;
      std::string unit = r.value("unit", "");
      out += "<tr><th scope=\"row\">" + e(r.value("id", "")) + "</th><td>" + e(r.value("half", "")) + "</td>";
      if (r.contains("predicted")) {
        double err = r["error"].get<double>() * 100;
        out += "<td>" + e(calc::format_significant(r["predicted"].get<double>(), 3) + " " + unit) + "</td><td>" +
               e(calc::format_significant(r["measured"].get<double>(), 3) + " " + unit) + "</td><td>" +
               (err >= 0 ? "+" : "\u2212") + e(calc::format_significant(std::abs(err), 2)) + "%</td>";
      } else {
        out += "<td colspan=\"3\">failed: " + e(r.value("failure", "")) + "</td>";
      }
      std::string url = r.value("url", "");
      std::string source = e(r.value("source", "")) + (r.value("date", "").empty() ? "" : ", " + e(r.value("date", "")));
      out += "<td>" + (url.rfind("https://", 0) == 0 ? "<a href=\"" + e(url) + "\">" + source + "</a>" : source) + "</td></tr>";
    }
    out += "</tbody></table></div>";
  }
  return out + "</section>\n";
}

std::string calculators_index(const Site& site, const nlohmann::json& validation) {
  std::string body = "<h1>Calculators</h1><p class=\"prose\">Each calculator works one chain of napkin math and shows every "
                     "step and assumption. The same engine computes every number in the answers, and the JSON API "
                     "(<code>/api/calc</code>) returns what <code>ridge calc NAME --json</code> prints.</p><div class=\"grid\">\n";
  for (const auto& c : site.registry.all()) {
    body += "<div class=\"card\"><h2><a href=\"/calc/" + e(c.name) + "\">" + e(c.name) + "</a></h2><p>" + e(c.summary) + "</p></div>\n";
  }
  return layout(site, "Calculators", "Napkin-math calculators for AI infrastructure", body + "</div>\n" + validation_section(validation));
}

std::string calculator_page(const Site& site, const calc::Calculator& c, const calc::Given& values,
                            const calc::Result<calc::Derivation>* result) {
  std::map<std::string, std::string> errors;
  std::string form_error;
  if (result && !result->ok()) {
    for (const auto& err : result->errors()) {
      std::string message = (err.value.empty() ? "" : "'" + err.value + "' ") + err.message +
                            (err.accepted.empty() ? "" : "; accepted: " + err.accepted);
      if (std::any_of(c.params.begin(), c.params.end(), [&](const calc::ParamSpec& s) { return s.name == err.field; })) {
        errors[err.field] += message;
      } else {
        form_error += err.to_string() + " ";
      }
    }
  }
  std::string body = "<p class=\"muted\"><a href=\"/calc\">Calculators</a></p><h1>" + e(c.name) + "</h1><p class=\"prose\">" + e(c.summary) + "</p>\n";
  body += "<form class=\"calc\" action=\"/calc/" + e(c.name) + "\" method=\"get\" data-live=\"" + e(c.name) +
          "\" data-output=\"calc-out\" data-sync-url=\"1\" novalidate>\n";
  for (const auto& spec : c.params) {
    if (spec.type == calc::ParamType::kConfig) continue;  // the web reads no files
    auto it = errors.find(spec.name);
    body += field(site, spec, values, it == errors.end() ? "" : it->second, "c");
  }
  body += "<p class=\"error\" data-for=\"_form\" role=\"alert\">" + e(form_error) + "</p>";
  body += "<div class=\"field\"><button type=\"submit\">Work it out</button></div></form>\n<div id=\"calc-out\" aria-live=\"polite\">";
  if (result && result->ok()) body += calc::render_html(**result);
  body += "</div>\n";
  if (auto kind = diagram::kind_for_calculator(c.name); kind && result && result->ok()) {
    std::string query;
    for (const auto& [k, v] : values) query += (query.empty() ? "?" : "&") + url_encode(k) + "=" + url_encode(v);
    body += "<img class=\"diagram\" id=\"calc-diagram\" data-base=\"/calc/" + e(c.name) + "/diagram.svg\" src=\"/calc/" +
            e(c.name) + "/diagram.svg" + e(query) + "\" alt=\"" + e(*kind + " diagram of this result") + "\">\n";
  }
  body += "<p class=\"muted\">Terminal: <code>ridge calc " + e(c.name);
  for (const auto& [k, v] : values) body += " --" + e(k) + " " + e(v);
  body += "</code></p>\n";
  return layout(site, c.name + " calculator", c.summary, body);
}

std::string search_page(const Site& site, const std::string& query, const std::string& topic,
                        const std::string& difficulty, const std::vector<SearchHit>& hits, const SearchPaging& paging) {
  std::string body = "<h1>Search</h1><form class=\"calc\" action=\"/search\" method=\"get\" role=\"search\">"
                     "<div class=\"field\"><label for=\"s-q\">Words</label><input id=\"s-q\" name=\"q\" type=\"search\" value=\"" + e(query) + "\"></div>"
                     "<div class=\"field\"><label for=\"s-topic\">Topic</label><select id=\"s-topic\" name=\"topic\"><option value=\"\">any</option>";
  for (const auto& t : site.bank.topics) {
    body += "<option value=\"" + e(t.id) + "\"" + (t.id == topic ? " selected" : "") + ">" + e(t.name) + "</option>";
  }
  body += "</select></div><div class=\"field\"><label for=\"s-d\">Difficulty</label><select id=\"s-d\" name=\"difficulty\"><option value=\"\">any</option>";
  for (const char* d : {"easy", "medium", "hard", "expert"}) {
    body += std::string("<option value=\"") + d + "\"" + (difficulty == d ? " selected" : "") + ">" + d + "</option>";
  }
  body += "</select></div><div class=\"field\"><button type=\"submit\">Search</button></div></form>\n";
  if (!query.empty()) {
    int first = (paging.page - 1) * paging.per_page + 1;
    body += "<p class=\"muted\" id=\"result-count\">" + std::to_string(paging.total) + " result" + (paging.total == 1 ? "" : "s") +
            (paging.total > paging.per_page && !hits.empty()
                 ? ", " + std::to_string(first) + " to " + std::to_string(first + static_cast<int>(hits.size()) - 1) + " shown"
                 : std::string()) +
            (paging.timed_out ? " (the search stopped at its time budget; refine the words)" : "") +
            "</p><ol class=\"questions results\" start=\"" + std::to_string(first) + "\">";
    for (const auto& h : hits) {
      std::string href = h.kind == "question" ? "/q/" + h.id : "/concepts/" + h.id;
      body += "<li><a href=\"" + e(href) + "\">" + e(h.title) + "</a> <span class=\"tag\">" +
              e(h.kind == "question" ? h.difficulty : "concept") + "</span><br><span class=\"muted\">" + h.snippet_html + "</span></li>";
    }
    body += "</ol>";
    int pages = (paging.total + paging.per_page - 1) / paging.per_page;
    if (pages > 1) {
      std::string base = "/search?q=" + url_encode(query) + (topic.empty() ? "" : "&topic=" + url_encode(topic)) +
                         (difficulty.empty() ? "" : "&difficulty=" + url_encode(difficulty)) + "&page=";
      body += "<nav class=\"paging\" aria-label=\"Result pages\">";
      if (paging.page > 1) body += "<a rel=\"prev\" href=\"" + e(base + std::to_string(paging.page - 1)) + "\">Previous</a> ";
      for (int p = 1; p <= pages; ++p) {
        body += p == paging.page ? "<strong aria-current=\"page\">" + std::to_string(p) + "</strong> "
                                 : "<a href=\"" + e(base + std::to_string(p)) + "\">" + std::to_string(p) + "</a> ";
      }
      if (paging.page < pages) body += "<a rel=\"next\" href=\"" + e(base + std::to_string(paging.page + 1)) + "\">Next</a>";
      body += "</nav>";
    }
  }
  return layout(site, query.empty() ? "Search" : "Search: " + query, "Search questions and concepts", body);
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
  std::string body = "<h1>Diagrams</h1><p class=\"prose\">Every kind the engine draws, from example parameters. In a question, "
                     "write <code>```diagram KIND key=value ...</code> or <code>from=ID</code> to draw from a calc block.</p>\n";
  int n = 0;
  for (const auto& ex : examples) {
    diagram::Options options;
    options.id = "gallery-" + std::to_string(++n);
    auto drawn = diagram::draw(ex.kind, ex.params, site.registry, site.catalog, options);
    std::string call;
    for (const auto& [k, v] : ex.params) call += " " + k + "=" + v;
    body += "<section class=\"card\" id=\"diagram-" + e(ex.kind) + "\"><h2>" + e(ex.kind) + "</h2><p><code>```diagram " + e(ex.kind) +
            e(call) + "</code></p>";
    body += drawn ? drawn->svg : "<p class=\"error\">" + e(calc::to_string(drawn.errors())) + "</p>";
    body += "</section>\n";
  }
  return layout(site, "Diagrams", "The diagram kinds drawn from the engine", body);
}

std::string locked_question_page(const Site& site, const bank::Question& q) {
  std::string body = "<nav aria-label=\"Breadcrumb\" class=\"muted\"><a href=\"/topics/" + e(q.topic) + "\">" + e(topic_name(site, q.topic)) +
                     "</a></nav><article class=\"prose\"><h1>" + e(q.title) + "</h1><p class=\"card\" id=\"locked\">The worked answer "
                     "is for signed-in users. <a href=\"/signup?next=/q/" + e(q.slug) + "\">Create an account</a> or "
                     "<a href=\"/signin?next=/q/" + e(q.slug) + "\">sign in</a>. The free questions of every topic are open to all.</p></article>";
  return layout(site, q.title, "A question for signed-in users", body);
}

std::string paywall_question_page(const Site& site, const bank::Question& q, const std::string& price, bool billing_enabled) {
  std::string body = "<nav aria-label=\"Breadcrumb\" class=\"muted\"><a href=\"/topics/" + e(q.topic) + "\">" + e(topic_name(site, q.topic)) +
                     "</a></nav><article class=\"prose\"><h1>" + e(q.title) + "</h1><p>" + e(q.summary) +
                     "</p><p class=\"tldr\"><strong>TL;DR:</strong> " + e(q.tldr) + "</p><p class=\"card\" id=\"paywall\">The worked answer, "
                     "with every number derived, comes with paid access: <strong id=\"price\">" + e(price) + "</strong> for six months. " +
                     (billing_enabled ? "<a href=\"/pricing\">Get access</a>." : "This site grants access by hand; see <a href=\"/pricing\">pricing</a>.") +
                     " The free questions of every topic are open to all.</p></article>";
  return layout(site, q.title, q.tldr, body);
}

std::string auth_page(const Site& site, bool signup, const std::string& error, const std::string& next,
                      const std::string& pre_token) {
  std::string action = signup ? "/signup" : "/signin";
  std::string title = signup ? "Create an account" : "Sign in";
  std::string body = "<h1>" + title + "</h1>" + (error.empty() ? "" : "<p class=\"error\" role=\"alert\" id=\"auth-error\">" + e(error) + "</p>") +
                     "<form class=\"calc\" method=\"post\" action=\"" + action + (next.empty() ? "" : "?next=" + e(url_encode(next))) + "\">"
                     "<input type=\"hidden\" name=\"pre\" value=\"" + e(pre_token) + "\">"
                     "<div class=\"field\"><label for=\"email\">Email</label><input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"email\" required></div>"
                     "<div class=\"field\"><label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"" +
                     std::string(signup ? "new-password" : "current-password") + "\" required minlength=\"" + (signup ? "10" : "1") + "\">"
                     "<span class=\"hint\">" + (signup ? "at least 10 characters" : "") + "</span></div>"
                     "<div class=\"field\"><button type=\"submit\">" + title + "</button></div></form><p>" +
                     (signup ? "Have an account? <a href=\"/signin\">Sign in</a>." : "New here? <a href=\"/signup\">Create an account</a>.") + "</p>";
  return layout(site, title, title, body);
}

std::string error_page(const Site& site, int status, const std::string& message) {
  std::string body = "<h1>" + std::to_string(status) + " " + e(std::string(status_reason(status))) + "</h1><p>" + e(message) +
                     "</p><p><a href=\"/\">Home</a> · <a href=\"/search\">Search</a></p>";
  return layout(site, std::to_string(status) + " " + std::string(status_reason(status)), message, body);
}

}  // namespace ridge::web
