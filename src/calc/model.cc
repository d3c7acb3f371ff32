#include "calc/model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <nlohmann/json.hpp>

#include "calc/units.h"

namespace ridge::calc {
namespace {

using nlohmann::json;

// A value for an error message: at most 80 characters, never throwing on bad UTF-8.
std::string quote(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() <= 80 ? text : text.substr(0, 77) + "...";
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

std::string n(int64_t v) { return group_thousands(static_cast<long double>(v)); }

}  // namespace

namespace {
std::string python_literals_as_null(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      out += c;
      continue;
    }
    if (c == '"') in_string = true;
    auto word = [&](std::string_view w) { return text.substr(i, w.size()) == w; };
    if (word("-Infinity")) {
      out += "null";
      i += 8;
    } else if (word("Infinity")) {
      out += "null";
      i += 7;
    } else if (word("NaN")) {
      out += "null";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

int json_nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}


namespace {

double d(int64_t v) { return static_cast<double>(v); }

// ---------------------------------------------------------------------------------------------
// Token mixers. Each constructor sizes one layer's weights, the cache it keeps per token and its
// fixed state per sequence, from the modelling code cited.

struct AttentionShape {
  int64_t heads = 0, kv_heads = 0, head_dim = 0;
  bool qkv_bias = false, o_bias = false;
  double qk_norm = 0;        // parameters of the q/k norms (per head_dim, or over the whole width)
  bool sinks = false;        // gpt-oss: one learned sink logit per head
  bool output_gate = false;  // Qwen3-Next: q_proj also yields a sigmoid gate of the output
  int64_t v_head_dim = 0;    // when V is narrower than Q and K (MiMo-V2); 0: head_dim
};

// Softmax attention (MHA, GQA, MQA): q, k, v, o projections; K and V cached per token.
Mixer attention_mixer(int64_t h, const AttentionShape& a, CacheBound bound, int64_t span) {
  Mixer x;
  x.kind = MixerKind::kAttention;
  x.bound = bound;
  x.span = bound == CacheBound::kFull ? 0 : span;
  x.name = bound == CacheBound::kFull ? "full-attention" : bound == CacheBound::kWindow ? "sliding-window" : "chunked-attention";
  x.heads = a.heads;
  x.kv_heads = a.kv_heads;
  const int64_t vd = a.v_head_dim > 0 ? a.v_head_dim : a.head_dim;
  x.qk_dim = a.head_dim;
  x.v_dim = vd;
  const double q = d(a.heads * a.head_dim), kv = d(a.kv_heads * a.head_dim), v = d(a.kv_heads * vd), hd = d(h);
  x.params = hd * q * (a.output_gate ? 2 : 1) + hd * (kv + v) + d(a.heads * vd) * hd;
  if (a.qkv_bias) x.params += q + kv + v;
  if (a.o_bias) x.params += hd;
  x.params += a.qk_norm;
  if (a.sinks) x.params += d(a.heads);
  x.kv_per_token = d(a.kv_heads) * d(a.head_dim + vd);
  x.kv_text = vd == a.head_dim ? "2 × " + n(a.kv_heads) + " × " + n(a.head_dim)
                               : n(a.kv_heads) + " × (" + n(a.head_dim) + " + " + n(vd) + ")";
  return x;
}

struct LatentShape {
  int64_t heads = 0, q_lora_rank = 0, kv_lora_rank = 0, rope = 0, nope = 0, v = 0;
  int64_t index_heads = 0, index_head_dim = 0, index_topk = 0;  // DeepSeek V3.2 sparse attention
};

// Multi-head latent attention (DeepSeek-V2/V3 modeling_deepseek.py): the cache holds the
// compressed kv_lora_rank vector and the shared rope key per token, whatever the head count.
// DeepSeek V3.2 adds a lightning indexer (inference/model.py, class Indexer): wq_b (q_lora_rank
// → index heads × dim), wk (hidden → dim), a LayerNorm on k, weights_proj (hidden → index heads),
// and a key cache of index_head_dim per token.
Mixer latent_mixer(int64_t h, const LatentShape& s) {
  Mixer x;
  x.kind = MixerKind::kLatentAttention;
  x.name = s.index_heads > 0 ? "latent-attention (sparse, top-" + n(s.index_topk) + ")" : "latent-attention";
  x.heads = x.kv_heads = s.heads;
  x.qk_dim = s.nope + s.rope;
  x.v_dim = s.v;
  x.sparse_topk = s.index_topk;
  const double hd = d(h), nh = d(s.heads), qk = d(s.nope + s.rope);
  double p = 0;
  if (s.q_lora_rank > 0) {
    p += hd * d(s.q_lora_rank) + d(s.q_lora_rank) + d(s.q_lora_rank) * nh * qk;
  } else {
    p += hd * nh * qk;
  }
  p += hd * d(s.kv_lora_rank + s.rope);                 // kv_a_proj_with_mqa
  p += d(s.kv_lora_rank);                               // kv_a_layernorm
  p += d(s.kv_lora_rank) * nh * d(s.nope + s.v);        // kv_b_proj
  p += nh * d(s.v) * hd;                                // o_proj
  x.kv_per_token = d(s.kv_lora_rank + s.rope);
  x.kv_text = "(" + n(s.kv_lora_rank) + " + " + n(s.rope);
  if (s.index_heads > 0) {
    const double ih = d(s.index_heads), id = d(s.index_head_dim);
    p += d(s.q_lora_rank) * ih * id + hd * id + 2 * id + hd * ih;
    x.kv_per_token += id;
    x.kv_text += " + " + n(s.index_head_dim) + " indexer key";
  }
  x.kv_text += ")";
  x.params = p;
  return x;
}

// Gated DeltaNet as in Qwen3-Next (transformers models/qwen3_next/modeling_qwen3_next.py,
// Qwen3NextGatedDeltaNet): in_proj_qkvz (hidden → 2·key_dim + 2·value_dim), in_proj_ba
// (hidden → 2·value heads), a depthwise conv over q, k, v (no bias), dt_bias and A_log per value
// head, a gated RMSNorm of the value head width, out_proj. State (vLLM mamba_utils.py,
// gated_delta_net_state_shape): value heads × key dim × value dim, plus the conv's last
// (kernel − 1) inputs of 2·key_dim + value_dim channels.
Mixer gated_deltanet_mixer(int64_t h, int64_t nk, int64_t dk, int64_t nv, int64_t dv, int64_t kernel) {
  Mixer x;
  x.kind = MixerKind::kLinearAttention;
  x.name = "Gated DeltaNet";
  x.heads = nv;
  x.qk_dim = dk;
  x.v_dim = dv;
  const double key_dim = d(nk * dk), value_dim = d(nv * dv), conv_dim = 2 * key_dim + value_dim, hd = d(h);
  x.params = hd * (2 * key_dim + 2 * value_dim) + hd * 2 * d(nv) + conv_dim * d(kernel) + 2 * d(nv) + d(dv) +
             value_dim * hd;
  x.conv_state = conv_dim * d(kernel - 1);
  x.state = d(nv) * d(dk) * d(dv) + x.conv_state;
  x.ssm_text = n(nv) + " × " + n(dk) + " × " + n(dv);
  x.conv_text = n(static_cast<int64_t>(conv_dim)) + " × " + n(kernel - 1);
  x.state_text = x.ssm_text + " + " + x.conv_text;
  return x;
}

// Kimi Delta Attention (moonshotai/Kimi-Linear modeling_kimi.py, KimiDeltaAttention): q, k, v
// projections of heads × dim, a short conv on each (no bias), low-rank forget gate (f_a, f_b)
// and output gate (g_a, g_b) of rank `dim`, b_proj (one beta per head), A_log per head, dt_bias
// per channel, o_norm of the head width, o_proj. State (vLLM kda_state_shape): heads × dim ×
// dim, plus three convs' (kernel − 1) inputs of heads × dim.
Mixer kimi_delta_mixer(int64_t h, int64_t heads, int64_t dim, int64_t kernel) {
  Mixer x;
  x.kind = MixerKind::kLinearAttention;
  x.name = "Kimi Delta Attention";
  x.heads = heads;
  x.qk_dim = x.v_dim = dim;
  const double p = d(heads * dim), hd = d(h), r = d(dim);
  x.params = 3 * hd * p + 3 * p * d(kernel) + 2 * (hd * r + r * p) + hd * d(heads) + d(heads) + p + r + p * hd;
  x.conv_state = 3 * p * d(kernel - 1);
  x.state = d(heads) * r * r + x.conv_state;
  x.ssm_text = n(heads) + " × " + n(dim) + " × " + n(dim);
  x.conv_text = "3 × " + n(heads * dim) + " × " + n(kernel - 1);
  x.state_text = x.ssm_text + " + " + x.conv_text;
  return x;
}

// Lightning attention (MiniMax-M1 modeling_minimax_m1.py, MiniMaxM1LightningAttention): a fused
// qkv_proj, a sigmoid output gate, an RMSNorm of heads × dim, out_proj; no biases. State (vLLM
// linear_attention_state_shape): heads × dim × dim.
Mixer lightning_mixer(int64_t h, int64_t heads, int64_t dim) {
  Mixer x;
  x.kind = MixerKind::kLinearAttention;
  x.name = "Lightning attention";
  x.heads = heads;
  x.qk_dim = x.v_dim = dim;
  const double w = d(heads * dim), hd = d(h);
  x.params = 3 * hd * w + hd * w + w + w * hd;
  x.state = d(heads) * d(dim) * d(dim);
  x.ssm_text = x.state_text = n(heads) + " × " + n(dim) + " × " + n(dim);
  return x;
}

struct Mamba2Shape {
  int64_t heads = 0, head_dim = 0, state = 0, groups = 1, kernel = 4;
  bool conv_bias = true, proj_bias = false, gated_norm = true;
};

// Mamba-2 (transformers models/mamba2/modeling_mamba2.py, Mamba2Mixer; NemotronHMamba2Mixer and
// FalconH1Mixer alike): in_proj (hidden → 2·d_inner + 2·groups·state + heads), a depthwise conv
// over d_inner + 2·groups·state channels, dt_bias, A_log and D per head, a gated RMSNorm of
// d_inner, out_proj. State (vLLM mamba2_state_shape): heads × head_dim × state, plus the conv's
// (kernel − 1) inputs.
Mixer mamba2_mixer(int64_t h, const Mamba2Shape& s) {
  Mixer x;
  x.kind = MixerKind::kStateSpace;
  x.name = "Mamba-2";
  x.heads = s.heads;
  x.qk_dim = s.state;
  x.v_dim = s.head_dim;
  const double inner = d(s.heads * s.head_dim), conv_dim = inner + 2 * d(s.groups * s.state), hd = d(h);
  double p = hd * (inner + conv_dim + d(s.heads)) + conv_dim * d(s.kernel) + 3 * d(s.heads) + inner * hd;
  if (s.conv_bias) p += conv_dim;
  if (s.proj_bias) p += inner + conv_dim + d(s.heads) + hd;
  if (s.gated_norm) p += inner;
  x.params = p;
  x.conv_state = conv_dim * d(s.kernel - 1);
  x.state = inner * d(s.state) + x.conv_state;
  x.ssm_text = n(s.heads) + " × " + n(s.head_dim) + " × " + n(s.state);
  x.conv_text = n(static_cast<int64_t>(conv_dim)) + " × " + n(s.kernel - 1);
  x.state_text = x.ssm_text + " + " + x.conv_text;
  return x;
}

// Mamba-1 as in Jamba (transformers models/jamba/modeling_jamba.py, JambaMambaMixer): in_proj
// (hidden → 2·d_inner), a depthwise conv, x_proj (d_inner → dt_rank + 2·state), dt_proj with
// bias, A_log (d_inner × state), D, out_proj, and Jamba's RMSNorms on dt, B and C. State:
// d_inner × state plus the conv's (kernel − 1) inputs.
Mixer mamba1_mixer(int64_t h, int64_t inner, int64_t state, int64_t kernel, int64_t dt_rank, bool conv_bias,
                   bool proj_bias) {
  Mixer x;
  x.kind = MixerKind::kStateSpace;
  x.name = "Mamba";
  x.heads = 1;
  x.qk_dim = state;
  x.v_dim = inner;
  const double di = d(inner), hd = d(h);
  double p = hd * 2 * di + di * d(kernel) + di * d(dt_rank + 2 * state) + d(dt_rank) * di + di + di * d(state) + di +
             di * hd + d(dt_rank) + 2 * d(state);
  if (conv_bias) p += di;
  if (proj_bias) p += 2 * di + hd;
  x.params = p;
  x.conv_state = di * d(kernel - 1);
  x.state = di * d(state) + x.conv_state;
  x.ssm_text = n(inner) + " × " + n(state);
  x.conv_text = n(inner) + " × " + n(kernel - 1);
  x.state_text = x.ssm_text + " + " + x.conv_text;
  return x;
}

// ---------------------------------------------------------------------------------------------
// MLPs.

double mlp_weights(int64_t h, int64_t width, bool gated, bool bias) {
  double w = (gated ? 3 : 2) * d(h) * d(width);
  if (bias) w += (gated ? 2 : 1) * d(width) + d(h);
  return w;
}

Mlp dense_mlp(int64_t h, int64_t width, bool gated, bool bias) {
  Mlp m;
  m.kind = MlpKind::kDense;
  m.width = width;
  m.params = mlp_weights(h, width, gated, bias);
  return m;
}

struct MoeShape {
  int64_t experts = 0, per_token = 0, width = 0, shared_width = 0;
  bool gated = true, bias = false, router_bias = false, shared_gate = false;
};

Mlp moe_mlp(int64_t h, const MoeShape& s) {
  Mlp m;
  m.kind = MlpKind::kMoe;
  m.experts = s.experts;
  m.experts_per_token = s.per_token;
  m.expert_width = s.width;
  m.shared_width = s.shared_width;
  m.expert_params = mlp_weights(h, s.width, s.gated, s.bias);
  m.params = (s.shared_width > 0 ? mlp_weights(h, s.shared_width, s.gated, s.bias) : 0) + d(h) * d(s.experts) +
             (s.router_bias ? d(s.experts) : 0) + (s.shared_gate ? d(h) : 0);
  return m;
}

// ---------------------------------------------------------------------------------------------
// Which layer is which. A layer's kind is (mixer kind, MLP kind); the plan says it per layer from
// an explicit list (bounded by the config's own list) or from periodic rules that hold between
// breakpoints (first_k_dense_replace, max_window_layers). Counting is per residue of the period,
// never per layer of a count the config sets.

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

constexpr int64_t kMaxPeriod = 4096;

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

// ---------------------------------------------------------------------------------------------
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

// The vocabulary a family's configuration class assumes when config.json leaves it out.
int64_t default_vocab(const std::string& type) {
  static const std::map<std::string, int64_t, std::less<>> kVocab = {
      {"llama", 32000},      {"mistral", 32000},     {"mixtral", 32000},      {"qwen2", 151936},
      {"qwen2_moe", 151936}, {"qwen3", 151936},      {"qwen3_moe", 151936},   {"qwen3_next", 151936},
      {"deepseek_v3", 129280}, {"deepseek_v32", 129280}, {"kimi_k2", 163840}, {"kimi_linear", 163840},
      {"gemma3_text", 262208}, {"gemma3", 262208},   {"llama4_text", 202048}, {"llama4", 202048},
      {"glm4_moe", 151552},  {"gpt_oss", 201088},    {"phi3", 32064},         {"olmo2", 50304},
      {"olmo3", 50304},      {"minimax", 200064},    {"minimax_m1", 200064},  {"minimax_m2", 200064},
      {"nemotron_h", 131072}, {"falcon_h1", 128000}, {"jamba", 65536},        {"gpt2", 50257},
      {"gemma4_text", 262144}, {"gemma4", 262144}, {"glm_moe_dsa", 154880}, {"qwen3_5_text", 248320},
      {"qwen3_5_moe_text", 248320}, {"mimo_v2", 152576}};
  auto it = kVocab.find(type);
  return it == kVocab.end() ? 0 : it->second;
}

// Families ridge reads. Anything else is read with the Llama defaults, and says so.
bool known_family(const std::string& type) {
  static const std::set<std::string, std::less<>> kKnown = {
      "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen3_next", "deepseek_v2",
      "deepseek_v3", "deepseek_v32", "kimi_k2", "kimi_linear", "gemma", "gemma2", "gemma3", "gemma3_text",
      "llama4", "llama4_text", "glm4", "glm4_moe", "gpt_oss", "phi3", "olmo2", "olmo3", "minimax", "minimax_m1",
      "minimax_text_01", "minimax_m2", "nemotron_h", "falcon_h1", "jamba", "gpt2", "mistral3", "llava", "glm_moe_dsa",
      "gemma4", "gemma4_text", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "mimo_v2"};
  return kKnown.count(type) > 0;
}

const json* list_key(const json& cfg, const char* key) {
  auto it = cfg.find(key);
  return it != cfg.end() && it->is_array() ? &*it : nullptr;
}

// quantization_config: how the checkpoint ships its weights (transformers quantizers). Sets
// m.shipped_quantization (the name), m.shipped (the format) or m.shipped_errors.
void read_quantization(const json& root, const json& cfg, ModelArch& m) {
  const json* q = nullptr;
  for (const json* j : {&cfg, &root}) {
    auto it = j->find("quantization_config");
    if (it != j->end() && it->is_object()) q = &*it;
  }
  if (q == nullptr) return;
  auto text = [&](const char* k) {
    auto it = q->find(k);
    return it != q->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string method = text("quant_method");
  if (method.empty()) return;
  Errors errors;
  ConfigReader r(*q, errors);
  WeightFormat& f = m.shipped;
  if (method == "fp8") {
    // transformers integrations/finegrained_fp8.py (DeepSeek-V3's layout): e4m3 weights and one
    // fp32 weight_scale_inv per weight_block_size block; without a block size, one scale per tensor.
    m.shipped_quantization = "fp8";
    f = {"fp8", 1, 0, false, "fp8 (e4m3), one scale per tensor", "0"};
    const json* block = r.find("weight_block_size");
    if (block != nullptr && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer() &&
        (*block)[1].is_number_integer() && (*block)[0].get<int64_t>() > 0 && (*block)[1].get<int64_t>() > 0 &&
        (*block)[0].get<int64_t>() <= 65536 && (*block)[1].get<int64_t>() <= 65536) {
      const int64_t a = (*block)[0].get<int64_t>(), b = (*block)[1].get<int64_t>();
      f.scale_bytes = 4.0 / (d(a) * d(b));
      f.text = "fp8 (e4m3), one fp32 scale per " + n(a) + " × " + n(b) + " block";
      f.scale_text = "4 B ÷ (" + n(a) + " × " + n(b) + ")";
    } else if (block != nullptr) {
      m.shipped_errors.push_back({"config.json:quantization_config.weight_block_size", quote(*block),
                                  "is not a block shape", "two positive integers, as [128, 128]"});
    }
  } else if (method == "mxfp4") {
    // OCP Microscaling MXFP4 (transformers integrations/mxfp4.py, gpt-oss): 4-bit E2M1 values
    // and one 8-bit E8M0 scale per 32; gpt-oss quantizes only the experts (modules_to_not_convert:
    // attention, router, embedding, head).
    m.shipped_quantization = "mxfp4 (the experts; attention, router, embedding and head in bf16)";
    f = {"mxfp4", 0.5, 1.0 / 32, true, "mxfp4 on the routed experts (4-bit values, one 1-byte scale per 32); "
         "attention, router, embedding and head in bf16", "1 B ÷ 32"};
  } else if (method == "gptq" || method == "awq") {
    // GPTQ (AutoGPTQ / gptqmodel) and AWQ (AutoAWQ) pack `bits`-bit weights with, per group of
    // group_size input weights of each output column, an fp16 scale and a bits-wide zero point
    // (qzeros); the embedding and head stay in 16 bits. group_size -1: one group per column
    // (counted over hidden_size).
    const int64_t bits = r.integer({"bits", "w_bit"}, false, 4);
    const int64_t group_raw = [&]() -> int64_t {
      for (const char* key : {"group_size", "q_group_size"}) {
        auto it = q->find(key);
        if (it != q->end() && it->is_number_integer() && it->get<int64_t>() == -1) return -1;
      }
      return r.integer({"group_size", "q_group_size"}, false, 128);
    }();
    if (bits != 2 && bits != 3 && bits != 4 && bits != 8) {
      m.shipped_errors.push_back({"config.json:quantization_config.bits", n(bits), "is not a bit width ridge sizes",
                                  "2, 3, 4 or 8"});
    }
    const int64_t group = group_raw == -1 ? m.hidden : group_raw;
    if (group <= 0) {
      m.shipped_errors.push_back({"config.json:quantization_config.group_size", n(group_raw),
                                  "is not a group size", "a positive group size (128) or -1 (one per column)"});
    }
    if (!errors.empty() || !m.shipped_errors.empty()) {
      for (auto& e : errors) m.shipped_errors.push_back(e);
      f = {};
      return;
    }
    const double bytes = d(bits) / 8;
    m.shipped_quantization = "int" + std::to_string(bits) + " " + method;
    f = {method, bytes, (2 + bytes) / d(group), false,
         "int" + std::to_string(bits) + " " + method + ", an fp16 scale and an int" + std::to_string(bits) +
             " zero point per group of " + (group_raw == -1 ? "a whole column (" + n(group) + ")" : n(group)) +
             "; embedding, head, norms and routers in bf16",
         "(2 + " + format_significant(bytes, 3) + ") B ÷ " + n(group)};
  } else {
    m.shipped_quantization = method;
    m.shipped_errors.push_back({"config.json:quantization_config.quant_method", method,
                                "is a checkpoint format ridge does not size",
                                "fp8 (block or per-tensor scales), mxfp4, gptq, awq; or --weights-dtype to size every "
                                "weight at one dtype"});
    f = {};
    return;
  }
  for (const char* key : {"modules_to_not_convert", "ignored_layers"}) {
    const json* kept = r.find(key);
    if (kept != nullptr && kept->is_array() && !kept->empty()) {
      m.notes.push_back("quantization_config." + std::string(key) + " lists " +
                        count_of(static_cast<long double>(kept->size()), "module") +
                        " kept unquantized; ridge keeps the embedding, head, norms and routers" +
                        (f.experts_only ? " and everything but the routed experts" : "") +
                        " unquantized and sizes the rest as quantized");
    }
  }
}

}  // namespace

std::string LayerRun::describe() const {
  std::string text;
  for (const auto& x : mixers) {
    text += (text.empty() ? "" : " ∥ ") + x.name;
    if (x.bound != CacheBound::kFull) text += " (" + n(x.span) + ")";
  }
  if (mixers.empty()) text = mlp.kind == MlpKind::kMoe ? "MoE-only" : "MLP-only";
  if (mlp.kind == MlpKind::kMoe) {
    text += std::string(mixers.empty() ? "" : " + MoE") + " (" + count_of(static_cast<long double>(mlp.experts), "expert") + ", " + n(mlp.experts_per_token) + " per token" +
            (mlp.shared_width > 0 ? ", shared width " + n(mlp.shared_width) : "") + ")";
  } else if (mlp.kind == MlpKind::kDense && !mixers.empty()) {
    text += " + dense MLP (" + n(mlp.width) + ")";
  } else if (mlp.kind == MlpKind::kDense) {
    text += " (" + n(mlp.width) + ")";
  }
  return text;
}

namespace {

// Llama-like families (and every older reader): one attention shape, full / window / chunked
// bounds per layer, dense or MoE MLPs.
struct Common {
  bool from_one = false;  // MoE layer index counted from one (Qwen, Llama 4)
  int64_t first_dense = 0, freq = 1;
};

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

std::string str(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

}  // namespace

Result<ModelArch> parse_model_config(std::string_view json_text, std::string_view id) {
  std::string name = std::string(id).substr(0, 80);
  if (json_text.size() > kMaxConfigBytes) {
    return FieldError{"config", name, "is " + group_thousands(static_cast<long double>(json_text.size())) +
                                          " bytes; a config.json is at most 4 MiB (real ones are a few kB)", "a config.json under 4 MiB"};
  }
  auto starts = [&](std::string_view bom) { return json_text.substr(0, bom.size()) == bom; };
  if (starts("\xFF\xFE") || starts("\xFE\xFF")) {
    return FieldError{"config", name, "is UTF-16 encoded", "a config.json saved as UTF-8"};
  }
  if (starts("\xEF\xBB\xBF")) json_text.remove_prefix(3);  // a UTF-8 byte-order mark
  if (int depth = json_nesting_depth(json_text); depth > 32) {
    return FieldError{"config", name, "nests arrays or objects " + std::to_string(depth) + " deep",
                      "a config.json nested at most 32 deep"};
  }
  // Python's json module writes Infinity and NaN (Nemotron-H's time_step_limit [0.0, Infinity]);
  // they are not JSON, and no size ridge reads can be one: read them as null.
  const bool python_literals =
      json_text.find("Infinity") != std::string_view::npos || json_text.find("NaN") != std::string_view::npos;
  json root;
  try {
    root = python_literals ? json::parse(python_literals_as_null(json_text)) : json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e400
    std::string why = e.what();
    if (size_t p = why.find("parse error"); p != std::string::npos) why = why.substr(p);
    return FieldError{"config", name, "is not valid JSON (" + why.substr(0, 160) + ")", "a model's config.json"};
  }
  if (!root.is_object()) {
    return FieldError{"config", name, "is JSON but not an object (a model's config.json is {...})", ""};
  }
  const json* cfg = &root;
  ModelArch m;
  m.id = std::string(id);
  if (!root.contains("hidden_size") && root.contains("text_config") &&
      root["text_config"].is_object()) {
    cfg = &root["text_config"];
    m.notes.push_back("read text_config: the language model only, no vision tower");
  }
  Errors errors;
  ConfigReader r(*cfg, errors);
  ConfigReader top(root, errors);
  m.model_type = r.text("model_type");
  if (m.model_type.empty()) m.model_type = top.text("model_type");
  const std::string& type = m.model_type;
  m.family = type;
  if (!known_family(type)) {
    m.notes.push_back("model_type '" + type + "' is not a family ridge reads: read with the Llama defaults (gated "
                      "SiLU MLP, no biases, RMSNorm before attention and MLP, every layer the same unless the config "
                      "lists layer_types)");
    m.family = "llama";
  }
  const bool gemma4 = type == "gemma4" || type == "gemma4_text";
  const bool gemma = type == "gemma2" || type == "gemma3" || type == "gemma3_text" || gemma4;
  const bool dsa = type == "deepseek_v32" || type == "glm_moe_dsa";
  // Qwen3.5 / 3.6 keep Qwen3-Next's layers (Gated DeltaNet + gated attention), dense or MoE.
  const bool qwen_next = type == "qwen3_next" || type.rfind("qwen3_5", 0) == 0;
  const bool llama4 = type == "llama4" || type == "llama4_text";
  if (type == "gemma3n" || type == "gemma3n_text") {
    return FieldError{"config.json:model_type", type,
                      "is Gemma 3n, whose per-layer embeddings, AltUp, LAuReL and shared KV layers ridge does not model",
                      "Gemma 3 (gemma3, gemma3_text) and the other families ridge reads"};
  }

  m.hidden = r.integer({"hidden_size", "d_model", "n_embd"}, true);
  m.layers = r.integer({"num_hidden_layers", "n_layer", "num_layers"}, type != "nemotron_h");
  m.heads = r.integer({"num_attention_heads", "n_head"}, true);
  m.vocab = r.integer({"vocab_size"}, false, 0);
  if (m.vocab == 0 && r.find("vocab_size") == nullptr && default_vocab(type) > 0) {
    m.vocab = default_vocab(type);
    m.notes.push_back("vocab_size absent: " + n(m.vocab) + ", the default of transformers' " + type + " configuration");
  } else if (m.vocab == 0 && r.find("vocab_size") == nullptr) {
    errors.push_back({"config.json:vocab_size", "", "is missing", "a config.json with vocab_size"});
  }
  m.intermediate = r.integer({"intermediate_size_mlp", "intermediate_size", "ffn_dim", "n_inner"},
                             false, 4 * m.hidden);
  m.kv_heads = r.integer({"num_key_value_heads", "n_kv_heads"}, false, m.heads);
  if (r.boolean("multi_query", false)) m.kv_heads = 1;
  // Nemotron-H's layer count is the length of its pattern.
  const json* pattern_text = r.find("hybrid_override_pattern");
  if (type == "nemotron_h" && pattern_text != nullptr && pattern_text->is_string()) {
    const int64_t len = static_cast<int64_t>(pattern_text->get<std::string>().size());
    if (m.layers == 0) m.layers = std::min<int64_t>(len, ConfigReader::kMax);
  }
  if (!errors.empty()) return errors;
  if (m.hidden == 0 || m.layers == 0 || m.heads == 0 || m.vocab == 0 || m.kv_heads == 0) {
    return FieldError{"config", std::string(id),
                      "has a zero hidden_size, num_hidden_layers, num_attention_heads, "
                      "num_key_value_heads or vocab_size",
                      "positive integers"};
  }
  if (m.heads % m.kv_heads != 0) {
    return FieldError{"config.json:num_key_value_heads", std::to_string(m.kv_heads),
                      "does not divide num_attention_heads (" + std::to_string(m.heads) + ")",
                      "a divisor of num_attention_heads"};
  }
  m.kv_lora_rank = r.integer({"kv_lora_rank"}, false, 0);
  // GLM-5's head_dim (64) is not its attention head size; latent attention does not use it.
  m.head_dim = dsa ? 0 : r.integer({"head_dim", "attention_head_dim"}, false, gemma ? 256 : 0);
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0 && m.kv_lora_rank == 0) {
      return FieldError{"config.json:head_dim", "", "is missing and hidden_size / num_attention_heads is not whole",
                        "a config with head_dim"};
    }
    m.head_dim = m.hidden / m.heads;  // latent attention does not use it
  }

  bool tie_present = false;
  m.tied_embeddings = r.boolean("tie_word_embeddings", true, &tie_present);
  if (!tie_present) {
    m.tied_embeddings = top.boolean("tie_word_embeddings", true, &tie_present);
  }
  if (!tie_present) {
    // The configuration classes of the newer families default to an untied head
    // (Llama4Config, Qwen3NextConfig, NemotronHConfig, FalconH1Config, MiniMaxConfig: False).
    static const std::set<std::string, std::less<>> kUntied = {"llama4", "llama4_text", "qwen3_next", "nemotron_h",
                                                                "falcon_h1", "minimax", "minimax_m1", "minimax_m2",
                                                                "kimi_linear"};
    m.tied_embeddings = kUntied.count(type) == 0;
    m.notes.push_back(std::string("tie_word_embeddings absent: ") + (m.tied_embeddings ? "tied" : "untied") +
                      ", the default of transformers' " + (type.empty() ? "base" : type) + " configuration");
  }

  bool bias_present = false;
  bool attention_bias = r.boolean("attention_bias", false, &bias_present);
  if (type == "qwen2" || type == "qwen2_moe") {
    m.qkv_bias = true;  // Qwen2 projects q, k and v with bias, o without.
  } else if (attention_bias) {
    m.qkv_bias = true;
    m.o_bias = type != "glm4_moe" && type != "glm4";
  }
  m.mlp_bias = r.boolean("mlp_bias", false);
  if (type == "gpt2") {
    // GPT-2 / GPT-3 / Megatron GPT: a plain 4h GeLU MLP, biases on every linear layer.
    m.gated_mlp = false;
    m.qkv_bias = m.o_bias = m.mlp_bias = true;
  }
  m.qk_norm = type == "qwen3" || type == "qwen3_moe" || qwen_next || gemma ||
              type == "olmo2" || type == "olmo3" || r.boolean("use_qk_norm", false);
  if (type == "gpt_oss") {
    m.mlp_bias = true;
    m.router_bias = true;
  }
  // Sigmoid routers with a per-expert e_score_correction_bias (the families added with the layer
  // runs; the older DeepSeek-style readers leave it out, 256 weights a layer, to keep their figures).
  if (type == "kimi_linear" || type == "glm_moe_dsa" || type == "minimax_m2" || type == "nemotron_h" || type == "mimo_v2") {
    m.router_bias = true;
  }
  m.max_position_embeddings = r.integer({"max_position_embeddings", "n_positions"}, false, 0);
  m.sliding_window = r.integer({"sliding_window"}, false, gemma ? 4096 : 0);
  if (m.sliding_window > 0 && type != "gpt_oss") {
    // Mistral and Qwen configs carry a window that is disabled (use_sliding_window false).
    bool use_present = false;
    bool use = r.boolean("use_sliding_window", true, &use_present);
    if (use_present && !use) m.sliding_window = 0;
  }
  if (m.sliding_window > 0 && m.max_position_embeddings > 0 && m.sliding_window > m.max_position_embeddings &&
      r.find("layer_types") == nullptr && type != "qwen2" && type != "qwen2_moe") {
    errors.push_back({"config.json:sliding_window", n(m.sliding_window),
                      "is larger than max_position_embeddings (" + n(m.max_position_embeddings) + ")",
                      "a window of at most the context limit"});
  }
  const int64_t chunk = llama4 ? r.integer({"attention_chunk_size"}, false, 0) : 0;

  // Mixture of experts, read for every family that has one.
  m.routed_experts = r.integer({"n_routed_experts", "num_local_experts", "num_experts"}, false, 0);
  Common common;
  if (m.routed_experts > 0) {
    m.experts_per_token =
        r.integer({"num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk", "top_k_experts"},
                  !llama4, 1);
    m.expert_intermediate = r.integer({"moe_intermediate_size"}, false, 0);
    if (m.expert_intermediate == 0) {
      m.expert_intermediate = r.integer({"intermediate_size"}, false, m.intermediate);
    }
    m.shared_experts = r.integer({"n_shared_experts", "num_shared_experts"}, false, 0);
    int64_t shared_width = r.integer({"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                                      "shared_intermediate_size"}, false, 0);
    if (llama4) shared_width = m.expert_intermediate;  // Llama4TextMoe: one shared expert as wide as a routed one
    if (shared_width > 0) {
      m.shared_experts = std::max<int64_t>(m.shared_experts, 1);
      m.shared_expert_intermediate = shared_width;
    } else {
      m.shared_expert_intermediate = m.shared_experts * m.expert_intermediate;
    }
    common.first_dense = r.integer({"first_k_dense_replace"}, false, 0);
    const json* freq_list = r.find("moe_layer_freq");
    common.freq = freq_list != nullptr && freq_list->is_array()
                      ? 1  // MiMo-V2 lists it per layer: read with the layer plan
                      : r.integer({"moe_layer_freq", "decoder_sparse_step", "interleave_moe_layer_step"}, false, 1);
    if (common.freq == 0) common.freq = 1;
    common.from_one = r.find("interleave_moe_layer_step") != nullptr || type == "qwen2_moe" || type == "qwen3_moe" ||
                      qwen_next;
    if (m.experts_per_token == 0 || m.experts_per_token > m.routed_experts) {
      errors.push_back({"config.json:num_experts_per_tok", std::to_string(m.experts_per_token),
                        "must be between 1 and the number of routed experts",
                        "1.." + std::to_string(m.routed_experts)});
    }
  }
  if (m.kv_lora_rank > 0) {
    m.q_lora_rank = r.integer({"q_lora_rank"}, false, 0);
    m.qk_rope_head_dim = r.integer({"qk_rope_head_dim"}, true);
    m.qk_nope_head_dim = r.integer({"qk_nope_head_dim"}, true);
    m.v_head_dim = r.integer({"v_head_dim"}, false, m.qk_nope_head_dim);
  }
  if (!errors.empty()) return errors;

  // ---- The layer plan ----------------------------------------------------------------------
  const int64_t h = m.hidden;
  LayerPlan plan;
  plan.layers = m.layers;
  plan.norm_width = d(h);
  if (gemma) plan.mixer_norms = plan.mlp_norms = 2;  // Gemma 2/3: pre- and post-norm around each block
  std::set<std::string_view> modelled = {"sliding_window", "layer_types", "use_sliding_window"};

  AttentionShape shape{m.heads, m.kv_heads, m.head_dim, m.qkv_bias, m.o_bias, 0, type == "gpt_oss", false};
  if (m.qk_norm) {
    // Per-head norms (Qwen3, Gemma 3, GLM-4.5: head_dim weights each for q and k); OLMo 2/3 and
    // MiniMax-M2 normalize the whole projection (q_norm over heads × head_dim, k_norm over KV
    // heads × head_dim); Llama 4's L2 norm has no weights.
    if (type == "olmo2" || type == "olmo3" || type == "minimax_m2") {
      shape.qk_norm = d(m.heads * m.head_dim + m.kv_heads * m.head_dim);
    } else if (!llama4) {
      shape.qk_norm = 2.0 * d(m.head_dim);
    }
  }
  MoeShape moe_shape{m.routed_experts, m.experts_per_token, m.expert_intermediate, m.shared_expert_intermediate,
                           m.gated_mlp, m.mlp_bias, m.router_bias, type == "qwen2_moe" || qwen_next};

  auto standard_mlps = [&]() {
    plan.mlp_kinds = {dense_mlp(h, m.intermediate, m.gated_mlp, m.mlp_bias)};
    if (m.routed_experts > 0) {
      plan.mlp_kinds.push_back(moe_mlp(h, moe_shape));
      moe_rule(plan, common, 1, 0);
      read_mlp_only(r, plan, errors);
    }
  };

  if (qwen_next) {
    // transformers models/qwen3_next/configuration_qwen3_next.py: linear_* defaults 16 key heads
    // of 128, 32 value heads of 128, conv kernel 4; a full-attention layer every
    // full_attention_interval (4) layers unless layer_types lists them.
    shape.output_gate = true;
    plan.mixer_kinds = {{attention_mixer(h, shape, CacheBound::kFull, 0)},
                        {gated_deltanet_mixer(h, r.integer({"linear_num_key_heads"}, false, 16),
                                              r.integer({"linear_key_head_dim"}, false, 128),
                                              r.integer({"linear_num_value_heads"}, false, 32),
                                              r.integer({"linear_value_head_dim"}, false, 128),
                                              r.integer({"linear_conv_kernel_dim"}, false, 4))}};
    modelled.insert({"linear_num_key_heads", "linear_key_head_dim", "linear_num_value_heads", "linear_value_head_dim",
                     "linear_conv_kernel_dim", "full_attention_interval", "mamba_ssm_dtype"});
    if (r.text("mamba_ssm_dtype") == "float32") {
      m.notes.push_back("mamba_ssm_dtype float32: engines keep the Gated DeltaNet state in fp32, twice the state "
                        "bytes shown at a 2-byte cache dtype");
    }
    if (const json* types = list_key(*cfg, "layer_types")) {
      read_layer_list(*types, "layer_types", m.layers, [](const json& v) {
        return str(v) == "full_attention" ? 0 : str(v) == "linear_attention" ? 1 : -1;
      }, "full_attention, linear_attention", plan.mixer_list, errors);
    } else {
      const int64_t every = std::max<int64_t>(r.integer({"full_attention_interval"}, false, 4), 1);
      plan.mixer_rule = [every](int64_t l) { return (l + 1) % every == 0 ? 0 : 1; };
      plan.mixer_period = every;
    }
    standard_mlps();
  } else if (type == "kimi_linear") {
    // moonshotai/Kimi-Linear configuration_kimi.py: linear_attn_config lists the KDA and the
    // full (MLA) layers, 1-based; MLA as DeepSeek-V3.
    const json* lin = r.find("linear_attn_config");
    if (lin == nullptr || !lin->is_object()) {
      return FieldError{"config.json:linear_attn_config", lin ? quote(*lin) : "", "is missing or not an object",
                        "an object with kda_layers, full_attn_layers, num_heads, head_dim, short_conv_kernel_size"};
    }
    Errors lin_errors;
    ConfigReader lr(*lin, lin_errors);
    const int64_t heads = lr.integer({"num_heads"}, false, m.heads), dim = lr.integer({"head_dim"}, false, 128);
    const int64_t kernel = lr.integer({"short_conv_kernel_size"}, false, 4);
    if (!lin_errors.empty()) return lin_errors;
    plan.mixer_kinds = {{latent_mixer(h, {m.heads, m.q_lora_rank, m.kv_lora_rank, m.qk_rope_head_dim,
                                          m.qk_nope_head_dim, m.v_head_dim})},
                        {kimi_delta_mixer(h, heads, dim, kernel)}};
    // The two lists together name every layer once: check their lengths before allocating one
    // entry per layer, so the work stays bounded by what the config lists.
    size_t listed = 0;
    for (const char* key : {"full_attn_layers", "kda_layers"}) {
      auto it = lin->find(key);
      if (it != lin->end() && it->is_array()) listed += it->size();
    }
    if (static_cast<int64_t>(listed) != m.layers) {
      return FieldError{"config.json:linear_attn_config", std::to_string(listed) + " layers listed",
                        "does not name every layer once in kda_layers and full_attn_layers",
                        n(m.layers) + " layers (num_hidden_layers)"};
    }
    plan.mixer_list.assign(static_cast<size_t>(m.layers), -1);
    for (const auto& [key, kind] : {std::pair<const char*, int>{"full_attn_layers", 0}, {"kda_layers", 1}}) {
      auto it = lin->find(key);
      if (it == lin->end() || !it->is_array() || static_cast<int64_t>(it->size()) > m.layers) {
        return FieldError{std::string("config.json:linear_attn_config.") + key, it == lin->end() ? "" : quote(*it),
                          "is missing or lists more layers than the model has", "1-based layer numbers"};
      }
      for (const auto& v : *it) {
        int64_t l = v.is_number_integer() ? v.get<int64_t>() - 1 : -1;
        if (l < 0 || l >= m.layers || plan.mixer_list[static_cast<size_t>(l)] != -1) {
          return FieldError{std::string("config.json:linear_attn_config.") + key, quote(v),
                            "is not a layer number, or names a layer twice", "1.." + n(m.layers) + ", each layer once"};
        }
        plan.mixer_list[static_cast<size_t>(l)] = kind;
      }
    }
    for (size_t l = 0; l < plan.mixer_list.size(); ++l) {
      if (plan.mixer_list[l] == -1) {
        return FieldError{"config.json:linear_attn_config", "layer " + std::to_string(l + 1),
                          "is in neither kda_layers nor full_attn_layers", "every layer in one of the two lists"};
      }
    }
    modelled.insert({"linear_attn_config", "mla_use_nope"});
    standard_mlps();
  } else if (type == "minimax" || type == "minimax_m1" || type == "minimax_text_01") {
    // MiniMax-M1 (MiniMax-AI/MiniMax-M1 configuration_minimax_m1.py; transformers
    // models/minimax/configuration_minimax.py): attn_type_list 0 = Lightning, 1 = softmax; or
    // layer_types linear_attention / full_attention. Every layer MoE.
    plan.mixer_kinds = {{attention_mixer(h, shape, CacheBound::kFull, 0)}, {lightning_mixer(h, m.heads, m.head_dim)}};
    const json* list = list_key(*cfg, "attn_type_list");
    const char* key = "attn_type_list";
    if (list == nullptr) {
      list = list_key(*cfg, "layer_types");
      key = "layer_types";
    }
    if (list == nullptr) {
      return FieldError{"config.json:attn_type_list", "", "is missing",
                        "attn_type_list (0 = Lightning attention, 1 = softmax) or layer_types for every layer"};
    }
    read_layer_list(*list, key, m.layers, [](const json& v) {
      if (v.is_number_integer()) return v.get<int64_t>() == 1 ? 0 : v.get<int64_t>() == 0 ? 1 : -1;
      return str(v) == "full_attention" ? 0 : str(v) == "linear_attention" ? 1 : -1;
    }, "0 (Lightning) or 1 (softmax); full_attention or linear_attention", plan.mixer_list, errors);
    modelled.insert({"attn_type_list", "layernorm_full_attention_alpha", "layernorm_full_attention_beta",
                     "layernorm_linear_attention_alpha", "layernorm_linear_attention_beta", "block_size"});
    standard_mlps();
  } else if (type == "nemotron_h") {
    // transformers models/nemotron_h/configuration_nemotron_h.py: hybrid_override_pattern, one
    // block per layer: M Mamba-2, * attention, - MLP (squared ReLU, not gated), E MoE. Defaults
    // 128 Mamba heads of 64, state 128, 8 groups, conv 4 with bias, no projection bias.
    if (pattern_text == nullptr || !pattern_text->is_string()) {
      return FieldError{"config.json:hybrid_override_pattern", pattern_text ? quote(*pattern_text) : "", "is missing",
                        "a string of M (Mamba-2), * (attention), - (MLP), E (MoE), one per layer"};
    }
    Mamba2Shape ms;
    ms.heads = r.integer({"mamba_num_heads"}, false, 128);
    ms.head_dim = r.integer({"mamba_head_dim"}, false, 64);
    ms.state = r.integer({"ssm_state_size"}, false, 128);
    ms.groups = r.integer({"n_groups"}, false, 8);
    ms.kernel = r.integer({"conv_kernel"}, false, 4);
    ms.conv_bias = r.boolean("use_conv_bias", true);
    ms.proj_bias = r.boolean("use_bias", false);
    plan.mixer_kinds = {{}, {mamba2_mixer(h, ms)}, {attention_mixer(h, shape, CacheBound::kFull, 0)}};
    plan.mlp_kinds = {Mlp{}, dense_mlp(h, m.intermediate, false, m.mlp_bias)};
    if (m.routed_experts > 0) {
      MoeShape s = moe_shape;
      s.gated = false;
      plan.mlp_kinds.push_back(moe_mlp(h, s));
    }
    const std::string pat = pattern_text->get<std::string>();
    if (static_cast<int64_t>(pat.size()) != m.layers) {
      return FieldError{"config.json:hybrid_override_pattern", std::to_string(pat.size()) + " characters",
                        "does not give one block per layer", n(m.layers) + " characters (num_hidden_layers)"};
    }
    for (size_t i = 0; i < pat.size(); ++i) {
      const char c = pat[i];
      if (c != 'M' && c != '*' && c != '-' && !(c == 'E' && m.routed_experts > 0)) {
        return FieldError{"config.json:hybrid_override_pattern[" + std::to_string(i) + "]", std::string(1, c),
                          "is a block ridge does not model" + std::string(c == 'E' ? " (E without n_routed_experts)" : ""),
                          "M (Mamba-2), * (attention), - (MLP), E (MoE)"};
      }
      plan.mixer_list.push_back(c == 'M' ? 1 : c == '*' ? 2 : 0);
      plan.mlp_list.push_back(c == '-' ? 1 : c == 'E' ? 2 : 0);
    }
    modelled.insert({"hybrid_override_pattern", "mamba_num_heads", "mamba_head_dim", "ssm_state_size", "mamba_hidden_act",
                     "mamba_proj_bias", "mamba_conv_bias", "mamba_chunk_size", "mamba_dt_rank", "chunk_size",
                     "mamba_ssm_cache_dtype"});
    // The config's dtype for the SSM state, as vLLM's NemotronH config hook and TensorRT-LLM's
    // KvCacheConfig.mamba_ssm_cache_dtype honour it; the convolution window stays at the cache dtype.
    if (const std::string ssm_dtype = r.text("mamba_ssm_cache_dtype"); !ssm_dtype.empty() && ssm_dtype != "auto") {
      static const std::map<std::string, double, std::less<>> kSsmBytes = {
          {"float32", 4}, {"float16", 2}, {"bfloat16", 2}};
      auto it = kSsmBytes.find(ssm_dtype);
      if (it == kSsmBytes.end()) {
        return FieldError{"config.json:mamba_ssm_cache_dtype", ssm_dtype, "is not a state dtype ridge sizes",
                          "auto, float32, float16, bfloat16"};
      }
      m.ssm_state_bytes = it->second;
      m.notes.push_back("mamba_ssm_cache_dtype " + ssm_dtype + ": the Mamba-2 layers' SSM state is held at " +
                        format_significant(it->second, 3) + " B per element (the convolution window at the cache dtype)");
    }
  } else if (type == "falcon_h1") {
    // transformers models/falcon_h1/configuration_falcon_h1.py: every layer runs attention and
    // Mamba-2 in parallel, then a gated MLP. Defaults: mamba_d_ssm 1024, 128 heads, d_state 256,
    // 1 group, conv 4 with bias, no projection bias, no gated norm (mamba_rms_norm false).
    Mamba2Shape ms;
    ms.heads = r.integer({"mamba_n_heads"}, false, 128);
    // mamba_d_ssm absent: 1024, the class default; null: mamba_expand × hidden_size.
    const json* ssm = r.find("mamba_d_ssm");
    const int64_t d_ssm = ssm == nullptr ? 1024
                          : ssm->is_null() ? r.integer({"mamba_expand"}, false, 2) * h
                                           : r.integer({"mamba_d_ssm"}, false, 1024);
    const json* dh = r.find("mamba_d_head");
    ms.head_dim = dh != nullptr && dh->is_number_integer() ? r.integer({"mamba_d_head"}, false, 0) : d_ssm / std::max<int64_t>(ms.heads, 1);
    ms.state = r.integer({"mamba_d_state"}, false, 256);
    ms.groups = r.integer({"mamba_n_groups"}, false, 1);
    ms.kernel = r.integer({"mamba_d_conv"}, false, 4);
    ms.conv_bias = r.boolean("mamba_conv_bias", true);
    ms.proj_bias = r.boolean("mamba_proj_bias", false);
    ms.gated_norm = r.boolean("mamba_rms_norm", false);
    plan.mixer_kinds = {{attention_mixer(h, shape, CacheBound::kFull, 0), mamba2_mixer(h, ms)}};
    plan.mlp_kinds = {dense_mlp(h, m.intermediate, true, m.mlp_bias)};
    modelled.insert({"mamba_d_ssm", "mamba_n_heads", "mamba_d_head", "mamba_d_state", "mamba_n_groups", "mamba_d_conv",
                     "mamba_expand", "mamba_chunk_size", "mamba_conv_bias", "mamba_proj_bias", "mamba_norm_before_gate",
                     "mamba_rms_norm", "mamba_use_mlp", "ssm_multipliers", "ssm_in_multiplier", "ssm_out_multiplier",
                     "projectors_bias"});
  } else if (type == "mimo_v2") {
    // XiaomiMiMo MiMo-V2 (configuration_mimo_v2.py, modeling_mimo_v2.py): hybrid_layer_pattern
    // 1 = sliding-window layer with its own heads (swa_*) and a sink logit per head, 0 = full;
    // V is narrower than Q and K (v_head_dim); moe_layer_freq lists per layer 1 = MoE, 0 = dense.
    // attention_chunk_size equals the window there (the SWA kernel's block), so it adds no bound.
    AttentionShape full = shape, swa = shape;
    full.v_head_dim = r.integer({"v_head_dim"}, false, m.head_dim);
    full.sinks = r.boolean("add_full_attention_sink_bias", false);
    swa.heads = r.integer({"swa_num_attention_heads"}, false, m.heads);
    swa.kv_heads = r.integer({"swa_num_key_value_heads"}, false, m.kv_heads);
    swa.head_dim = r.integer({"swa_head_dim"}, false, m.head_dim);
    swa.v_head_dim = r.integer({"swa_v_head_dim"}, false, full.v_head_dim);
    swa.sinks = r.boolean("add_swa_attention_sink_bias", false);
    if (m.sliding_window == 0) m.sliding_window = r.integer({"attention_chunk_size"}, false, 0);
    if (const int64_t c = r.integer({"attention_chunk_size"}, false, 0); c > 0 && c != m.sliding_window) {
      return FieldError{"config.json:attention_chunk_size", n(c), "differs from sliding_window (" + n(m.sliding_window) + ")",
                        "MiMo-V2's chunk equal to its window (a chunked bound of its own is not modelled)"};
    }
    plan.mixer_kinds = {{attention_mixer(h, full, CacheBound::kFull, 0)},
                        {attention_mixer(h, swa, CacheBound::kWindow, m.sliding_window)}};
    const json* pattern = list_key(*cfg, "hybrid_layer_pattern");
    if (pattern == nullptr) {
      return FieldError{"config.json:hybrid_layer_pattern", "", "is missing", "1 (sliding window) or 0 (full) per layer"};
    }
    read_layer_list(*pattern, "hybrid_layer_pattern", m.layers, [](const json& v) {
      return v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1) ? static_cast<int>(v.get<int64_t>()) : -1;
    }, "1 (sliding window) or 0 (full attention)", plan.mixer_list, errors);
    plan.mlp_kinds = {dense_mlp(h, m.intermediate, true, false)};
    if (m.routed_experts > 0) {
      plan.mlp_kinds.push_back(moe_mlp(h, moe_shape));
      if (const json* freq = list_key(*cfg, "moe_layer_freq")) {
        read_layer_list(*freq, "moe_layer_freq", m.layers, [](const json& v) {
          return v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1) ? static_cast<int>(v.get<int64_t>()) : -1;
        }, "1 (MoE) or 0 (dense) per layer", plan.mlp_list, errors);
      } else {
        moe_rule(plan, common, 1, 0);
      }
    }
    if (!errors.empty()) return errors;
    modelled.insert({"hybrid_layer_pattern", "attention_chunk_size", "hybrid_block_size"});
  } else if (type == "jamba") {
    // transformers models/jamba/configuration_jamba.py: attention every attn_layer_period (8)
    // layers at attn_layer_offset (4), Mamba elsewhere; MoE every expert_layer_period (2) at
    // expert_layer_offset (1); Mamba d_state 16, d_conv 4, expand 2, dt_rank ⌈hidden / 16⌉.
    const int64_t ap = std::max<int64_t>(r.integer({"attn_layer_period"}, false, 8), 1);
    const int64_t ao = r.integer({"attn_layer_offset"}, false, 4);
    const int64_t ep = std::max<int64_t>(r.integer({"expert_layer_period"}, false, 2), 1);
    const int64_t eo = r.integer({"expert_layer_offset"}, false, 1);
    const int64_t inner = r.integer({"mamba_expand"}, false, 2) * h;
    const json* rank = r.find("mamba_dt_rank");
    const int64_t dt_rank = rank != nullptr && rank->is_number_integer() ? r.integer({"mamba_dt_rank"}, false, 0) : (h + 15) / 16;
    plan.mixer_kinds = {{attention_mixer(h, shape, CacheBound::kFull, 0)},
                        {mamba1_mixer(h, inner, r.integer({"mamba_d_state"}, false, 16), r.integer({"mamba_d_conv"}, false, 4),
                                      dt_rank, r.boolean("mamba_conv_bias", true), r.boolean("mamba_proj_bias", false))}};
    plan.mixer_rule = [ap, ao](int64_t l) { return l % ap == ao ? 0 : 1; };
    plan.mixer_period = ap;
    plan.mlp_kinds = {dense_mlp(h, m.intermediate, true, false)};
    if (m.routed_experts > 0) {
      plan.mlp_kinds.push_back(moe_mlp(h, moe_shape));
      plan.mlp_rule = [ep, eo](int64_t l) { return l % ep == eo ? 1 : 0; };
      plan.mlp_period = ep;
    }
    modelled.insert({"attn_layer_period", "attn_layer_offset", "mamba_d_state", "mamba_d_conv", "mamba_expand",
                     "mamba_dt_rank", "mamba_conv_bias", "mamba_proj_bias", "use_mamba_kernels"});
  } else {
    // Every attention-only family: one attention shape, each layer full, sliding-window or
    // chunked; dense or MoE MLP by the MoE rule.
    if (gemma4) {
      // transformers models/gemma4 (Gemma4TextConfig): global layers have their own KV heads
      // (num_global_key_value_heads) and head width (global_head_dim); attention_k_eq_v drops
      // v_proj (V reuses K's projection) but K and V are still cached apart. Every layer runs the
      // dense MLP (intermediate_size) and, with enable_moe_block, the MoE block beside it: the
      // dense MLP is counted as the MoE's always-on shared expert.
      if (r.integer({"hidden_size_per_layer_input"}, false, 0) > 0 || r.integer({"num_kv_shared_layers"}, false, 0) > 0) {
        return FieldError{"config.json:hidden_size_per_layer_input", quote(*r.find("hidden_size_per_layer_input")),
                          "asks for per-layer inputs or shared KV layers, which ridge does not model",
                          "0 (hidden_size_per_layer_input and num_kv_shared_layers)"};
      }
      AttentionShape global = shape;
      global.kv_heads = r.integer({"num_global_key_value_heads"}, false, m.kv_heads);
      global.head_dim = r.integer({"global_head_dim"}, false, m.head_dim);
      global.qk_norm = 2.0 * d(global.head_dim);
      Mixer full = attention_mixer(h, global, CacheBound::kFull, 0);
      if (r.boolean("attention_k_eq_v", false)) full.params -= d(h) * d(global.kv_heads * global.head_dim);
      plan.mixer_kinds = {{full}, {attention_mixer(h, shape, CacheBound::kWindow, m.sliding_window)}, {full}};
      modelled.insert({"use_bidirectional_attention", "num_global_key_value_heads", "global_head_dim", "attention_k_eq_v"});
      if (r.boolean("enable_moe_block", false) && m.routed_experts > 0) {
        m.shared_expert_intermediate = moe_shape.shared_width = m.intermediate;
        m.shared_experts = 1;
      }
    } else if (m.kv_lora_rank > 0) {
      LatentShape ls{m.heads, m.q_lora_rank, m.kv_lora_rank, m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim};
      if (dsa) {
        ls.index_heads = r.integer({"index_n_heads"}, false, 64);
        ls.index_head_dim = r.integer({"index_head_dim"}, false, 128);
        ls.index_topk = r.integer({"index_topk"}, false, 2048);
        modelled.insert({"index_n_heads", "index_head_dim", "index_topk"});
      }
      plan.mixer_kinds = {{latent_mixer(h, ls)}};
    } else {
      plan.mixer_kinds = {{attention_mixer(h, shape, CacheBound::kFull, 0)},
                          {attention_mixer(h, shape, CacheBound::kWindow, m.sliding_window)},
                          {attention_mixer(h, shape, CacheBound::kChunk, chunk)}};
    }
    const json* types = list_key(*cfg, "layer_types");
    const int64_t pattern = r.integer({"sliding_window_pattern"}, false, gemma && type != "gemma2" ? 6 : 0);
    const int64_t max_window_layers = r.integer({"max_window_layers"}, false, -1);
    if (types != nullptr) {
      // An explicit list (gpt-oss, Gemma 3, OLMo 3, Llama 4 in recent transformers).
      read_layer_list(*types, "layer_types", m.layers, [&](const json& v) {
        const std::string t = str(v);
        if (t == "full_attention" || t == "global_attention" || (t == "sliding_attention" && m.sliding_window == 0) ||
            (t == "local_attention" && m.sliding_window == 0)) return 0;
        if ((t == "sliding_attention" || t == "local_attention") && m.kv_lora_rank == 0) return 1;
        if (t == "chunked_attention" && chunk > 0) return 2;
        return -1;
      }, "full_attention, sliding_attention (with sliding_window), chunked_attention (Llama 4, with attention_chunk_size)",
         plan.mixer_list, errors);
    } else if (llama4 && chunk > 0) {
      // transformers models/llama4/configuration_llama4.py: no_rope_layers (1 = RoPE and chunked
      // attention, 0 = NoPE and global attention), by default every no_rope_layer_interval (4)-th
      // layer global.
      const json* nope = list_key(*cfg, "no_rope_layers");
      if (nope != nullptr && !nope->empty()) {
        read_layer_list(*nope, "no_rope_layers", m.layers, [](const json& v) {
          return v.is_number_integer() ? (v.get<int64_t>() == 1 ? 2 : v.get<int64_t>() == 0 ? 0 : -1) : -1;
        }, "1 (chunked, RoPE) or 0 (global, NoPE) per layer", plan.mixer_list, errors);
      } else {
        const int64_t every = std::max<int64_t>(r.integer({"no_rope_layer_interval"}, false, 4), 1);
        plan.mixer_rule = [every](int64_t l) { return (l + 1) % every == 0 ? 0 : 2; };
        plan.mixer_period = every;
      }
    } else if (m.sliding_window > 0 && m.kv_lora_rank == 0) {
      if (pattern > 0 || type == "gemma2") {
        // Every pattern-th layer is global (Gemma 2 alternates: pattern 2).
        const int64_t every = pattern > 0 ? pattern : 2;
        plan.mixer_rule = [every](int64_t l) { return (l + 1) % every == 0 ? 0 : 1; };
        plan.mixer_period = every;
      } else if (max_window_layers >= 0 && r.boolean("use_sliding_window", false)) {
        // Qwen: the layers from max_window_layers on slide.
        plan.mixer_rule = [max_window_layers](int64_t l) { return l >= max_window_layers ? 1 : 0; };
        plan.breaks.push_back(max_window_layers);
      } else {
        plan.mixer_rule = [](int64_t) { return 1; };  // Mistral 7B v0.1: every layer
      }
    }
    modelled.insert({"sliding_window_pattern", "max_window_layers", "no_rope_layers", "no_rope_layer_interval",
                     "attention_chunk_size", "query_pre_attn_scalar"});
    if (type == "minimax_m2") {
      // MiniMax-M2 lists every layer as softmax attention (attn_type_list of 1s).
      if (const json* list = list_key(*cfg, "attn_type_list")) {
        std::vector<int> ignored;
        read_layer_list(*list, "attn_type_list", m.layers, [](const json& v) {
          return v.is_number_integer() && v.get<int64_t>() == 1 ? 0 : -1;
        }, "1 (softmax attention) on every layer of minimax_m2", ignored, errors);
        modelled.insert("attn_type_list");
      }
    }
    standard_mlps();
  }
  refuse_unmodelled_keys(*cfg, modelled, type, errors);
  if (!errors.empty()) return errors;
  auto runs = count_layers(plan);
  if (!runs) return runs.errors();
  m.runs = std::move(*runs);

  // The summary fields, from the runs.
  m.moe_layers = 0;
  m.sliding_layers = 0;
  bool has_attention_shape = false;
  for (const auto& run : m.runs) {
    if (run.mlp.kind == MlpKind::kMoe) m.moe_layers += run.count;
    for (const auto& x : run.mixers) {
      if (x.kind == MixerKind::kAttention && x.bound == CacheBound::kWindow) m.sliding_layers += run.count;
      if (x.kind == MixerKind::kAttention && !has_attention_shape) {
        has_attention_shape = true;
        m.kv_heads = x.kv_heads;
      }
    }
  }
  if (m.sliding_layers == 0) m.sliding_window = 0;
  read_quantization(root, *cfg, m);
  if (m.is_hybrid()) {
    for (const auto& run : m.runs) m.notes.push_back(count_of(static_cast<long double>(run.count), "layer") + ": " + run.describe());
  }
  return m;
}

int64_t ModelArch::cache_layers() const {
  int64_t count = 0;
  for (const auto& run : runs) {
    for (const auto& x : run.mixers) {
      if (x.kv_per_token > 0) count += run.count;
    }
  }
  return count;
}

bool ModelArch::has_state() const {
  for (const auto& run : runs) {
    for (const auto& x : run.mixers) {
      if (x.state > 0) return true;
    }
  }
  return false;
}

bool ModelArch::is_hybrid() const {
  for (const auto& run : runs) {
    if (run.mixers.size() != 1) return true;
    if (run.mixers[0].kind != runs.front().mixers.front().kind) return true;
  }
  return false;
}

ParamCount count_params(const ModelArch& m) {
  ParamCount p;
  const double h = d(m.hidden);
  p.embedding = d(m.vocab) * h;
  p.lm_head = m.tied_embeddings ? 0 : p.embedding;
  double layers = 0, active_experts = 0;
  bool first_attention = true, first_dense = true, first_moe = true;
  p.norms = h;  // the final norm
  for (const auto& run : m.runs) {
    const double c = d(run.count);
    double mixers = 0;
    for (const auto& x : run.mixers) {
      mixers += x.params;
      if (first_attention && (x.kind == MixerKind::kAttention || x.kind == MixerKind::kLatentAttention)) {
        p.attention_per_layer = x.params;
        first_attention = false;
      }
    }
    layers += c * (mixers + run.mlp.params);
    p.norms += c * run.norm_params;
    if (run.mlp.kind == MlpKind::kDense && first_dense) {
      p.dense_mlp_per_layer = run.mlp.params;
      first_dense = false;
    }
    if (run.mlp.kind == MlpKind::kMoe) {
      if (first_moe) {
        p.expert = run.mlp.expert_params;
        p.router_per_layer = h * d(run.mlp.experts);
        p.shared_per_moe_layer = run.mlp.params - p.router_per_layer;
        first_moe = false;
      }
      p.experts_total += c * run.mlp.expert_params * d(run.mlp.experts);
      active_experts += c * run.mlp.expert_params * d(run.mlp.experts_per_token);
    }
  }
  if (p.dense_mlp_per_layer == 0) p.dense_mlp_per_layer = mlp_weights(m.hidden, m.intermediate, m.gated_mlp, m.mlp_bias);
  const double shared_total = p.embedding + p.lm_head + layers + p.norms;
  p.total = shared_total + p.experts_total;
  p.active = shared_total + active_experts;
  return p;
}

WeightSplit split_weights(const ModelArch& m) {
  const ParamCount p = count_params(m);
  WeightSplit w;
  w.experts = p.experts_total;
  w.kept = p.embedding + p.lm_head + p.norms;
  for (const auto& run : m.runs) {
    if (run.mlp.kind == MlpKind::kMoe) w.kept += d(run.count) * d(m.hidden) * d(run.mlp.experts);  // the router
  }
  w.matrices = p.total - w.experts - w.kept;
  return w;
}

double weight_bytes(const ModelArch& m, const WeightFormat& f, double kept_bytes) {
  const WeightSplit w = split_weights(m);
  if (!f.quantized()) return (w.experts + w.matrices + w.kept) * f.bytes;
  const double per = f.bytes + f.scale_bytes;
  return f.experts_only ? w.experts * per + (w.matrices + w.kept) * kept_bytes
                        : (w.experts + w.matrices) * per + w.kept * kept_bytes;
}

namespace {
// Σ over runs and their mixers of the run's layer count × `per_layer(mixer)`.
template <class PerLayer>
double sum_over_mixers(const ModelArch& m, PerLayer per_layer) {
  double total = 0;
  for (const auto& run : m.runs) {
    for (const auto& x : run.mixers) total += d(run.count) * per_layer(x);
  }
  return total;
}

// Tokens a layer's cache holds for a sequence of `context` tokens.
double cached_tokens(const Mixer& x, double context) {
  if (x.kv_per_token == 0) return 0;
  if (x.bound == CacheBound::kFull || x.span <= 0) return context;
  return std::min(context, d(x.span));
}
}  // namespace

double kv_elements_per_token(const ModelArch& m) {
  return sum_over_mixers(m, [](const Mixer& x) { return x.kv_per_token; });
}

double kv_elements_per_sequence(const ModelArch& m, double context) {
  return sum_over_mixers(m, [context](const Mixer& x) { return x.kv_per_token * cached_tokens(x, context); });
}

double state_elements_per_sequence(const ModelArch& m) {
  return sum_over_mixers(m, [](const Mixer& x) { return x.state; });
}

double recurrent_state_bytes(const ModelArch& m, const Mixer& x, double cache_bytes, double ssm_bytes) {
  if (ssm_bytes > 0) return ssm_bytes;
  if (x.kind == MixerKind::kStateSpace && m.ssm_state_bytes > 0) return m.ssm_state_bytes;
  return cache_bytes;
}

double state_bytes_per_sequence(const ModelArch& m, double cache_bytes, double ssm_bytes) {
  return sum_over_mixers(m, [&](const Mixer& x) {
    return (x.state - x.conv_state) * recurrent_state_bytes(m, x, cache_bytes, ssm_bytes) + x.conv_state * cache_bytes;
  });
}

namespace {
// Query-key pairs of one causal sequence of s tokens under a bound: Σ over positions t of the
// tokens t attends to. Full: s²/2 (the causal half, as Megatron's and the prefill's count);
// window w: w·s − w²/2 once s > w; chunk c: each chunk a causal square of its own, c²/2 per
// full chunk plus r²/2 for the remainder; sparse top-k: at most k per query.
double causal_pairs(const Mixer& x, double s) {
  double pairs = s * s / 2;
  if (x.bound == CacheBound::kWindow && x.span > 0 && s > d(x.span)) {
    const double w = d(x.span);
    pairs = w * s - w * w / 2;
  } else if (x.bound == CacheBound::kChunk && x.span > 0 && s > d(x.span)) {
    const double c = d(x.span), full = std::floor(s / c), rest = s - full * c;
    pairs = full * c * c / 2 + rest * rest / 2;
  }
  if (x.sparse_topk > 0 && s > d(x.sparse_topk)) {
    const double k = d(x.sparse_topk);
    pairs = k * s - k * k / 2;
  }
  return pairs;
}
}  // namespace

double attention_flops_per_sequence(const ModelArch& m, double tokens) {
  return sum_over_mixers(m, [tokens](const Mixer& x) {
    if (x.kind == MixerKind::kAttention || x.kind == MixerKind::kLatentAttention) {
      return 2 * d(x.heads) * d(x.qk_dim + x.v_dim) * causal_pairs(x, tokens);
    }
    // A recurrent state of heads × qk_dim × v_dim read and updated once per token: about
    // 2 FLOP per element each way (the chunked kernels do the same work in blocks).
    return 4 * d(x.heads) * d(x.qk_dim) * d(x.v_dim) * tokens;
  });
}

double attention_flops_per_decode_token(const ModelArch& m, double context) {
  return sum_over_mixers(m, [context](const Mixer& x) {
    if (x.kind == MixerKind::kAttention || x.kind == MixerKind::kLatentAttention) {
      double reach = cached_tokens(x, context);
      if (x.sparse_topk > 0) reach = std::min(reach, d(x.sparse_topk));
      return 2 * d(x.heads) * d(x.qk_dim + x.v_dim) * reach;
    }
    return 4 * d(x.heads) * d(x.qk_dim) * d(x.v_dim);
  });
}

int64_t residual_blocks(const ModelArch& m) {
  int64_t blocks = 0;
  for (const auto& run : m.runs) {
    blocks += run.count * ((run.mixers.empty() ? 0 : 1) + (run.mlp.kind == MlpKind::kNone ? 0 : 1));
  }
  return blocks;
}

double params_read_per_decode_step(const ModelArch& m, double batch) {
  double untouched = 0;
  for (const auto& run : m.runs) {
    if (run.mlp.kind != MlpKind::kMoe) continue;
    const double e = d(run.mlp.experts), k = d(run.mlp.experts_per_token);
    const double touched = e * (1 - std::pow(1 - k / e, batch));
    untouched += d(run.count) * run.mlp.expert_params * (e - touched);
  }
  return count_params(m).total - untouched;
}

std::vector<std::string> describe_runs(const ModelArch& m, double bytes, double ssm_bytes) {
  std::vector<std::string> lines;
  const std::string b = format_significant(bytes, 3) + " B";
  for (const auto& run : m.runs) {
    for (const auto& x : run.mixers) {
      std::string line = count_of(static_cast<long double>(run.count), x.name + " layer");
      if (x.bound != CacheBound::kFull) line += " (" + n(x.span) + " tokens)";
      if (x.kv_per_token > 0) {
        line += ": " + x.kv_text + " × " + b + " per token each";
        if (x.bound == CacheBound::kWindow) line += ", at most the window";
        if (x.bound == CacheBound::kChunk) line += ", at most one chunk";
      } else {
        const double rb = recurrent_state_bytes(m, x, bytes, ssm_bytes);
        const double each = (x.state - x.conv_state) * rb + x.conv_state * bytes;
        if (rb == bytes) {
          line += ": no KV, " + format_quantity(each, Unit::kBytes, 3) + " of state each ((" + x.state_text + ") × " + b + ")";
        } else {
          line += ": no KV, " + format_quantity(each, Unit::kBytes, 3) + " of state each (" + x.ssm_text + " × " +
                  format_significant(rb, 3) + " B" + (x.conv_text.empty() ? "" : " + " + x.conv_text + " × " + b) + ")";
        }
      }
      lines.push_back(line);
    }
  }
  return lines;
}

namespace {
// Every layer one mixer with the same cache per token: the classic one-line product applies.
bool uniform_cache(const ModelArch& m) {
  if (m.runs.empty()) return false;
  const double first = m.runs.front().mixers.empty() ? 0 : m.runs.front().mixers.front().kv_per_token;
  return first > 0 && std::all_of(m.runs.begin(), m.runs.end(), [&](const LayerRun& run) {
    return run.mixers.size() == 1 && run.mixers.front().kv_per_token == first;
  });
}
}  // namespace

std::string kv_formula(const ModelArch& m) {
  if (!uniform_cache(m)) return "Σ over the layers that keep a cache: KV elements per token × bytes";
  if (m.is_mla()) return "layers × (kv_lora_rank + qk_rope_head_dim) × bytes";
  return "2 (K and V) × layers × kv_heads × head_dim × bytes";
}

std::string kv_substituted(const ModelArch& m, double bytes_per_element) {
  std::string b = format_significant(bytes_per_element, 3) + " B";
  // One kind of cache on every layer: the classic product (same text as before the runs).
  std::vector<std::pair<int64_t, const Mixer*>> caching;
  for (const auto& run : m.runs) {
    for (const auto& x : run.mixers) {
      if (x.kv_per_token > 0) caching.emplace_back(run.count, &x);
    }
  }
  if (caching.empty()) return "0 (no layer keeps a KV cache)";
  const bool uniform = std::all_of(caching.begin(), caching.end(), [&](const auto& c) {
    return c.second->kv_per_token == caching.front().second->kv_per_token;
  });
  if (uniform && uniform_cache(m)) {
    if (m.is_mla()) {
      return n(m.layers) + " × (" + n(m.kv_lora_rank) + " + " + n(m.qk_rope_head_dim) + ") × " + b;
    }
    return "2 × " + n(m.layers) + " × " + n(m.kv_heads) + " × " + n(m.head_dim) + " × " + b;
  }
  std::string text;
  for (const auto& [count, x] : caching) {
    text += (text.empty() ? "" : " + ") + n(count) + " × " + x->kv_text + " × " + b;
  }
  return text;
}

}  // namespace ridge::calc

namespace ridge::calc {

bool ModelArch::cache_is_per_token_times_context() const {
  return std::all_of(runs.begin(), runs.end(), [](const LayerRun& run) {
    return std::all_of(run.mixers.begin(), run.mixers.end(), [](const Mixer& x) {
      return x.state == 0 && (x.kv_per_token == 0 || x.bound == CacheBound::kFull);
    });
  });
}

}  // namespace ridge::calc
