// parse_model_config: a config.json's text into a ModelArch. Reads the keys every family shares
// (sizes, heads, biases, windows, MoE widths) with each family's transformers defaults, the
// attention-only families' layer plans, and hands the hybrid families to model_hybrid_readers.cc.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "calc/model.h"
#include "calc/model_reader.h"
#include "calc/units.h"

namespace ridge::calc {

using namespace reader;

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

  FamilyReader family{r, cfg, m, plan, shape, moe_shape, common, modelled, errors, h, standard_mlps};
  Errors family_errors;
  if (qwen_next) {
    family_errors = family.qwen_next();
  } else if (type == "kimi_linear") {
    family_errors = family.kimi_linear();
  } else if (type == "minimax" || type == "minimax_m1" || type == "minimax_text_01") {
    family_errors = family.minimax();
  } else if (type == "nemotron_h") {
    family_errors = family.nemotron_h();
  } else if (type == "falcon_h1") {
    family_errors = family.falcon_h1();
  } else if (type == "mimo_v2") {
    family_errors = family.mimo_v2();
  } else if (type == "jamba") {
    family_errors = family.jamba();
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
  if (!family_errors.empty()) return family_errors;
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

}  // namespace ridge::calc
