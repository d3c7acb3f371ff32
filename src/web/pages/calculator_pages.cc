// The calculators: the index (with the performance model's validation table), each
// calculator's form and derivation, and the diagram gallery.
#include "web/pages.h"

#include "web/wording.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>

#include "calc/dates.h"
#include "diagram/diagrams.h"
#include "web/http.h"
#include "web/pages/parts.h"

namespace ridge::web {

using namespace parts;

namespace {

// The performance model against published runs (`ridge validate --json`), issue 31's ledger:
// each regime's mean / median / p90 / worst error on the held-out half and on all, with the gate
// `validate --check` holds it to; then each regime's runs (prediction, measured figure, signed
// error, source). validate computes every figure; this only formats the JSON's.
struct ValidationView {
  struct Run {
    std::string id, half;
    bool has_prediction = false;
    std::string predicted, measured, error;  // with units; the error's magnitude in percent
    bool negative = false;
    std::string failure;       // without a prediction
    std::string source, url;   // url: linked only when https
  };
  struct Gate {
    std::string bound, verdict;  // "held-out half: mean ≤ 8%, worst ≤ 20%", "passes" or "fails"
    bool issue_bound = false;
    std::string why;             // the reason it is not the issue's bound, dates in words
    int note = 0;                // the number of its note under the table (not issue_bound)
  };
  struct Regime {
    std::string name, anchor;    // "training dense bf16", "regime-training-dense-bf16"
    bool total = false;          // a group's every regime
    std::string held_out, all;   // "7.3 / 6.7 / 15.7 / 16.4% (12 runs)"
    std::vector<Gate> gates;
    std::vector<Run> runs;
  };
  std::vector<Regime> regimes;
};

// The ledger cell as `ridge validate --markdown` prints it (ledger_cell there): mean / median /
// p90 / worst in percent to one decimal, then the count.
std::string ledger_cell(const nlohmann::json& s) {
  const int n = s.value("n", 0);
  if (n == 0) return "no runs";
  auto one = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x * 100);
    return std::string(buf);
  };
  return one(s.value("mean_abs_error", 0.0)) + " / " + one(s.value("median_abs_error", 0.0)) + " / " +
         one(s.value("p90_abs_error", 0.0)) + " / " + one(s.value("worst_abs_error", 0.0)) + "% (" + std::to_string(n) +
         (n == 1 ? " run)" : " runs)");
}

ValidationView::Run run_view(const nlohmann::json& r) {
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
  const std::string date = r.value("date", "");
  run.source = r.value("source", "") + (date.empty() ? "" : ", " + calc::dates_in_words(calc::date_in_words(date)));
  std::string url = r.value("url", "");
  if (url.rfind("https://", 0) == 0) run.url = url;
  return run;
}

std::optional<ValidationView> validation_view(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("runs") || !v.contains("ledger") || !v["ledger"].is_array()) return std::nullopt;
  ValidationView out;
  const nlohmann::json gates = v.value("gates", nlohmann::json::array());
  int notes = 0;
  for (const auto& line : v["ledger"]) {
    ValidationView::Regime reg;
    const std::string group = line.value("group", ""), regime = line.value("regime", "");
    reg.total = regime.empty();
    reg.name = group + (reg.total ? ", every regime" : " " + regime);
    reg.anchor = "regime-" + group + "-";
    for (char c : regime) reg.anchor += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
    reg.held_out = ledger_cell(line.value("held-out", nlohmann::json::object()));
    reg.all = ledger_cell(line.value("all", nlohmann::json::object()));
    for (const auto& index : line.value("gates", nlohmann::json::array())) {
      if (!index.is_number_unsigned() || index.get<size_t>() >= gates.size()) continue;
      const auto& g = gates[index.get<size_t>()];
      ValidationView::Gate gate{g.value("bound", ""), g.value("pass", false) ? "passes" : "fails",
                                g.value("issue_bound", false), calc::dates_in_words(g.value("why", "")), 0};
      if (!gate.issue_bound) gate.note = ++notes;
      reg.gates.push_back(std::move(gate));
    }
    if (!reg.total) {
      for (const auto& r : v["runs"]) {
        if (r.value("group", "") == group && r.value("regime", "") == regime) reg.runs.push_back(run_view(r));
      }
    }
    out.regimes.push_back(std::move(reg));
  }
  return out;
}

View to_view(const ValidationView& v) {
  ViewList regimes, notes, run_groups;
  for (const auto& reg : v.regimes) {
    ViewList gates;
    for (const auto& g : reg.gates) {
      gates.push_back(View(kainjow::mustache::object{{"bound", g.bound},
                                                     {"verdict", g.verdict},
                                                     {"issue_bound", g.issue_bound},
                                                     {"note", std::to_string(g.note)}}));
      if (!g.issue_bound) {
        notes.push_back(View(kainjow::mustache::object{
            {"note", std::to_string(g.note)}, {"regime", reg.name}, {"bound", g.bound}, {"why", g.why}}));
      }
    }
    regimes.push_back(View(kainjow::mustache::object{{"name", reg.name},
                                                     {"anchor", reg.anchor},
                                                     {"total", reg.total},
                                                     {"held_out", reg.held_out},
                                                     {"all", reg.all},
                                                     {"has_gates", !gates.empty()},
                                                     {"gates", gates}}));
    if (reg.total) continue;
    ViewList runs;
    for (const auto& r : reg.runs) {
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
    run_groups.push_back(View(kainjow::mustache::object{{"name", reg.name}, {"anchor", reg.anchor}, {"runs", runs}}));
  }
  View d;
  put(d, "has_notes", !notes.empty());
  put(d, "regimes", std::move(regimes));
  put(d, "notes", std::move(notes));
  put(d, "run_groups", std::move(run_groups));
  return d;
}

// A calculator's title in words (issue 33 item 10: pages were headed "fit", "mfu"): the title
// its derivation of the example values carries; the id when the example does not evaluate.
std::string calculator_title(const Site& site, const calc::Calculator& c) {
  auto d = site.registry.evaluate(c.name, example_values(c), site.catalog);
  return d ? (*d).title() : c.name;
}

}  // namespace

std::string calculators_index(const Site& site, const nlohmann::json& validation) {
  View d;
  ViewList calculators;
  for (const auto& c : site.registry.all()) {
    calculators.push_back(View(kainjow::mustache::object{{"name", c.name}, {"title", calculator_title(site, c)}, {"summary", c.summary}}));
  }
  put(d, "calculators", std::move(calculators));
  auto table = validation_view(validation);
  put(d, "validation", table ? to_view(*table) : View(false));
  return layout(site, "Calculators", "Napkin-math calculators for AI infrastructure", render("calculators_index", d));
}

namespace {

// calculator.mustache: the form from the calculator's specs, then the derivation or the errors
// next to their fields, the diagram and the same call for the terminal.
struct CalculatorView {
  std::string name, title, summary, form_error;  // title: in words ("Checkpoint interval (Young/Daly)")
  std::vector<FieldView> fields;
  Html result;                              // the derivation (calc::render_html), when it succeeded
  std::optional<std::string> diagram_kind;  // with a result whose calculator has a diagram
  std::string query;                        // "?k=v&..." of the values, for the diagram's URL
  std::vector<std::pair<std::string, std::string>> values;
};

View to_view(const CalculatorView& v) {
  View d;
  put(d, "name", v.name);
  put(d, "title", v.title);
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

}  // namespace

std::string calculator_page(const Site& site, const calc::Calculator& c, const calc::Given& values,
                            const calc::Result<calc::Derivation>* result) {
  std::map<std::string, std::string> errors;
  CalculatorView v;
  v.name = c.name;
  v.title = result && result->ok() ? (**result).title() : calculator_title(site, c);
  v.summary = c.summary;
  if (result && !result->ok()) {
    for (const auto& err : result->errors()) {
      std::string message = (err.value.empty() ? "" : "'" + err.value + "' ") + without_flags(err.message) +
                            (err.accepted.empty() ? "" : "; accepted: " + without_flags(err.accepted));
      if (std::any_of(c.params.begin(), c.params.end(), [&](const calc::ParamSpec& s) { return s.name == err.field; })) {
        errors[err.field] += message;
      } else {
        v.form_error += without_flags(err.to_string()) + " ";
      }
    }
  }
  for (const auto& spec : c.params) {
    if (spec.type == calc::ParamType::kConfig) continue;  // the web reads no files
    auto it = errors.find(spec.name);
    v.fields.push_back(field_view(site, spec, values, it == errors.end() ? "" : it->second, "c"));
  }
  if (result && result->ok()) {
    v.result = Html{without_flags(calc::render_html(**result))};  // the engine's words, for a web form
    v.diagram_kind = diagram::kind_for_calculator(c.name);
  }
  for (const auto& [k, value] : values) {
    v.query += (v.query.empty() ? '?' : '&') + url_encode(k) + '=' + url_encode(value);
    v.values.emplace_back(k, value);
  }
  return layout(site, v.title, c.summary, render("calculator", to_view(v)));
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

}  // namespace ridge::web
