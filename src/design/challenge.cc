#include "design/challenge.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

namespace ridge::design {
namespace {

using calc::Errors;
using calc::FieldError;

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A TOML scalar as the text a form would carry: integers without a decimal point.
bool scalar_text(const toml::node& n, std::string& out) {
  if (auto s = n.value<std::string>(); s && n.is_string()) {
    out = *s;
    return true;
  }
  if (n.is_integer()) {
    out = std::to_string(*n.value<int64_t>());
    return true;
  }
  if (n.is_floating_point()) {
    std::ostringstream os;
    os << *n.value<double>();
    out = os.str();
    return true;
  }
  if (n.is_boolean()) {
    out = *n.value<bool>() ? "on" : "off";
    return true;
  }
  return false;
}

bool parse_number(const std::string& text, double& out) {
  if (text.empty() || text.size() > 32) return false;
  std::istringstream is(text);
  is >> out;
  return !is.fail() && is.eof() && std::isfinite(out);
}

const std::vector<std::string> kGpus = {"a100-80gb-sxm", "h100-sxm", "h200", "b200", "gb200", "mi300x", "l40s"};
const std::vector<std::string> kDtypesServe = {"bf16", "fp8", "int4"};

}  // namespace

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kServing: return "serving";
    case Kind::kTraining: return "training";
    case Kind::kCluster: return "cluster";
  }
  return "serving";
}

const std::vector<std::string>& objective_metrics() {
  static const std::vector<std::string> m = {"ttft_p99_ms",       "tpot_p99_ms",     "e2e_p99_s",
                                             "throughput_tokens_per_s", "monthly_cost_usd", "cost_per_mtok_usd",
                                             "time_to_train_days", "goodput",        "facility_power_mw",
                                             "training_cost_usd", "mfu"};
  return m;
}

std::string metric_unit(const std::string& metric) {
  if (metric == "ttft_p99_ms" || metric == "tpot_p99_ms") return "ms";
  if (metric == "e2e_p99_s") return "s";
  if (metric == "throughput_tokens_per_s") return "tokens/s";
  if (metric == "monthly_cost_usd" || metric == "cost_per_mtok_usd" || metric == "training_cost_usd") return "USD";
  if (metric == "time_to_train_days") return "days";
  if (metric == "facility_power_mw") return "MW";
  return "";
}

bool metric_at_most(const std::string& metric) {
  return !(metric == "throughput_tokens_per_s" || metric == "goodput" || metric == "mfu");
}

const std::vector<FieldSpec>& submission_fields(Kind k) {
  static const std::vector<FieldSpec> serving = {
      {"gpu", "accelerator of every replica", false, 0, 0, kGpus, ""},
      {"tp", "tensor-parallel GPUs per replica", true, 1, 64, {}, "1"},
      {"replicas", "model replicas behind the load balancer", true, 1, 4096, {}, "1"},
      {"max_batch", "batch cap: concurrent sequences per replica (continuous batching)", true, 1, 4096, {}, "64"},
      {"weights_dtype", "weight storage", false, 0, 0, kDtypesServe, "bf16"},
      {"kv_dtype", "KV-cache storage", false, 0, 0, {"bf16", "fp8"}, "bf16"},
  };
  static const std::vector<FieldSpec> training = {
      {"gpu", "accelerator of the run", false, 0, 0, kGpus, ""},
      {"gpus", "GPUs training (spares not counted)", true, 1, 131072, {}, ""},
      {"tp", "tensor-parallel size", true, 1, 64, {}, "1"},
      {"pp", "pipeline stages", true, 1, 128, {}, "1"},
      {"vp", "virtual stages per GPU (interleaved 1F1B)", true, 1, 16, {}, "1"},
      {"pipeline_split", "how layers are split over stages: even, or the embedding and the loss each take a layer's slot (Megatron-LM --account-for-embedding/loss-in-pipeline-split)",
       false, 0, 0, {"even", "embedding-and-loss"}, "even"},
      {"micro_batch", "sequences per micro-batch", true, 1, 64, {}, "1"},
      {"recompute", "activation recomputation", false, 0, 0, {"none", "selective", "full"}, "selective"},
      {"dtype", "GEMM dtype", false, 0, 0, {"bf16", "fp8"}, "bf16"},
      {"zero_stage", "ZeRO stage over the data-parallel ranks", true, 0, 3, {}, "1"},
      {"checkpoint_minutes", "minutes between checkpoints", true, 1, 1440, {}, "60"},
      {"spares", "hot spare GPUs kept powered and ready (whole nodes of 8)", true, 0, 16384, {}, "0"},
      {"nic_gbps", "scale-out bandwidth per GPU, Gb/s one direction (0: the system's own)", true, 0, 3200, {}, "0"},
  };
  return k == Kind::kServing ? serving : training;
}

calc::Result<Design> validate_submission(const Challenge& c, const Design& given) {
  Errors errors;
  const auto& specs = submission_fields(c.kind);
  for (const auto& [name, value] : given) {
    auto spec = std::find_if(specs.begin(), specs.end(), [&](const FieldSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      std::vector<std::string> names;
      for (const auto& s : specs) names.push_back(s.name);
      errors.push_back({name, value.substr(0, 64), "is not a field of a " + std::string(kind_name(c.kind)) + " design",
                        join(names)});
    }
  }
  Design out;
  for (const auto& spec : specs) {
    auto it = given.find(spec.name);
    std::string value;
    if (it != given.end()) {
      value = it->second;
    } else if (auto r = c.reference.find(spec.name); r != c.reference.end()) {
      value = r->second;
    } else {
      value = spec.default_value;
    }
    if (value.empty()) {
      errors.push_back({spec.name, "", "is required (" + spec.help + ")",
                        spec.numeric ? "a number" : join(spec.choices)});
      continue;
    }
    if (spec.numeric) {
      double v = 0;
      if (!parse_number(value, v) || v != std::floor(v) || v < spec.min || v > spec.max) {
        std::ostringstream acc;
        acc << "a whole number from " << spec.min << " to " << spec.max;
        errors.push_back({spec.name, value.substr(0, 64), "is not a valid " + spec.help, acc.str()});
        continue;
      }
      std::ostringstream os;
      os << static_cast<long long>(v);
      value = os.str();
    } else if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
      errors.push_back({spec.name, value.substr(0, 64), "is not a known choice (" + spec.help + ")", join(spec.choices)});
      continue;
    }
    // The challenge narrows what may change: a listed field takes its listed values only; an
    // unlisted one keeps the reference's value.
    if (auto range = c.ranges.find(spec.name); range != c.ranges.end()) {
      const double v = std::stod(value);
      if (v < range->second.first || v > range->second.second) {
        std::ostringstream acc;
        acc << "from " << range->second.first << " to " << range->second.second << " in this challenge";
        errors.push_back({spec.name, value, "is out of the challenge's range", acc.str()});
        continue;
      }
    } else if (auto allowed = c.choices.find(spec.name); allowed != c.choices.end()) {
      if (std::find(allowed->second.begin(), allowed->second.end(), value) == allowed->second.end()) {
        errors.push_back({spec.name, value, "is not open in this challenge", join(allowed->second)});
        continue;
      }
    } else if (it != given.end()) {
      auto ref = c.reference.find(spec.name);
      const std::string fixed = ref != c.reference.end() ? ref->second : spec.default_value;
      if (value != fixed) {
        errors.push_back({spec.name, value, "is fixed by the scenario", fixed});
        continue;
      }
    }
    out[spec.name] = value;
  }
  if (!errors.empty()) return errors;
  return out;
}

namespace {

// A flat table of scalars into a Design; `where` prefixes field names in errors.
Errors read_design(const toml::table& t, const std::string& where, Design& out, std::string* why) {
  Errors errors;
  for (const auto& [key, node] : t) {
    const std::string k(key.str());
    std::string text;
    if (why && k == "why") {
      if (auto s = node.value<std::string>()) *why = *s;
      continue;
    }
    if (!scalar_text(node, text)) {
      errors.push_back({where + k, "(a table or array)", "is not a single value", "a string or a number"});
      continue;
    }
    out[k] = text;
  }
  return errors;
}

}  // namespace

calc::Result<Design> parse_submission(const Challenge& c, const std::string& toml_text) {
  if (toml_text.size() > 16384) {
    return FieldError{"submission", std::to_string(toml_text.size()) + " bytes", "is too long", "at most 16384 bytes"};
  }
  toml::table root;
  try {
    root = toml::parse(toml_text, std::string("submission"));
  } catch (const toml::parse_error& e) {
    std::ostringstream line;
    line << "line " << e.source().begin.line;
    return FieldError{"submission", line.str(), std::string(e.description()), "TOML: one field = value a line"};
  }
  Design given;
  // A submission may be the bare table or sit under [design].
  const toml::table* t = root["design"].as_table() ? root["design"].as_table() : &root;
  Errors errors = read_design(*t, "", given, nullptr);
  if (!errors.empty()) return errors;
  return validate_submission(c, given);
}

calc::Result<Challenge> parse_challenge(const std::string& toml_text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(toml_text, file);
  } catch (const toml::parse_error& e) {
    std::ostringstream line;
    line << "line " << e.source().begin.line;
    return FieldError{file, line.str(), std::string(e.description()), "TOML"};
  }
  Errors errors;
  Challenge c;
  c.file = file;
  auto text = [&](const char* key, std::string& out, const std::vector<std::string>& accepted = {}) {
    auto v = root[key].value<std::string>();
    if (!v || v->empty()) {
      errors.push_back({file + ": " + key, "", "is required", accepted.empty() ? "a string" : join(accepted)});
      return;
    }
    if (!accepted.empty() && std::find(accepted.begin(), accepted.end(), *v) == accepted.end()) {
      errors.push_back({file + ": " + key, *v, "is not accepted", join(accepted)});
      return;
    }
    out = *v;
  };
  std::string kind;
  text("id", c.id);
  text("title", c.title);
  text("kind", kind, {"serving", "training", "cluster"});
  text("track", c.track, {"kernels", "distributed", "serving", "platform"});
  text("difficulty", c.difficulty, {"easy", "medium", "hard", "expert"});
  text("scenario", c.scenario);
  c.kind = kind == "training" ? Kind::kTraining : kind == "cluster" ? Kind::kCluster : Kind::kServing;
  if (!c.id.empty()) {
    const std::string stem = std::filesystem::path(file).stem().string();
    if (file.size() > 5 && stem != c.id && file != "inline") {
      errors.push_back({file + ": id", c.id, "does not match the file name", stem});
    }
  }
  if (auto m = root["minutes"].value<int64_t>()) {
    if (*m < 5 || *m > 180) errors.push_back({file + ": minutes", std::to_string(*m), "is out of range", "5 to 180"});
    c.minutes = static_cast<int>(*m);
  }
  auto strings = [&](const char* key, std::vector<std::string>& out) {
    if (auto* a = root[key].as_array()) {
      for (const auto& n : *a) {
        if (auto s = n.value<std::string>()) out.push_back(*s);
        else errors.push_back({file + ": " + key, "(not a string)", "holds a non-string", "an array of slugs"});
      }
    }
    if (out.empty()) errors.push_back({file + ": " + key, "", "is required", "an array of slugs"});
  };
  strings("concepts", c.concepts);
  strings("questions", c.questions);
  if (auto* t = root["fixed"].as_table()) {
    for (const auto& [k, n] : *t) {
      std::string v;
      if (!scalar_text(n, v)) errors.push_back({file + ": fixed." + std::string(k.str()), "", "is not a value", "a string or number"});
      c.fixed[std::string(k.str())] = v;
    }
  } else {
    errors.push_back({file + ": fixed", "", "is required", "a table of the scenario's givens"});
  }
  const std::vector<std::string> need = c.kind == Kind::kServing
                                            ? std::vector<std::string>{"model", "input_tokens", "output_tokens", "request_rate"}
                                            : std::vector<std::string>{"model", "seq", "global_batch", "tokens",
                                                                       "gpu_failures_per_1000_gpu_days",
                                                                       "checkpoint_write_seconds", "restart_seconds",
                                                                       "repair_hours"};
  for (const auto& k : need) {
    if (!c.fixed.count(k)) errors.push_back({file + ": fixed." + k, "", "is required for a " + kind + " challenge", join(need)});
  }
  if (auto* t = root["prices"].as_table()) {
    for (const auto& [k, n] : *t) {
      auto v = n.value<double>();
      if (!v || *v <= 0 || *v > 1000) {
        errors.push_back({file + ": prices." + std::string(k.str()), "", "is not a price", "USD per GPU-hour, 0 to 1000"});
        continue;
      }
      c.prices[std::string(k.str())] = *v;
    }
  }
  if (auto* t = root["choices"].as_table()) {
    for (const auto& [k, n] : *t) {
      const std::string key(k.str());
      if (auto* r = n.as_table()) {
        auto lo = (*r)["min"].value<int64_t>(), hi = (*r)["max"].value<int64_t>();
        if (!lo || !hi || *lo > *hi) {
          errors.push_back({file + ": choices." + key, "", "is not a range", "{ min = N, max = M } with N <= M"});
        } else {
          c.ranges[key] = {static_cast<double>(*lo), static_cast<double>(*hi)};
        }
        continue;
      }
      auto* a = n.as_array();
      std::vector<std::string> vals;
      if (a) {
        for (const auto& e : *a) {
          std::string v;
          if (scalar_text(e, v)) vals.push_back(v);
        }
      }
      if (vals.empty()) {
        errors.push_back({file + ": choices." + key, "", "is not a list of values", "an array of the values open to the candidate"});
        continue;
      }
      c.choices[key] = vals;
    }
  }
  if (auto* a = root["objective"].as_array()) {
    for (const auto& n : *a) {
      auto* t = n.as_table();
      if (!t) continue;
      Objective o;
      o.metric = (*t)["metric"].value_or(std::string());
      const auto& ms = objective_metrics();
      if (std::find(ms.begin(), ms.end(), o.metric) == ms.end()) {
        errors.push_back({file + ": objective.metric", o.metric, "is not a metric", join(ms)});
        continue;
      }
      o.at_most = metric_at_most(o.metric);
      auto target = (*t)[o.at_most ? "max" : "min"].value<double>();
      if (!target || *target <= 0) {
        errors.push_back({file + ": objective." + o.metric, "", std::string("needs a positive ") + (o.at_most ? "max" : "min"),
                          o.at_most ? "max = a number in " + metric_unit(o.metric) : "min = a number in " + metric_unit(o.metric)});
        continue;
      }
      o.target = *target;
      c.objectives.push_back(o);
    }
  }
  if (c.objectives.empty()) errors.push_back({file + ": objective", "", "is required", "one or more [[objective]] tables"});
  for (const char* section : {"reference", "common_mistake"}) {
    auto* t = root[section].as_table();
    if (!t) {
      errors.push_back({file + ": " + section, "", "is required", "a table in the form of a submission"});
      continue;
    }
    Design d;
    auto e = read_design(*t, file + ": " + section + ".", d, std::string(section) == "common_mistake" ? &c.mistake_why : nullptr);
    errors.insert(errors.end(), e.begin(), e.end());
    (std::string(section) == "reference" ? c.reference : c.common_mistake) = d;
  }
  if (root["common_mistake"].as_table() && c.mistake_why.empty()) {
    errors.push_back({file + ": common_mistake.why", "", "is required", "why the design most candidates try first fails"});
  }
  // Cost objectives need a price for every GPU open to the candidate.
  if (errors.empty()) {
    std::vector<std::string> gpus;
    if (auto g = c.choices.find("gpu"); g != c.choices.end()) gpus = g->second;
    if (auto g = c.reference.find("gpu"); g != c.reference.end()) gpus.push_back(g->second);
    for (const auto& g : gpus) {
      if (!c.prices.count(g)) errors.push_back({file + ": prices." + g, "", "is missing", "USD per GPU-hour for every GPU open to the candidate"});
    }
  }
  if (!errors.empty()) return errors;
  // The reference and the common mistake must be valid submissions (checked against the
  // challenge: the reference's own values are the fixed ones).
  for (const char* section : {"reference", "common_mistake"}) {
    auto ok = validate_submission(c, std::string(section) == "reference" ? c.reference : c.common_mistake);
    if (!ok) {
      for (auto e : ok.errors()) {
        e.field = file + ": " + section + "." + e.field;
        errors.push_back(e);
      }
    } else {
      (std::string(section) == "reference" ? c.reference : c.common_mistake) = *ok;
    }
  }
  if (!errors.empty()) return errors;
  return c;
}

LoadedChallenges load_challenges(const std::string& dir) {
  namespace fs = std::filesystem;
  LoadedChallenges out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    out.errors.push_back({dir, "", "is not a folder", "content/challenges"});
    return out;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".toml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::set<std::string> ids;
  for (const auto& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    auto c = parse_challenge(ss.str(), p.string());
    if (!c) {
      out.errors.insert(out.errors.end(), c.errors().begin(), c.errors().end());
      continue;
    }
    if (!ids.insert(c->id).second) {
      out.errors.push_back({p.string() + ": id", c->id, "is used by another challenge", "a unique id"});
      continue;
    }
    out.challenges.push_back(*c);
  }
  std::sort(out.challenges.begin(), out.challenges.end(),
            [](const Challenge& a, const Challenge& b) { return a.id < b.id; });
  return out;
}

}  // namespace ridge::design
