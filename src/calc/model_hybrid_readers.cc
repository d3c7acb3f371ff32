// The readers of the hybrid families: each turns its config.json keys into the layer plan (the
// mixer and MLP kinds and which layer is which), with the defaults of its transformers
// configuration class (cited per family). The attention-only families stay in
// model_config.cc; the shared steps are in model_reader.h.
#include <map>

#include "calc/model_reader.h"
#include "calc/units.h"

namespace ridge::calc::reader {

Errors FamilyReader::qwen_next() {
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
  return {};
}

Errors FamilyReader::kimi_linear() {
  // moonshotai/Kimi-Linear configuration_kimi.py: linear_attn_config lists the KDA and the
  // full (MLA) layers, 1-based; MLA as DeepSeek-V3.
  const json* lin = r.find("linear_attn_config");
  if (lin == nullptr || !lin->is_object()) {
    return Errors{FieldError{"config.json:linear_attn_config", lin ? quote(*lin) : "", "is missing or not an object",
                      "an object with kda_layers, full_attn_layers, num_heads, head_dim, short_conv_kernel_size"}};
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
    return Errors{FieldError{"config.json:linear_attn_config", std::to_string(listed) + " layers listed",
                      "does not name every layer once in kda_layers and full_attn_layers",
                      n(m.layers) + " layers (num_hidden_layers)"}};
  }
  plan.mixer_list.assign(static_cast<size_t>(m.layers), -1);
  for (const auto& [key, kind] : {std::pair<const char*, int>{"full_attn_layers", 0}, {"kda_layers", 1}}) {
    auto it = lin->find(key);
    if (it == lin->end() || !it->is_array() || static_cast<int64_t>(it->size()) > m.layers) {
      return Errors{FieldError{std::string("config.json:linear_attn_config.") + key, it == lin->end() ? "" : quote(*it),
                        "is missing or lists more layers than the model has", "1-based layer numbers"}};
    }
    for (const auto& v : *it) {
      int64_t l = v.is_number_integer() ? v.get<int64_t>() - 1 : -1;
      if (l < 0 || l >= m.layers || plan.mixer_list[static_cast<size_t>(l)] != -1) {
        return Errors{FieldError{std::string("config.json:linear_attn_config.") + key, quote(v),
                          "is not a layer number, or names a layer twice", "1.." + n(m.layers) + ", each layer once"}};
      }
      plan.mixer_list[static_cast<size_t>(l)] = kind;
    }
  }
  for (size_t l = 0; l < plan.mixer_list.size(); ++l) {
    if (plan.mixer_list[l] == -1) {
      return Errors{FieldError{"config.json:linear_attn_config", "layer " + std::to_string(l + 1),
                        "is in neither kda_layers nor full_attn_layers", "every layer in one of the two lists"}};
    }
  }
  modelled.insert({"linear_attn_config", "mla_use_nope"});
  standard_mlps();
  return {};
}

Errors FamilyReader::minimax() {
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
    return Errors{FieldError{"config.json:attn_type_list", "", "is missing",
                      "attn_type_list (0 = Lightning attention, 1 = softmax) or layer_types for every layer"}};
  }
  read_layer_list(*list, key, m.layers, [](const json& v) {
    if (v.is_number_integer()) return v.get<int64_t>() == 1 ? 0 : v.get<int64_t>() == 0 ? 1 : -1;
    return str(v) == "full_attention" ? 0 : str(v) == "linear_attention" ? 1 : -1;
  }, "0 (Lightning) or 1 (softmax); full_attention or linear_attention", plan.mixer_list, errors);
  modelled.insert({"attn_type_list", "layernorm_full_attention_alpha", "layernorm_full_attention_beta",
                   "layernorm_linear_attention_alpha", "layernorm_linear_attention_beta", "block_size"});
  standard_mlps();
  return {};
}

Errors FamilyReader::nemotron_h() {
  const json* pattern_text = r.find("hybrid_override_pattern");
  // transformers models/nemotron_h/configuration_nemotron_h.py: hybrid_override_pattern, one
  // block per layer: M Mamba-2, * attention, - MLP (squared ReLU, not gated), E MoE. Defaults
  // 128 Mamba heads of 64, state 128, 8 groups, conv 4 with bias, no projection bias.
  if (pattern_text == nullptr || !pattern_text->is_string()) {
    return Errors{FieldError{"config.json:hybrid_override_pattern", pattern_text ? quote(*pattern_text) : "", "is missing",
                      "a string of M (Mamba-2), * (attention), - (MLP), E (MoE), one per layer"}};
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
    return Errors{FieldError{"config.json:hybrid_override_pattern", std::to_string(pat.size()) + " characters",
                      "does not give one block per layer", n(m.layers) + " characters (num_hidden_layers)"}};
  }
  for (size_t i = 0; i < pat.size(); ++i) {
    const char c = pat[i];
    if (c != 'M' && c != '*' && c != '-' && !(c == 'E' && m.routed_experts > 0)) {
      return Errors{FieldError{"config.json:hybrid_override_pattern[" + std::to_string(i) + "]", std::string(1, c),
                        "is a block ridge does not model" + std::string(c == 'E' ? " (E without n_routed_experts)" : ""),
                        "M (Mamba-2), * (attention), - (MLP), E (MoE)"}};
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
      return Errors{FieldError{"config.json:mamba_ssm_cache_dtype", ssm_dtype, "is not a state dtype ridge sizes",
                        "auto, float32, float16, bfloat16"}};
    }
    m.ssm_state_bytes = it->second;
    m.notes.push_back("mamba_ssm_cache_dtype " + ssm_dtype + ": the Mamba-2 layers' SSM state is held at " +
                      format_significant(it->second, 3) + " B per element (the convolution window at the cache dtype)");
  }
  return {};
}

Errors FamilyReader::falcon_h1() {
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
  return {};
}

Errors FamilyReader::mimo_v2() {
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
    return Errors{FieldError{"config.json:attention_chunk_size", n(c), "differs from sliding_window (" + n(m.sliding_window) + ")",
                      "MiMo-V2's chunk equal to its window (a chunked bound of its own is not modelled)"}};
  }
  plan.mixer_kinds = {{attention_mixer(h, full, CacheBound::kFull, 0)},
                      {attention_mixer(h, swa, CacheBound::kWindow, m.sliding_window)}};
  const json* pattern = list_key(*cfg, "hybrid_layer_pattern");
  if (pattern == nullptr) {
    return Errors{FieldError{"config.json:hybrid_layer_pattern", "", "is missing", "1 (sliding window) or 0 (full) per layer"}};
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
  return {};
}

Errors FamilyReader::jamba() {
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
  return {};
}

}  // namespace ridge::calc::reader
