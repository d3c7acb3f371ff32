#include "cli/validate_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "cli/flags.h"
#include "cli/validate_internal.h"

namespace ridge::cli::validate_detail {

// The issue's regimes: training by architecture and GEMM dtype, serving by phase and deployment.
std::string regime_of(const Run& r, const calc::Catalog& catalog) {
  auto param = [&](const char* k) {
    auto it = r.params.find(k);
    return it == r.params.end() ? std::string() : it->second;
  };
  if (r.group == "training") {
    const calc::ModelArch* m = catalog.find_model(param("model"));
    return std::string(m != nullptr && m->is_moe() ? "MoE" : "dense") + " " + (param("dtype") == "fp8" ? "fp8" : "bf16");
  }
  // serve's ttft_seconds and serve-rate's ttft_mean_seconds / ttft_p99_seconds alike.
  const std::string phase = r.metric.rfind("ttft", 0) == 0   ? "prefill"
                            : r.metric.rfind("tpot", 0) == 0 ? "decode"
                                                             : "end-to-end";
  std::string regime = phase + " " + (r.deployment.empty() ? "aggregated" : r.deployment);
  // serve-rate's runs (a deployment under load: a closed loop or maximum load) are regimes of their
  // own, MoE apart, so the static-batch regimes keep their gates and the new ones show separately.
  if (r.calculator == "serve-rate") {
    const calc::ModelArch* m = catalog.find_model(param("model"));
    regime += std::string(m != nullptr && m->is_moe() ? " MoE" : "") + " under load";
  }
  return regime;
}

calc::Result<std::vector<Gate>> load_gates(const std::string& path) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return calc::FieldError{"published-runs", path, std::string("does not parse: ") + std::string(e.description()),
                            "a TOML file of [[run]] tables"};
  }
  std::vector<Gate> gates;
  const toml::array* list = root["gate"].as_array();
  if (list == nullptr) return gates;
  for (const auto& node : *list) {
    const toml::table* t = node.as_table();
    if (t == nullptr) continue;
    Gate g;
    g.group = (*t)["group"].value_or(std::string());
    g.regime = (*t)["regime"].value_or(std::string());
    g.half = (*t)["half"].value_or(std::string("held-out"));
    g.why = (*t)["why"].value_or(std::string());
    g.max_mean = (*t)["max_mean"].value_or(0.0);
    g.max_worst = (*t)["max_worst"].value_or(0.0);
    g.issue_bound = (*t)["issue_bound"].value_or(false);
    if ((g.group != "training" && g.group != "serving") || (g.half != "held-out" && g.half != "fit" && g.half != "all") ||
        g.max_mean < 0 || g.max_worst < 0 || (g.max_mean == 0 && g.max_worst == 0) || (!g.issue_bound && g.why.empty())) {
      return calc::FieldError{"gate", g.group + " " + g.regime,
                              "needs group training or serving, half held-out, fit or all, a positive max_mean or "
                              "max_worst, and a why unless issue_bound",
                              "group, regime, half, max_mean, max_worst, issue_bound, why"};
    }
    gates.push_back(std::move(g));
  }
  return gates;
}

calc::Result<std::vector<Run>> load_runs(const std::string& path) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return calc::FieldError{"published-runs", path, std::string("does not parse: ") + std::string(e.description()),
                            "a TOML file of [[run]] tables"};
  }
  std::vector<Run> runs;
  const toml::array* list = root["run"].as_array();
  if (list == nullptr) return calc::FieldError{"published-runs", path, "has no [[run]] entries", "[[run]] tables"};
  for (const auto& node : *list) {
    const toml::table* t = node.as_table();
    if (t == nullptr) continue;
    Run r;
    auto text = [&](const char* key) { return (*t)[key].value_or(std::string()); };
    r.id = text("id");
    r.group = text("group");
    r.half = text("half");
    r.calculator = text("calculator");
    r.metric = text("metric");
    r.unit = text("unit");
    r.source = text("source");
    r.url = text("url");
    r.date = text("date");
    r.measured = (*t)["measured"].value_or(0.0);
    r.deployment = text("deployment");
    if (const toml::table* p = (*t)["params"].as_table()) {
      for (const auto& [k, v] : *p) r.params[std::string(k.str())] = v.value_or(std::string());
    }
    if (r.id.empty() || r.measured <= 0 || r.calculator.empty()) {
      return calc::FieldError{"published-runs", r.id, "lacks an id, a calculator or a positive measured figure",
                              "id, calculator, metric, measured"};
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

// The quantity a run's measured figure is, from the calculator's results.
calc::Result<double> predict(const Run& r, const calc::Registry& registry, const calc::Catalog& catalog,
                             const calc::Given& overrides) {
  calc::Given given = r.params;
  for (const auto& [k, v] : overrides) {
    if (const calc::Calculator* c = registry.find(r.calculator)) {
      for (const auto& p : c->params) {
        if (p.name == k) given[k] = v;
      }
    }
  }
  auto d = registry.evaluate(r.calculator, given, catalog);
  if (!d) return d.errors();
  auto get = [&](const char* key) {
    const calc::NamedResult* nr = d->find(key);
    return nr ? nr->value : 0.0;
  };
  if (r.metric == "step_seconds") return get("step_seconds");
  if (r.metric == "ttft_seconds") return get("ttft_seconds");
  if (r.metric == "tpot_seconds") return get("tpot_seconds");
  if (r.metric == "mfu") return get("mfu");
  if (r.metric == "tokens_per_second_per_gpu") return get("tokens_per_second_per_gpu");
  if (r.metric == "batch_output_tokens_per_second_per_gpu") {
    return get("requests_per_second") * std::stod(r.params.at("output-tokens")) / std::stod(r.params.at("tp"));
  }
  if (r.metric == "narayanan_tflops_per_gpu") {
    // Narayanan et al. 2021 eq. 3: F = 96 B s l h² (1 + s/6h + V/16lh), per iteration.
    const calc::ModelArch* m = catalog.find_model(r.params.at("model"));
    if (m == nullptr) return calc::FieldError{"model", r.params.at("model"), "is not in the catalog", "a model id"};
    const double B = std::stod(r.params.at("global-batch")), s = std::stod(r.params.at("seq"));
    const double l = static_cast<double>(m->layers), h = static_cast<double>(m->hidden), V = static_cast<double>(m->vocab);
    const double F = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    return F / get("step_seconds") / std::stod(r.params.at("gpus")) / 1e12;
  }
  // Any other named result of the calculator (serve-rate's ttft_mean_seconds, tpot_p99_seconds, ...).
  if (const calc::NamedResult* nr = d->find(r.metric)) return nr->value;
  return calc::FieldError{"metric", r.metric, "is not a metric validate knows",
                          "step_seconds, ttft_seconds, tpot_seconds, mfu, tokens_per_second_per_gpu, narayanan_tflops_per_gpu, "
                          "batch_output_tokens_per_second_per_gpu, or a result the run's calculator names"};
}

std::vector<Row> evaluate(const std::vector<Run>& runs, const calc::Registry& registry, const calc::Catalog& catalog,
                          const calc::Given& overrides, const std::string& group, const std::string& half,
                          const std::string& regime_prefix) {
  std::vector<Row> rows;
  for (const Run& r : runs) {
    if (!group.empty() && r.group != group) continue;
    if (!half.empty() && r.half != half) continue;
    if (r.regime.compare(0, regime_prefix.size(), regime_prefix) != 0) continue;
    Row row{&r};
    auto p = predict(r, registry, catalog, overrides);
    if (!p) {
      row.failure = calc::to_string(p.errors());
      while (!row.failure.empty() && row.failure.back() == '\n') row.failure.pop_back();
    } else {
      row.predicted = *p;
      row.error = (*p - r.measured) / r.measured;
    }
    rows.push_back(row);
  }
  return rows;
}

// Absolute errors (a failed run counts 100%) of the rows in `group` (and `half`, and `regime`
// when not empty): mean, median, 90th percentile (nearest rank) and worst.
Stats stats(const std::vector<Row>& rows, const std::string& group, const std::string& half,
            const std::string& regime = "") {
  Stats s;
  std::vector<double> errors;
  for (const Row& r : rows) {
    if (r.run->group != group || (!half.empty() && r.run->half != half)) continue;
    if (!regime.empty() && r.run->regime != regime) continue;
    errors.push_back(r.failure.empty() ? std::abs(r.error) : 1.0);
  }
  s.n = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  for (double e : errors) s.mean += e;
  s.mean /= s.n;
  const size_t n = errors.size();
  s.median = n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  s.p90 = errors[static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1];
  s.worst = errors.back();
  return s;
}

std::vector<std::string> regimes(const std::vector<Run>& runs, const std::string& group) {
  std::vector<std::string> out;
  for (const Run& r : runs) {
    if (r.group == group && std::find(out.begin(), out.end(), r.regime) == out.end()) out.push_back(r.regime);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A gate of the runs file with what the runs reach on its half and regime.
struct GateResult {
  const Gate* gate = nullptr;
  Stats reached;
  bool pass = false;
  std::string bound;  // "held-out half: mean ≤ 8%, worst ≤ 20%"
  std::string note;   // "the issue's bound", or "not yet within the issue's bound: " and the reason
};

// One line of the ledger (issue 31 item 5): a regime, or a group's every regime (regime ""), on
// the held-out half and on all, with the gates that hold it.
struct LedgerLine {
  std::string group, regime;
  Stats held_out, all;
  std::vector<const GateResult*> gates;
};

// The ledger `validate` prints as text, JSON and Markdown and /calc shows (from the JSON): the
// one place the per-regime figures and the gates are computed.
struct Ledger {
  std::vector<GateResult> gates;
  std::vector<LedgerLine> lines;  // training's regimes then "every regime", then serving's
  bool gates_pass = true;
};

Ledger ledger_of(const std::vector<Row>& rows, const std::vector<Run>& runs, const std::vector<Gate>& gates) {
  Ledger l;
  l.gates.reserve(gates.size());  // the lines point into it
  for (const Gate& g : gates) {
    GateResult r;
    r.gate = &g;
    r.reached = stats(rows, g.group, g.half == "all" ? "" : g.half, g.regime);
    r.pass = r.reached.n > 0 && (g.max_mean == 0 || r.reached.mean * 100 <= g.max_mean + 1e-9) &&
             (g.max_worst == 0 || r.reached.worst * 100 <= g.max_worst + 1e-9);
    r.bound = (g.half == "all" ? std::string("all runs:") : g.half + " half:") + (g.max_mean > 0 ? " mean ≤ " + fmt("%g%%", g.max_mean) : std::string()) +
              (g.max_mean > 0 && g.max_worst > 0 ? "," : "") +
              (g.max_worst > 0 ? " worst ≤ " + fmt("%g%%", g.max_worst) : std::string());
    r.note = g.issue_bound ? "the issue's bound" : "not yet within the issue's bound: " + g.why;
    l.gates_pass = l.gates_pass && r.pass;
    l.gates.push_back(std::move(r));
  }
  for (const char* group : {"training", "serving"}) {
    std::vector<std::string> names = regimes(runs, group);
    names.push_back("");  // every regime of the group
    for (const std::string& name : names) {
      LedgerLine line{group, name, stats(rows, group, "held-out", name), stats(rows, group, "", name), {}};
      for (const GateResult& g : l.gates) {
        if (g.gate->group == line.group && g.gate->regime == line.regime) line.gates.push_back(&g);
      }
      l.lines.push_back(std::move(line));
    }
  }
  return l;
}

nlohmann::json stats_json(const Stats& s) {
  return {{"n", s.n},
          {"mean_abs_error", s.mean},
          {"median_abs_error", s.median},
          {"p90_abs_error", s.p90},
          {"worst_abs_error", s.worst}};
}

// "7.3 / 6.7 / 15.7 / 16.4% (12 runs)": mean / median / p90 / worst, as the Markdown table and
// /calc print a ledger cell (the page formats the JSON's figures the same way).
std::string ledger_cell(const Stats& s) {
  if (s.n == 0) return "no runs";
  return fmt("%.1f", s.mean * 100) + " / " + fmt("%.1f", s.median * 100) + " / " + fmt("%.1f", s.p90 * 100) + " / " +
         fmt("%.1f%%", s.worst * 100) + " (" + std::to_string(s.n) + (s.n == 1 ? " run)" : " runs)");
}

double mean_abs(const std::vector<Row>& rows) {
  double sum = 0;
  for (const Row& r : rows) sum += r.failure.empty() ? std::abs(r.error) : 1.0;
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
}

}  // namespace ridge::cli::validate_detail

namespace ridge::cli {

using namespace validate_detail;

CLI::App* add_validate(CLI::App& parent, ValidateFlags& f) {
  CLI::App* validate = parent.add_subcommand("validate", "the performance model against data/published-runs.toml");
  validate->add_flag("--json", f.json, "print the table as JSON");
  validate->add_flag("--check", f.check, "exit 1 when an error is above its threshold");
  validate->add_flag("--fit", f.fit, "grid-search the fitted constants on the fit half and print them");
  validate->add_flag("--markdown", f.markdown, "print the ledger as Markdown tables: each run with its source, then each regime");
  validate->add_option("--max-training-mean", f.max_training_mean,
                       "--check's threshold on all runs, percent (0: not checked; the gates in the runs file hold "
                       "each regime)")
      ->check(flags::positive_number(1000));
  validate->add_option("--max-training-worst", f.max_training_worst, "--check's threshold on all runs, percent")
      ->check(flags::positive_number(1000));
  validate->add_option("--max-serving-mean", f.max_serving_mean, "--check's threshold on all runs, percent")
      ->check(flags::positive_number(1000));
  validate->add_option("--max-held-out-training-mean", f.max_held_out_training_mean,
                       "--check's threshold on the held-out half, percent (0: not checked)")
      ->check(flags::positive_number(1000));
  validate->add_option("--max-held-out-training-worst", f.max_held_out_training_worst,
                       "--check's threshold on the held-out half, percent (0: not checked)")
      ->check(flags::positive_number(1000));
  validate->add_option("--max-held-out-serving-mean", f.max_held_out_serving_mean,
                       "--check's threshold on the held-out half, percent (0: not checked)")
      ->check(flags::positive_number(1000));
  validate->add_option("--set", f.set, "try a constant without rebuilding, NAME=VALUE (repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& kv) -> std::string {
            const auto eq = kv.find('=');
            if (eq != std::string::npos && eq > 0) return "";
            return "'" + kv.substr(0, 80) + "' is not a setting; accepted: NAME=VALUE, such as gemm-efficiency-max=0.8";
          },
          "NAME=VALUE"));
  return validate;
}

int run_validate(const ValidateFlags& f, const calc::Registry& registry, const calc::Catalog& catalog,
                 const std::string& runs_path, std::ostream& out, std::ostream& err) {
  const bool json = f.json, check = f.check, do_fit = f.fit;
  calc::Given overrides;
  for (const auto& kv : f.set) overrides[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  const double max_train_mean = f.max_training_mean / 100, max_train_worst = f.max_training_worst / 100,
               max_serve_mean = f.max_serving_mean / 100;
  auto runs = load_runs(runs_path);
  if (!runs) {
    err << "ridge validate: " << calc::to_string(runs.errors());
    return 2;
  }
  for (Run& r : runs.value()) r.regime = regime_of(r, catalog);
  auto gates = load_gates(runs_path);
  if (!gates) {
    err << "ridge validate: " << calc::to_string(gates.errors());
    return 2;
  }
  if (do_fit) {
    fit(*runs, registry, catalog, overrides, out);
    return 0;
  }
  std::vector<Row> rows = evaluate(*runs, registry, catalog, overrides);
  const char* groups[] = {"training", "serving"};
  const char* halves[] = {"", "fit", "held-out"};
  const Ledger ledger = ledger_of(rows, *runs, *gates);
  const bool gates_ok = ledger.gates_pass;
  auto line_name = [](const LedgerLine& l) { return l.group + (l.regime.empty() ? ", every regime" : " " + l.regime); };
  if (json) {
    nlohmann::json j;
    j["runs"] = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json e{{"id", r.run->id},         {"group", r.run->group}, {"regime", r.run->regime},
                       {"half", r.run->half},     {"metric", r.run->metric}, {"unit", r.run->unit},
                       {"measured", r.run->measured}, {"source", r.run->source}, {"url", r.run->url},
                       {"date", r.run->date}};
      if (r.failure.empty()) {
        e["predicted"] = r.predicted;
        e["error"] = r.error;
      } else {
        e["failure"] = r.failure;
      }
      j["runs"].push_back(e);
    }
    for (const char* g : groups) {
      for (const char* h : halves) j["summary"][g][*h ? h : "all"] = stats_json(stats(rows, g, h));
    }
    // "regimes" (read by the design grader) and "ledger" (in the order /calc and --markdown
    // show it, with each line's gates by index into "gates") hold the same figures.
    j["ledger"] = nlohmann::json::array();
    for (const LedgerLine& l : ledger.lines) {
      if (!l.regime.empty()) {
        j["regimes"][l.group][l.regime]["all"] = stats_json(l.all);
        j["regimes"][l.group][l.regime]["held-out"] = stats_json(l.held_out);
      }
      nlohmann::json gate_indices = nlohmann::json::array();
      for (const GateResult* g : l.gates) gate_indices.push_back(g - ledger.gates.data());
      j["ledger"].push_back({{"group", l.group},
                             {"regime", l.regime},
                             {"held-out", stats_json(l.held_out)},
                             {"all", stats_json(l.all)},
                             {"gates", gate_indices}});
    }
    j["gates"] = nlohmann::json::array();
    for (const GateResult& r : ledger.gates) {
      const Gate& g = *r.gate;
      j["gates"].push_back({{"group", g.group},
                            {"regime", g.regime},
                            {"half", g.half},
                            {"n", r.reached.n},
                            {"mean_abs_error", r.reached.mean},
                            {"median_abs_error", r.reached.median},
                            {"p90_abs_error", r.reached.p90},
                            {"worst_abs_error", r.reached.worst},
                            {"max_mean_percent", g.max_mean},
                            {"max_worst_percent", g.max_worst},
                            {"issue_bound", g.issue_bound},
                            {"pass", r.pass},
                            {"bound", r.bound},
                            {"note", r.note},
                            {"why", g.why}});
    }
    out << j.dump(2) << "\n";
  } else if (f.markdown) {
    // The ledger for bench/README.md, the same table as /calc: each regime on the held-out half
    // and on all with its gates, then each regime's runs with their sources.
    auto cell = [](std::string s) {
      std::replace(s.begin(), s.end(), '|', '/');
      return s;
    };
    out << "Mean / median / p90 / worst absolute error per regime:\n\n"
        << "| regime | held-out | all | gate |\n|---|---|---|---|\n";
    for (const LedgerLine& l : ledger.lines) {
      std::string gate_text;
      for (const GateResult* g : l.gates) {
        gate_text += (gate_text.empty() ? "" : "; ") + g->bound + ": " + (g->pass ? "pass" : "FAIL") + ", " + g->note;
      }
      out << "| " << (l.regime.empty() ? "**" + line_name(l) + "**" : line_name(l)) << " | " << ledger_cell(l.held_out)
          << " | " << ledger_cell(l.all) << " | " << cell(gate_text.empty() ? "none" : gate_text) << " |\n";
    }
    for (const LedgerLine& l : ledger.lines) {
      if (l.regime.empty()) continue;
      out << "\n" << line_name(l) << ":\n\n| run | half | predicted | measured | error | source |\n|---|---|---:|---:|---:|---|\n";
      for (const Row& r : rows) {
        if (r.run->group != l.group || r.run->regime != l.regime) continue;
        out << "| " << r.run->id << " | " << r.run->half << " | ";
        if (r.failure.empty()) {
          out << fmt("%.4g", r.predicted) << " " << r.run->unit << " | " << fmt("%.4g", r.run->measured) << " "
              << r.run->unit << " | " << fmt("%+.1f%%", r.error * 100);
        } else {
          out << "failed | " << fmt("%.4g", r.run->measured) << " | ";
        }
        out << " | [" << cell(r.run->source) << "](" << r.run->url << ") |\n";
      }
    }
  } else {
    size_t w = 2;
    for (const Row& r : rows) w = std::max(w, r.run->id.size());
    out << "id" << std::string(w - 2 + 2, ' ') << "half       predicted     measured    error\n";
    for (const Row& r : rows) {
      out << r.run->id << std::string(w - r.run->id.size() + 2, ' ') << r.run->half
          << std::string(11 - r.run->half.size(), ' ');
      if (!r.failure.empty()) {
        out << "failed: " << r.failure << "\n";
        continue;
      }
      out << fmt("%11.4g", r.predicted) << "  " << fmt("%11.4g", r.run->measured) << "  " << fmt("%+6.1f%%", r.error * 100)
          << "  " << r.run->unit << "\n";
    }
    out << "\n";
    auto line = [&](const std::string& what, const Stats& s) {
      out << what << ", " << s.n << " runs): mean |error| " << fmt("%.1f%%", s.mean * 100) << ", median "
          << fmt("%.1f%%", s.median * 100) << ", p90 " << fmt("%.1f%%", s.p90 * 100) << ", worst "
          << fmt("%.1f%%", s.worst * 100) << "\n";
    };
    for (const char* g : groups) {
      for (const char* h : halves) line(std::string(g) + " (" + (*h ? h : "all"), stats(rows, g, h));
    }
    out << "\nper regime:\n";
    for (const LedgerLine& l : ledger.lines) {
      if (l.regime.empty()) continue;
      line("  " + l.group + " " + l.regime + " (held-out", l.held_out);
      line("  " + l.group + " " + l.regime + " (all", l.all);
    }
  }
  // The gates: each regime's error against its threshold, printed with whether the threshold
  // is the issue's bound or a stated, looser one.
  if (!json && !f.markdown && !ledger.gates.empty()) out << "\ngates (ridge validate --check):\n";
  for (const GateResult& r : ledger.gates) {
    if (json || f.markdown) break;
    const Gate& g = *r.gate;
    out << "  " << g.group << (g.regime.empty() ? std::string(" (all regimes)") : " " + g.regime) << ", " << g.half
        << ", " << r.reached.n << " runs: mean " << fmt("%.1f%%", r.reached.mean * 100) << ", worst "
        << fmt("%.1f%%", r.reached.worst * 100) << " against" << (g.max_mean > 0 ? " mean ≤ " + fmt("%g%%", g.max_mean) : std::string())
        << (g.max_worst > 0 ? " worst ≤ " + fmt("%g%%", g.max_worst) : std::string()) << ": "
        << (r.pass ? "pass" : "FAIL") << "; "
        << (g.issue_bound ? "the issue's bound" : "not yet within the issue's bound (" + g.why + ")") << "\n";
  }
  if (check) {
    if (!gates_ok) {
      err << "ridge validate: a gate in " << runs_path << " fails (see the gates above)\n";
      return 1;
    }
    Stats t = stats(rows, "training", ""), s = stats(rows, "serving", "");
    bool ok = (max_train_mean == 0 || t.mean <= max_train_mean) && (max_train_worst == 0 || t.worst <= max_train_worst) &&
              (max_serve_mean == 0 || s.mean <= max_serve_mean);
    // The issue's bar is on the held-out half; each held-out threshold applies once given.
    Stats th = stats(rows, "training", "held-out"), sh = stats(rows, "serving", "held-out");
    if ((f.max_held_out_training_mean > 0 && th.mean * 100 > f.max_held_out_training_mean) ||
        (f.max_held_out_training_worst > 0 && th.worst * 100 > f.max_held_out_training_worst) ||
        (f.max_held_out_serving_mean > 0 && sh.mean * 100 > f.max_held_out_serving_mean)) {
      err << "ridge validate: held-out half above its thresholds (training mean " << fmt("%.1f%%", th.mean * 100)
          << ", worst " << fmt("%.1f%%", th.worst * 100) << "; serving mean " << fmt("%.1f%%", sh.mean * 100) << ")\n";
      return 1;
    }
    if (!ok) {
      err << "ridge validate: above the thresholds (training mean " << fmt("%.1f%%", max_train_mean * 100) << ", worst "
          << fmt("%.1f%%", max_train_worst * 100) << "; serving mean " << fmt("%.1f%%", max_serve_mean * 100) << ")\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace ridge::cli
