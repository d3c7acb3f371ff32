// The grader's JSON: the model's error per regime read from `ridge validate --json`, and the
// verdict written for the API and `ridge design --json`.
#include "design/grader.h"

#include <nlohmann/json.hpp>

namespace ridge::design {

Trust trust_from_validate_json(const std::string& json_text) {
  Trust t;
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.contains("regimes") || !j["regimes"].is_object()) return t;
  for (const auto& [group, regimes] : j["regimes"].items()) {
    if (!regimes.is_object()) continue;
    for (const auto& [regime, halves] : regimes.items()) {
      RegimeError e;
      for (const char* half : {"held-out", "all"}) {
        if (!halves.contains(half)) continue;
        const auto& h = halves[half];
        const int n = h.value("n", 0);
        if (n == 0) continue;
        e.mean = h.value("mean_abs_error", 0.0);
        e.worst = h.value("worst_abs_error", 0.0);
        e.n = n;
        e.half = half;
        break;
      }
      if (e.n > 0) t[group + "/" + regime] = e;
    }
  }
  return t;
}

std::string verdict_json(const Verdict& v, int indent) {
  nlohmann::json j;
  j["challenge"] = v.challenge;
  j["grader_version"] = v.grader_version;
  j["pass"] = v.pass;
  j["runs"] = v.runs;
  j["failure"] = v.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.failure);
  j["objectives"] = nlohmann::json::array();
  for (const auto& o : v.objectives) {
    j["objectives"].push_back({{"name", o.name},
                               {"predicted", o.unbounded ? nlohmann::json(nullptr) : nlohmann::json(o.predicted)},
                               {"target", o.target},
                               {"at_most", o.at_most},
                               {"unit", o.unit},
                               {"pass", o.pass},
                               {"binding", o.binding},
                               {"derivation", o.derivation}});
  }
  if (v.suggestion) {
    j["suggestion"] = {{"field", v.suggestion->field},     {"from", v.suggestion->from},
                       {"to", v.suggestion->to},           {"objective", v.suggestion->objective},
                       {"effect", v.suggestion->effect},   {"passes_all", v.suggestion->passes_all},
                       {"fixes", v.suggestion->fixes}};
  } else {
    j["suggestion"] = nullptr;
  }
  j["trust"] = v.trust;
  j["cost_usd"] = v.cost_usd;
  j["evaluations"] = v.evaluations;
  return j.dump(indent);
}

}  // namespace ridge::design
