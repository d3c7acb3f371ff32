#include "calc/model.h"

#include <algorithm>
#include <cmath>
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
  json root;
  try {
    root = json::parse(json_text);
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

  m.hidden = r.integer({"hidden_size", "d_model", "n_embd"}, true);
  m.layers = r.integer({"num_hidden_layers", "n_layer", "num_layers"}, true);
  m.heads = r.integer({"num_attention_heads", "n_head"}, true);
  m.vocab = r.integer({"vocab_size"}, true);
  m.intermediate = r.integer({"intermediate_size_mlp", "intermediate_size", "ffn_dim", "n_inner"},
                             false, 4 * m.hidden);
  m.kv_heads = r.integer({"num_key_value_heads", "n_kv_heads"}, false, m.heads);
  if (r.boolean("multi_query", false)) m.kv_heads = 1;
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
  m.head_dim = r.integer({"head_dim"}, false, 0);
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0) {
      return FieldError{"config.json:head_dim", "", "is missing and hidden_size / num_attention_heads is not whole",
                        "a config with head_dim"};
    }
    m.head_dim = m.hidden / m.heads;
  }

  bool tie_present = false;
  m.tied_embeddings = r.boolean("tie_word_embeddings", true, &tie_present);
  if (!tie_present) {
    m.tied_embeddings = top.boolean("tie_word_embeddings", true, &tie_present);
  }
  if (!tie_present) {
    m.notes.push_back("tie_word_embeddings absent: tied, the transformers default");
  }

  bool bias_present = false;
  bool attention_bias = r.boolean("attention_bias", false, &bias_present);
  if (m.model_type == "qwen2" || m.model_type == "qwen2_moe") {
    m.qkv_bias = true;  // Qwen2 projects q, k and v with bias, o without.
  } else if (attention_bias) {
    m.qkv_bias = true;
    m.o_bias = m.model_type != "glm4_moe" && m.model_type != "glm4";
  }
  m.mlp_bias = r.boolean("mlp_bias", false);
  if (m.model_type == "gpt2") {
    // GPT-2 / GPT-3 / Megatron GPT: a plain 4h GeLU MLP, biases on every linear layer.
    m.gated_mlp = false;
    m.qkv_bias = m.o_bias = m.mlp_bias = true;
  }
  m.qk_norm = m.model_type == "qwen3" || m.model_type == "qwen3_moe" || r.boolean("use_qk_norm", false);
  if (m.model_type == "gpt_oss") {
    m.mlp_bias = true;
    m.router_bias = true;
  }
  m.sliding_window = r.integer({"sliding_window"}, false, 0);
  if (m.sliding_window > 0 && m.model_type != "gpt_oss") {
    // Mistral and Qwen configs carry a window that is disabled (use_sliding_window false).
    bool use_present = false;
    bool use = r.boolean("use_sliding_window", true, &use_present);
    if (use_present && !use) m.sliding_window = 0;
  }
  m.max_position_embeddings = r.integer({"max_position_embeddings", "n_positions"}, false, 0);
  if (m.sliding_window > 0) {
    // Which layers the window bounds, in the order transformers reads them: an explicit
    // layer_types list (gpt-oss, gemma 3, recent configs), gemma's sliding_window_pattern
    // (every pattern-th layer is global), Qwen's max_window_layers (the layers from it on
    // slide), gemma 2's alternation, else every layer (Mistral 7B v0.1).
    const json* types = r.find("layer_types");
    int64_t pattern = r.integer({"sliding_window_pattern"}, false, 0);
    int64_t max_window_layers = r.integer({"max_window_layers"}, false, -1);
    if (types != nullptr && types->is_array()) {
      m.sliding_layers = 0;
      for (const auto& t : *types) {
        if (t.is_string() && (t.get<std::string>() == "sliding_attention" || t.get<std::string>() == "local_attention")) {
          ++m.sliding_layers;
        }
      }
      if (static_cast<int64_t>(types->size()) != m.layers) {
        errors.push_back({"config.json:layer_types", std::to_string(types->size()) + " entries",
                          "does not list one type per layer", std::to_string(m.layers) + " entries (num_hidden_layers)"});
      }
    } else if (pattern > 0 || m.model_type == "gemma2") {
      if (pattern == 0) pattern = 2;
      m.sliding_layers = m.layers - m.layers / pattern;
    } else if (max_window_layers >= 0 && r.boolean("use_sliding_window", false)) {
      m.sliding_layers = std::max<int64_t>(0, m.layers - max_window_layers);
    } else {
      m.sliding_layers = m.layers;
    }
    if (m.sliding_layers == 0) m.sliding_window = 0;
  }

  // Mixture of experts.
  m.routed_experts = r.integer({"n_routed_experts", "num_local_experts", "num_experts"}, false, 0);
  if (m.routed_experts > 0) {
    m.experts_per_token =
        r.integer({"num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk"},
                  true);
    m.expert_intermediate = r.integer({"moe_intermediate_size"}, false, 0);
    if (m.expert_intermediate == 0) {
      m.expert_intermediate = r.integer({"intermediate_size"}, false, m.intermediate);
    }
    m.shared_experts = r.integer({"n_shared_experts", "num_shared_experts"}, false, 0);
    int64_t shared_width = r.integer({"shared_expert_intermediate_size"}, false, 0);
    if (shared_width > 0) {
      m.shared_experts = std::max<int64_t>(m.shared_experts, 1);
      m.shared_expert_intermediate = shared_width;
    } else {
      m.shared_expert_intermediate = m.shared_experts * m.expert_intermediate;
    }
    int64_t first_dense = r.integer({"first_k_dense_replace"}, false, 0);
    int64_t freq = r.integer({"moe_layer_freq", "decoder_sparse_step", "interleave_moe_layer_step"},
                             false, 1);
    if (freq == 0) freq = 1;
    // Layer l (0-based) is sparse when (l + offset) is a multiple of freq: Qwen's
    // decoder_sparse_step and Llama 4's interleave_moe_layer_step count from one, DeepSeek's
    // moe_layer_freq from zero. The count is arithmetic, never a loop over layers: a config
    // may claim 2^24 of them.
    const bool from_one = r.find("interleave_moe_layer_step") != nullptr || m.model_type == "qwen2_moe" ||
                          m.model_type == "qwen3_moe";
    const int64_t offset = from_one ? 1 : 0;
    freq = std::max<int64_t>(freq, 1);
    auto is_sparse = [&](int64_t l) { return l >= first_dense && l < m.layers && (l + offset) % freq == 0; };
    // Multiples of freq in [lo, hi], both non-negative.
    auto multiples = [freq](int64_t lo, int64_t hi) { return hi < lo ? 0 : hi / freq - (lo == 0 ? -1 : (lo - 1) / freq); };
    const int64_t first = std::clamp<int64_t>(first_dense, 0, m.layers);
    m.moe_layers = m.layers <= first ? 0 : multiples(first + offset, m.layers - 1 + offset);
    // mlp_only_layers: each listed sparse layer becomes dense once, whatever the list repeats.
    // The list is read only up to one entry per layer.
    if (const json* only = r.find("mlp_only_layers"); only && only->is_array()) {
      if (static_cast<int64_t>(only->size()) > m.layers) {
        errors.push_back({"config.json:mlp_only_layers", std::to_string(only->size()) + " entries",
                          "lists more layers than the model has", "at most " + std::to_string(m.layers) +
                              " layer indices (num_hidden_layers)"});
      } else {
        std::set<int64_t> dense_listed;
        for (const auto& v : *only) {
          if (v.is_number_integer() && is_sparse(v.get<int64_t>())) dense_listed.insert(v.get<int64_t>());
        }
        m.moe_layers -= static_cast<int64_t>(dense_listed.size());
      }
    }
    if (m.experts_per_token == 0 || m.experts_per_token > m.routed_experts) {
      errors.push_back({"config.json:num_experts_per_tok", std::to_string(m.experts_per_token),
                        "must be between 1 and the number of routed experts",
                        "1.." + std::to_string(m.routed_experts)});
    }
  }

  // Multi-head latent attention.
  m.kv_lora_rank = r.integer({"kv_lora_rank"}, false, 0);
  if (m.kv_lora_rank > 0) {
    m.q_lora_rank = r.integer({"q_lora_rank"}, false, 0);
    m.qk_rope_head_dim = r.integer({"qk_rope_head_dim"}, true);
    m.qk_nope_head_dim = r.integer({"qk_nope_head_dim"}, true);
    m.v_head_dim = r.integer({"v_head_dim"}, false, m.qk_nope_head_dim);
  }
  if (!errors.empty()) return errors;
  return m;
}

ParamCount count_params(const ModelArch& m) {
  ParamCount p;
  const double h = static_cast<double>(m.hidden);
  p.embedding = static_cast<double>(m.vocab) * h;
  p.lm_head = m.tied_embeddings ? 0 : p.embedding;

  double attn = 0;
  if (m.is_mla()) {
    double qk_dim = static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim);
    double nh = static_cast<double>(m.heads);
    if (m.q_lora_rank > 0) {
      attn += h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * nh * qk_dim;
    } else {
      attn += h * nh * qk_dim;
    }
    attn += h * static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim);  // kv_a_proj
    attn += static_cast<double>(m.kv_lora_rank);                          // kv_a_layernorm
    attn += m.kv_lora_rank * nh * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim);
    attn += nh * m.v_head_dim * h;  // o_proj
  } else {
    double q = static_cast<double>(m.heads * m.head_dim);
    double kv = static_cast<double>(m.kv_heads * m.head_dim);
    attn = h * q + 2 * h * kv + q * h;
    if (m.qkv_bias) attn += q + 2 * kv;
    if (m.o_bias) attn += h;
    if (m.qk_norm) attn += 2.0 * m.head_dim;
    if (m.model_type == "gpt_oss") attn += static_cast<double>(m.heads);  // attention sinks
  }
  p.attention_per_layer = attn;

  auto mlp = [&](double width) {
    double w = (m.gated_mlp ? 3 : 2) * h * width;
    if (m.mlp_bias) w += (m.gated_mlp ? 2 : 1) * width + h;
    return w;
  };
  p.dense_mlp_per_layer = mlp(static_cast<double>(m.intermediate));
  if (m.is_moe()) {
    p.expert = mlp(static_cast<double>(m.expert_intermediate));
    p.shared_per_moe_layer =
        m.shared_expert_intermediate > 0 ? mlp(static_cast<double>(m.shared_expert_intermediate)) : 0;
    p.router_per_layer = h * m.routed_experts + (m.router_bias ? m.routed_experts : 0);
    if (m.model_type == "qwen2_moe") p.router_per_layer += h;  // shared-expert gate
  }
  p.norms = 2 * h * m.layers + h;

  double layers_attn = attn * m.layers;
  double dense_mlps = p.dense_mlp_per_layer * m.dense_layers();
  double moe_shared = (p.shared_per_moe_layer + p.router_per_layer) * m.moe_layers;
  double shared_total = p.embedding + p.lm_head + layers_attn + dense_mlps + moe_shared + p.norms;
  p.total = shared_total + p.expert * m.routed_experts * m.moe_layers;
  p.active = shared_total + p.expert * m.experts_per_token * m.moe_layers;
  return p;
}

double kv_elements_per_token(const ModelArch& m) {
  if (m.is_mla()) return static_cast<double>(m.layers * (m.kv_lora_rank + m.qk_rope_head_dim));
  return 2.0 * m.layers * m.kv_heads * m.head_dim;
}

double kv_elements_per_sequence(const ModelArch& m, double context) {
  double per_token = kv_elements_per_token(m);
  if (!m.has_sliding_window() || context <= static_cast<double>(m.sliding_window)) return per_token * context;
  double per_layer = per_token / static_cast<double>(m.layers);
  double full = static_cast<double>(m.layers - m.sliding_layers), sliding = static_cast<double>(m.sliding_layers);
  return per_layer * (full * context + sliding * static_cast<double>(m.sliding_window));
}

std::string kv_formula(const ModelArch& m) {
  if (m.is_mla()) return "layers × (kv_lora_rank + qk_rope_head_dim) × bytes";
  return "2 (K and V) × layers × kv_heads × head_dim × bytes";
}

std::string kv_substituted(const ModelArch& m, double bytes_per_element) {
  std::string b = format_significant(bytes_per_element, 3) + " B";
  if (m.is_mla()) {
    return n(m.layers) + " × (" + n(m.kv_lora_rank) + " + " + n(m.qk_rope_head_dim) + ") × " + b;
  }
  return "2 × " + n(m.layers) + " × " + n(m.kv_heads) + " × " + n(m.head_dim) + " × " + b;
}

}  // namespace ridge::calc
