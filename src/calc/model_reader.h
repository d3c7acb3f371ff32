// Internal to the model reader (model_config.cc, model_hybrid_readers.cc, model_mixers.cc,
// model_layers.cc, model_quantization.cc, model.cc): the JSON access with bounded integers, the
// shapes a mixer or MLP is built from, the layer plan a reader fills, and the family readers.
// Not part of the engine's API (model.h is).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/model.h"
#include "calc/result.h"
#include "calc/units.h"

namespace ridge::calc::reader {

using nlohmann::json;

// A value for an error message: at most 80 characters, never throwing on bad UTF-8.
inline std::string quote(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() <= 80 ? text : text.substr(0, 77) + "...";
}

inline std::string n(int64_t v) { return group_thousands(static_cast<long double>(v)); }
inline double d(int64_t v) { return static_cast<double>(v); }
inline std::string str(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }
inline const json* list_key(const json& cfg, const char* key) {
  auto it = cfg.find(key);
  return it != cfg.end() && it->is_array() ? &*it : nullptr;
}

class ConfigReader {
 public:
  ConfigReader(const json& j, Errors& errors) : j_(j), errors_(errors) {}

  // First present key among `keys`; `fallback` when none is present and not required.
  // Every size in a real config.json is far below 2^24 (16,777,216): the cap keeps every
  // product the engine forms (layers x hidden x width x experts) inside int64 and every
  // per-layer loop short.
  static constexpr int64_t kMax = int64_t{1} << 24;

  int64_t integer(std::initializer_list<const char*> keys, bool required, int64_t fallback = 0) {
    for (const char* key : keys) {
      auto it = j_.find(key);
      if (it == j_.end() || it->is_null()) continue;
      if (it->is_number_unsigned() || it->is_number_integer()) {
        bool negative = it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() < 0;
        uint64_t u = negative ? 0 : it->get<uint64_t>();
        if (negative || u > static_cast<uint64_t>(kMax)) {
          errors_.push_back({std::string("config.json:") + key, quote(*it), "is out of range",
                             "an integer from 0 to 16,777,216 (2^24)"});
          return fallback;
        }
        return static_cast<int64_t>(u);
      }
      if (it->is_number_float()) {
        double d = it->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && d >= 0 && d <= static_cast<double>(kMax)) {
          return static_cast<int64_t>(d);
        }
      }
      errors_.push_back({std::string("config.json:") + key, quote(*it), "must be a whole number",
                         "an integer from 0 to 16,777,216 (2^24)"});
      return fallback;
    }
    if (required) {
      std::string names;
      for (const char* key : keys) names += (names.empty() ? "" : " or ") + std::string(key);
      errors_.push_back({"config.json:" + std::string(*keys.begin()), "",
                         "is missing", "a config.json with " + names});
    }
    return fallback;
  }

  bool boolean(const char* key, bool fallback, bool* present = nullptr) {
    auto it = j_.find(key);
    if (present) *present = it != j_.end() && it->is_boolean();
    if (it == j_.end() || !it->is_boolean()) return fallback;
    return it->get<bool>();
  }

  std::string text(const char* key) {
    auto it = j_.find(key);
    return it != j_.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

  const json* find(const char* key) {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }

 private:
  const json& j_;
  Errors& errors_;
};

// ---- Token mixers and MLPs (model_mixers.cc) -------------------------------------------------

struct AttentionShape {
  int64_t heads = 0, kv_heads = 0, head_dim = 0;
  bool qkv_bias = false, o_bias = false;
  double qk_norm = 0;        // parameters of the q/k norms (per head_dim, or over the whole width)
  bool sinks = false;        // gpt-oss: one learned sink logit per head
  bool output_gate = false;  // Qwen3-Next: q_proj also yields a sigmoid gate of the output
  int64_t v_head_dim = 0;    // when V is narrower than Q and K (MiMo-V2); 0: head_dim
};

// Softmax attention (MHA, GQA, MQA): q, k, v, o projections; K and V cached per token.
Mixer attention_mixer(int64_t h, const AttentionShape& a, CacheBound bound, int64_t span);

struct LatentShape {
  int64_t heads = 0, q_lora_rank = 0, kv_lora_rank = 0, rope = 0, nope = 0, v = 0;
  int64_t index_heads = 0, index_head_dim = 0, index_topk = 0;  // DeepSeek V3.2 sparse attention
};

// Multi-head latent attention (DeepSeek), with DeepSeek V3.2's indexer when index_heads > 0.
Mixer latent_mixer(int64_t h, const LatentShape& s);
// Gated DeltaNet (Qwen3-Next): key heads × dim, value heads × dim, conv kernel.
Mixer gated_deltanet_mixer(int64_t h, int64_t nk, int64_t dk, int64_t nv, int64_t dv, int64_t kernel);
// Kimi Delta Attention (Kimi Linear).
Mixer kimi_delta_mixer(int64_t h, int64_t heads, int64_t dim, int64_t kernel);
// Lightning attention (MiniMax-M1).
Mixer lightning_mixer(int64_t h, int64_t heads, int64_t dim);

struct Mamba2Shape {
  int64_t heads = 0, head_dim = 0, state = 0, groups = 1, kernel = 4;
  bool conv_bias = true, proj_bias = false, gated_norm = true;
};

// Mamba-2 (Nemotron-H, Falcon-H1).
Mixer mamba2_mixer(int64_t h, const Mamba2Shape& s);
// Mamba-1 as in Jamba.
Mixer mamba1_mixer(int64_t h, int64_t inner, int64_t state, int64_t kernel, int64_t dt_rank, bool conv_bias,
                   bool proj_bias);

// Weights of one MLP of `width`: 3·h·width gated (gate, up, down), 2·h·width plain, plus biases.
double mlp_weights(int64_t h, int64_t width, bool gated, bool bias);
Mlp dense_mlp(int64_t h, int64_t width, bool gated, bool bias);
struct MoeShape {
  int64_t experts = 0, per_token = 0, width = 0, shared_width = 0;
  bool gated = true, bias = false, router_bias = false, shared_gate = false;
};
Mlp moe_mlp(int64_t h, const MoeShape& s);

// ---- Which layer is which (model_layers.cc) --------------------------------------------------

struct LayerPlan {
  int64_t layers = 0;
  std::vector<std::vector<Mixer>> mixer_kinds;
  std::vector<Mlp> mlp_kinds;
  std::vector<int> mixer_list;  // one entry per layer when the config lists them
  std::vector<int> mlp_list;
  std::function<int(int64_t)> mixer_rule = [](int64_t) { return 0; };
  int64_t mixer_period = 1;
  std::function<int(int64_t)> mlp_rule = [](int64_t) { return 0; };
  int64_t mlp_period = 1;
  std::vector<int64_t> breaks;
  std::set<int64_t> dense_override;  // mlp_only_layers: these MoE layers use mlp kind dense_kind
  int dense_kind = -1;
  double mixer_norms = 1, mlp_norms = 1;  // RMSNorm/LayerNorm weights of width hidden per block
  double norm_width = 0;
};

// Patterns longer than this that the layer count does not bound are refused.
inline constexpr int64_t kMaxPeriod = 4096;

// The plan counted into runs of identical layers, in order of first appearance.
Result<std::vector<LayerRun>> count_layers(const LayerPlan& p);

// Adds an error for every key of cfg that shapes layers (*_attention, *linear*, mamba*, ssm*,
// *chunk*, ...), is active and is not in `modelled`.
void refuse_unmodelled_keys(const json& cfg, const std::set<std::string_view>& modelled, const std::string& family,
                            Errors& errors);

// Llama-like families (and every older reader): one attention shape, full / window / chunked
// bounds per layer, dense or MoE MLPs.
struct Common {
  bool from_one = false;  // MoE layer index counted from one (Qwen, Llama 4)
  int64_t first_dense = 0, freq = 1;
};

// The MoE rule shared by the families: layer l is sparse when l ≥ first_k_dense_replace and
// (l + offset) is a multiple of the frequency.
void moe_rule(LayerPlan& plan, const Common& c, int moe_kind, int dense_kind);
// mlp_only_layers: each listed sparse layer becomes dense once.
void read_mlp_only(ConfigReader& r, LayerPlan& plan, Errors& errors);
// A per-layer list of strings or integers, checked for length; `kind_of` maps an entry to a
// mixer kind or -1 (refused, naming the entry).
bool read_layer_list(const json& list, const char* key, int64_t layers, const std::function<int(const json&)>& kind_of,
                     const std::string& accepted, std::vector<int>& out, Errors& errors);

// quantization_config into m.shipped_quantization, m.shipped and m.shipped_errors
// (model_quantization.cc).
void read_quantization(const json& root, const json& cfg, ModelArch& m);

// ---- The hybrid families' readers (model_hybrid_readers.cc) ----------------------------------

// What parse_model_config has read so far, for a family reader to fill the plan from: each
// reader sets plan's mixer and MLP kinds and its per-layer list or rule, adds the keys it models
// to `modelled`, and returns the errors that stop the parse (others go to `errors`).
struct FamilyReader {
  ConfigReader& r;
  const json* cfg;
  ModelArch& m;
  LayerPlan& plan;
  AttentionShape& shape;
  MoeShape& moe_shape;
  Common& common;
  std::set<std::string_view>& modelled;
  Errors& errors;
  int64_t h;                            // hidden size
  std::function<void()> standard_mlps;  // the dense MLP and, with experts, the MoE by the MoE rule

  Errors qwen_next();    // Qwen3-Next, Qwen3.5 / 3.6: Gated DeltaNet + gated full attention
  Errors kimi_linear();  // Kimi Linear: Kimi Delta Attention + latent attention
  Errors minimax();      // MiniMax-M1 / Text-01: Lightning + softmax attention
  Errors nemotron_h();   // Nemotron-H / Nemotron 3: Mamba-2, attention, MLP, MoE blocks
  Errors falcon_h1();    // Falcon-H1: attention and Mamba-2 in parallel
  Errors mimo_v2();      // MiMo-V2: sliding-window and full attention with their own heads
  Errors jamba();        // Jamba: Mamba-1 and attention, MoE every other layer
};

}  // namespace ridge::calc::reader
