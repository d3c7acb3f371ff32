// A model's architecture read from its own config.json, and what follows from it:
// total and active parameters, and KV-cache elements per token. Handles dense models,
// GQA and MQA, tied and untied embeddings, mixture-of-experts (routed and shared experts,
// dense first layers) and multi-head latent attention (DeepSeek's kv_lora_rank).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "calc/result.h"

namespace ridge::calc {

struct ModelArch {
  std::string id;          // catalog id or the config's path
  std::string model_type;  // as in config.json ("llama", "deepseek_v3", ...)
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate = 0;  // dense MLP width
  int64_t vocab = 0;
  bool tied_embeddings = false;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool qk_norm = false;
  bool gated_mlp = true;

  // Mixture of experts. routed_experts == 0 means dense.
  int64_t routed_experts = 0;
  int64_t shared_experts = 0;
  int64_t experts_per_token = 0;
  int64_t expert_intermediate = 0;         // one routed expert's MLP width
  int64_t shared_expert_intermediate = 0;  // total width of the shared expert(s)
  int64_t moe_layers = 0;                  // layers whose MLP is a MoE block
  bool router_bias = false;

  // Multi-head latent attention. kv_lora_rank > 0 means MLA.
  int64_t q_lora_rank = 0;
  int64_t kv_lora_rank = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;

  int64_t sliding_window = 0;  // 0 when every layer attends to the full context
  // Layers whose attention is bounded by the window (layer_types "sliding_attention",
  // gemma's sliding_window_pattern, Qwen's max_window_layers; every layer when the config
  // gives a window and nothing else). 0 when sliding_window is 0.
  int64_t sliding_layers = 0;
  int64_t max_position_embeddings = 0;  // 0 when the config does not say

  // Choices made while reading, stated as assumptions in every derivation.
  std::vector<std::string> notes;

  bool is_moe() const { return routed_experts > 0; }
  bool has_sliding_window() const { return sliding_window > 0 && sliding_layers > 0; }
  bool is_mla() const { return kv_lora_rank > 0; }
  int64_t dense_layers() const { return layers - moe_layers; }
};

struct ParamCount {
  double embedding = 0;        // input embedding table
  double lm_head = 0;          // 0 when tied
  double attention_per_layer = 0;
  double dense_mlp_per_layer = 0;
  double expert = 0;           // one routed expert
  double shared_per_moe_layer = 0;
  double router_per_layer = 0;
  double norms = 0;            // all layer norms plus the final norm
  double total = 0;
  double active = 0;           // per token: shared weights plus experts_per_token experts
};

// Parses a config.json's text. `id` names it in errors and results. Errors name the key
// ("num_key_value_heads") and what is accepted. A nested text_config (multimodal models)
// is read for the language model.
// The deepest nesting of arrays and objects in a JSON text, counted without parsing, so a
// hostile text cannot make a parser (or an error message's dump) recurse.
int json_nesting_depth(std::string_view text);

// Refused before parsing: more than kMaxConfigBytes, UTF-16, nesting deeper than 32.
inline constexpr size_t kMaxConfigBytes = 4u << 20;
Result<ModelArch> parse_model_config(std::string_view json_text, std::string_view id);

ParamCount count_params(const ModelArch& m);

// KV-cache elements per token over all layers: 2 × layers × kv_heads × head_dim, or
// layers × (kv_lora_rank + qk_rope_head_dim) for latent attention. Multiply by the
// cache dtype's bytes.
double kv_elements_per_token(const ModelArch& m);

// KV-cache elements one sequence of `context` tokens holds: full-attention layers keep
// every token, sliding-window layers at most `sliding_window` of them. Equals
// kv_elements_per_token × context when the model has no window or the context fits it.
double kv_elements_per_sequence(const ModelArch& m, double context);

// The formula and the numbers in it, for a derivation's step.
std::string kv_formula(const ModelArch& m);
std::string kv_substituted(const ModelArch& m, double bytes_per_element);

}  // namespace ridge::calc
