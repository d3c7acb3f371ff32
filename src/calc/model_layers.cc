// Which layer is which: counting a layer plan into runs of identical layers (bounded by the
// config's own lists and by the pattern's period, never by a count the config sets), the MoE
// placement rules the families share, per-layer lists, and the refusal of keys that shape layers
// in a way no reader models.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "calc/model_reader.h"
#include "calc/units.h"

namespace ridge::calc::reader {

// Which layer is which. A layer's kind is (mixer kind, MLP kind); the plan says it per layer from
// an explicit list (bounded by the config's own list) or from periodic rules that hold between
// breakpoints (first_k_dense_replace, max_window_layers). Counting is per residue of the period,
// never per layer of a count the config sets.



Result<std::vector<LayerRun>> count_layers(const LayerPlan& p) {
  struct Tally {
    int64_t count = 0, first = 0;
  };
  std::map<std::pair<int, int>, Tally> tally;
  auto mixer_of = [&](int64_t l) { return p.mixer_list.empty() ? p.mixer_rule(l) : p.mixer_list[static_cast<size_t>(l)]; };
  auto mlp_of = [&](int64_t l) { return p.mlp_list.empty() ? p.mlp_rule(l) : p.mlp_list[static_cast<size_t>(l)]; };
  auto add = [&](int64_t l, int64_t count) {
    auto [it, fresh] = tally.try_emplace({mixer_of(l), mlp_of(l)}, Tally{0, l});
    it->second.count += count;
    it->second.first = std::min(it->second.first, l);
  };
  const bool listed = !p.mixer_list.empty() || !p.mlp_list.empty();
  int64_t period = std::lcm(p.mixer_list.empty() ? std::max<int64_t>(p.mixer_period, 1) : 1,
                            p.mlp_list.empty() ? std::max<int64_t>(p.mlp_period, 1) : 1);
  if (listed) {
    for (int64_t l = 0; l < p.layers; ++l) add(l, 1);  // the list's own length
  } else {
    if (period > kMaxPeriod && p.layers > kMaxPeriod) {
      return FieldError{"config.json:num_hidden_layers", n(p.layers),
                        "has a layer pattern that repeats only every " + n(period) + " layers",
                        "patterns (sliding_window_pattern, moe_layer_freq, ...) repeating within 4,096 layers"};
    }
    std::vector<int64_t> cuts = {0, p.layers};
    for (int64_t b : p.breaks) cuts.push_back(std::clamp<int64_t>(b, 0, p.layers));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      const int64_t lo = cuts[i], hi = cuts[i + 1];
      if (hi - lo <= period) {
        for (int64_t l = lo; l < hi; ++l) add(l, 1);
      } else {
        for (int64_t r = 0; r < period; ++r) add(lo + r, (hi - 1 - (lo + r)) / period + 1);
      }
    }
  }
  for (int64_t l : p.dense_override) {
    if (l < 0 || l >= p.layers || p.dense_kind < 0) continue;
    auto it = tally.find({mixer_of(l), mlp_of(l)});
    if (it == tally.end() || p.mlp_kinds[static_cast<size_t>(it->first.second)].kind != MlpKind::kMoe) continue;
    const int mixer = it->first.first;
    if (--it->second.count == 0) tally.erase(it);
    auto [dit, fresh] = tally.try_emplace({mixer, p.dense_kind}, Tally{0, l});
    dit->second.count += 1;
    dit->second.first = std::min(dit->second.first, l);
  }
  std::vector<LayerRun> runs;
  for (const auto& [key, t] : tally) {
    if (t.count == 0) continue;
    LayerRun run;
    run.count = t.count;
    run.first = t.first;
    run.mixers = p.mixer_kinds[static_cast<size_t>(key.first)];
    run.mlp = p.mlp_kinds[static_cast<size_t>(key.second)];
    run.norm_params = p.norm_width * ((run.mixers.empty() ? 0 : p.mixer_norms) + (run.mlp.kind == MlpKind::kNone ? 0 : p.mlp_norms));
    runs.push_back(std::move(run));
  }
  std::sort(runs.begin(), runs.end(), [](const LayerRun& a, const LayerRun& b) { return a.first < b.first; });
  return runs;
}

namespace {

// Keys that change the layer math. A reader lists the ones it models; any other key of these
// shapes is refused by name, so a new mixer is never sized as something it is not.
bool shapes_layers(std::string_view key) {
  auto has = [&](std::string_view part) { return key.find(part) != std::string_view::npos; };
  auto ends = [&](std::string_view tail) { return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail; };
  return ends("_attention") || has("linear") || key.rfind("mamba", 0) == 0 || key.rfind("ssm", 0) == 0 || has("chunk") ||
         has("hybrid") || has("attn_type") || has("attn_layer") || has("kv_shar") || has("block_type") ||
         has("layers_block") || key.rfind("index_", 0) == 0 || has("altup") || has("laurel");
}

// Keys of those shapes that every reader understands (or that do not change any figure).
bool benign_layer_key(std::string_view key) {
  static const std::set<std::string_view> kBenign = {"attention_dropout", "use_sliding_window", "use_linear_bias"};
  return kBenign.count(key) > 0;
}

bool inactive(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v.get<double>() == 0) ||
         ((v.is_array() || v.is_object() || v.is_string()) && v.empty());
}

}  // namespace

void refuse_unmodelled_keys(const json& cfg, const std::set<std::string_view>& modelled, const std::string& family,
                            Errors& errors) {
  for (auto it = cfg.begin(); it != cfg.end(); ++it) {
    const std::string& key = it.key();
    if (!shapes_layers(key) || benign_layer_key(key) || modelled.count(key) > 0 || inactive(*it)) continue;
    errors.push_back({"config.json:" + key, quote(*it),
                      "changes the layers' math and is not modelled for model_type '" + family + "'",
                      "what is modelled: full, sliding-window and chunked attention, latent attention, Gated DeltaNet, "
                      "Kimi Delta Attention, Lightning attention, Mamba and Mamba-2 layers, each with the keys of the "
                      "families ridge reads (see `ridge calc --list-models`)"});
  }
}

// The MoE rule shared by the families: layer l is sparse when l ≥ first_k_dense_replace and
// (l + offset) is a multiple of the frequency (Qwen's decoder_sparse_step and Llama 4's
// interleave_moe_layer_step count from one, DeepSeek's moe_layer_freq from zero).
void moe_rule(LayerPlan& plan, const Common& c, int moe_kind, int dense_kind) {
  const int64_t offset = c.from_one ? 1 : 0, freq = std::max<int64_t>(c.freq, 1), first = c.first_dense;
  plan.mlp_rule = [=](int64_t l) { return l >= first && (l + offset) % freq == 0 ? moe_kind : dense_kind; };
  plan.mlp_period = freq;
  plan.breaks.push_back(first);
  plan.dense_kind = dense_kind;
}

// mlp_only_layers: each listed sparse layer becomes dense once, whatever the list repeats. The
// list is read only up to one entry per layer.
void read_mlp_only(ConfigReader& r, LayerPlan& plan, Errors& errors) {
  const json* only = r.find("mlp_only_layers");
  if (only == nullptr || !only->is_array()) return;
  if (static_cast<int64_t>(only->size()) > plan.layers) {
    errors.push_back({"config.json:mlp_only_layers", std::to_string(only->size()) + " entries",
                      "lists more layers than the model has",
                      "at most " + std::to_string(plan.layers) + " layer indices (num_hidden_layers)"});
    return;
  }
  for (const auto& v : *only) {
    if (v.is_number_integer()) plan.dense_override.insert(v.get<int64_t>());
  }
}

// A per-layer list of strings or integers, checked for length; `kind_of` maps an entry to a
// mixer kind or -1 (refused, naming the entry).
bool read_layer_list(const json& list, const char* key, int64_t layers, const std::function<int(const json&)>& kind_of,
                     const std::string& accepted, std::vector<int>& out, Errors& errors) {
  if (static_cast<int64_t>(list.size()) != layers) {
    errors.push_back({std::string("config.json:") + key, std::to_string(list.size()) + " entries",
                      "does not list one type per layer", std::to_string(layers) + " entries (num_hidden_layers)"});
    return false;
  }
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    int k = kind_of(list[i]);
    if (k < 0) {
      errors.push_back({std::string("config.json:") + key + "[" + std::to_string(i) + "]", quote(list[i]),
                        "is a layer type ridge does not model", accepted});
      return false;
    }
    out.push_back(k);
  }
  return true;
}

}  // namespace ridge::calc::reader
