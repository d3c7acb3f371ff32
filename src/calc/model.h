// A model's architecture read from its own config.json, and what follows from it:
// total and active parameters, KV-cache elements per token and per sequence, the fixed
// recurrent state of linear-attention and state-space layers, attention FLOPs.
//
// A model is a list of layer runs: each run is `count` identical layers, described by its
// token mixer(s) and its MLP. Runs group identical layers wherever they sit, so a config
// that claims 2^24 layers still reads into a handful of runs (never one entry per layer).
// Every figure below is a sum over the runs. The flat fields of ModelArch stay as the
// summary the calculators quote (the attention layers' head shape, the MoE block's widths).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "calc/result.h"

namespace ridge::calc {

enum class MixerKind {
  kAttention,        // softmax attention over a KV cache (MHA, GQA, MQA)
  kLatentAttention,  // multi-head latent attention (DeepSeek): a compressed KV cache
  kLinearAttention,  // Gated DeltaNet, Lightning, Kimi Delta Attention: a fixed state
  kStateSpace,       // Mamba-1 / Mamba-2: a fixed SSM state and a conv state
};

// How far back an attention layer's cache reaches.
enum class CacheBound { kFull, kWindow, kChunk };

struct Mixer {
  MixerKind kind = MixerKind::kAttention;
  std::string name;                    // "full attention", "Gated DeltaNet", "Mamba-2", ...
  CacheBound bound = CacheBound::kFull;
  int64_t span = 0;                    // window or chunk size in tokens; 0 when full
  // Attention heads: query heads, KV heads, the query/key head width and the value width.
  // Latent attention: the decompressed heads (qk_nope + qk_rope, v_head_dim). Linear and
  // state-space mixers: their heads and key/value (or head/state) widths, for FLOPs.
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t qk_dim = 0;
  int64_t v_dim = 0;
  int64_t sparse_topk = 0;             // DeepSeek sparse attention: tokens each query reads
  double params = 0;                   // weights of one layer's mixer
  double kv_per_token = 0;             // cache elements per token per layer (0: no growth)
  double state = 0;                    // fixed cache elements per sequence per layer
  double conv_state = 0;               // the part of `state` that is the short convolution's window
  std::string kv_text;                 // kv_per_token as a product: "2 × 8 × 128"
  std::string state_text;              // state as a sum of products
  std::string ssm_text;                // the recurrent (temporal) part alone: "64 × 64 × 128"
  std::string conv_text;               // the convolution window alone: "6,144 × 3"
  bool operator==(const Mixer& o) const {
    return kind == o.kind && name == o.name && bound == o.bound && span == o.span && heads == o.heads &&
           kv_heads == o.kv_heads && qk_dim == o.qk_dim && v_dim == o.v_dim && params == o.params &&
           kv_per_token == o.kv_per_token && state == o.state && conv_state == o.conv_state;
  }
};

enum class MlpKind { kNone, kDense, kMoe };

struct Mlp {
  MlpKind kind = MlpKind::kNone;
  int64_t width = 0;              // dense width
  int64_t experts = 0;            // routed experts
  int64_t experts_per_token = 0;
  int64_t expert_width = 0;
  int64_t shared_width = 0;       // total width of the shared expert(s)
  double params = 0;              // dense: all of it; MoE: shared expert(s) + router
  double expert_params = 0;       // one routed expert
  bool operator==(const Mlp& o) const {
    return kind == o.kind && width == o.width && experts == o.experts && experts_per_token == o.experts_per_token &&
           expert_width == o.expert_width && shared_width == o.shared_width && params == o.params &&
           expert_params == o.expert_params;
  }
};

struct LayerRun {
  int64_t count = 0;
  int64_t first = 0;              // index of the first layer of this kind (for the order shown)
  std::vector<Mixer> mixers;      // none (an MLP-only layer), one, or two in parallel (Falcon-H1)
  Mlp mlp;
  double norm_params = 0;         // one layer's norms
  std::string describe() const;   // "Gated DeltaNet + MoE (512 experts, 10 per token)"
};

// How a checkpoint stores its weights (quantization_config; transformers' quantizers): the
// matrices of the decoder layers at `bytes` per weight plus `scale_bytes` per weight of scales
// (and zero points); the embedding, the head, the norms and the routers, and with experts_only
// everything but the routed experts, in the checkpoint's 16-bit dtype.
struct WeightFormat {
  std::string method;          // "fp8", "mxfp4", "gptq", "awq"; empty: one dtype for every weight
  double bytes = 2;            // per quantized weight
  double scale_bytes = 0;      // per quantized weight: one scale (and zero point) per block or group
  bool experts_only = false;   // mxfp4 in gpt-oss: only the routed experts are quantized
  std::string text;            // "fp8 (e4m3), one fp32 scale per 128 × 128 block"
  std::string scale_text;      // the scale overhead as a quotient: "4 B ÷ (128 × 128)"
  bool quantized() const { return !method.empty(); }
};

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
  // Warnings: keys whose effect is bounded but not modelled exactly; shown with the notes.
  std::vector<std::string> warnings;

  // The layers, grouped into runs of identical layers, in order of first appearance.
  std::vector<LayerRun> runs;
  std::string family;  // the reader used ("llama", "qwen3_next", ...)

  // Bytes per element of the state-space layers' recurrent (SSM) state when the config names its
  // dtype (Nemotron-H's mamba_ssm_cache_dtype float32: 4); 0 when the state is held at the state
  // cache's dtype (the model's bf16, whatever the KV dtype). The convolution window stays at that
  // dtype either way (vLLM mamba_utils.py,
  // MambaStateDtypeCalculator.mamba2_state_dtype: conv state in mamba_cache_dtype, temporal state in
  // mamba_ssm_cache_dtype).
  double ssm_state_bytes = 0;

  // Weights as shipped (quantization_config): "fp8", "mxfp4 (experts)", "int4 awq"...; empty
  // when the checkpoint is in its torch_dtype.
  std::string shipped_quantization;
  WeightFormat shipped;
  // A quantization_config ridge cannot size (an unknown quant_method): reported by a calculator
  // that sizes the weights as shipped, not by the parser, so --weights-dtype still works.
  Errors shipped_errors;

  bool is_moe() const { return routed_experts > 0; }
  bool has_sliding_window() const { return sliding_window > 0 && sliding_layers > 0; }
  bool is_mla() const { return kv_lora_rank > 0; }
  int64_t dense_layers() const { return layers - moe_layers; }
  // Layers whose cache grows with the context (attention of any bound).
  int64_t cache_layers() const;
  // True when some layer keeps a fixed recurrent state (linear attention, state space).
  bool has_state() const;
  bool is_hybrid() const;  // layers of more than one mixer kind
  // Every layer full attention (or latent): the cache is KV per token × context exactly.
  bool cache_is_per_token_times_context() const;
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
  double experts_total = 0;    // all routed experts of all MoE layers
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

// Parameters by how a quantized checkpoint stores them.
struct WeightSplit {
  double experts = 0;   // the routed experts of every MoE layer
  double matrices = 0;  // every other weight of the layers: attention, dense MLPs, shared experts, mixers
  double kept = 0;      // embedding, head, norms and routers, never quantized
};
WeightSplit split_weights(const ModelArch& m);
// Bytes of every weight stored in `f`: quantized weights at bytes + scale_bytes, kept ones at
// `kept_bytes` (the checkpoint's bf16). Biases and the few non-matrix weights of the layers
// (convolutions, per-head constants) are counted with their matrices.
double weight_bytes(const ModelArch& m, const WeightFormat& f, double kept_bytes = 2);

// KV-cache elements per token, summed over the layers that keep a cache (linear-attention and
// SSM layers keep none): 2 × layers × kv_heads × head_dim for uniform attention, layers ×
// (kv_lora_rank + qk_rope_head_dim) for latent attention. Window and chunk layers count in full
// here; kv_elements_per_sequence applies their bounds. Multiply by the cache dtype's bytes.
double kv_elements_per_token(const ModelArch& m);

// KV-cache elements one sequence of `context` tokens holds, a sum over the runs: full-attention
// layers keep every token, sliding-window layers at most their window, chunked layers at most
// one chunk. Equals kv_elements_per_token × context when every layer is full attention or the
// context fits every bound. Fixed recurrent state is apart: state_elements_per_sequence.
double kv_elements_per_sequence(const ModelArch& m, double context);

// Fixed cache elements per sequence whatever its length: the recurrent state of linear
// attention and the SSM + conv state of state-space layers. 0 for pure attention models.
double state_elements_per_sequence(const ModelArch& m);

// Bytes of that state per sequence: the convolution windows at `cache_bytes` per element, the
// recurrent state of state-space (Mamba) layers at `ssm_bytes` when positive, else at the config's
// ssm_state_bytes when it names one, else at `cache_bytes`; linear-attention states at `ssm_bytes`
// when positive, else at `cache_bytes`.
double state_bytes_per_sequence(const ModelArch& m, double cache_bytes, double ssm_bytes = 0);
// The bytes per element a mixer's recurrent state is held at under those rules.
double recurrent_state_bytes(const ModelArch& m, const Mixer& x, double cache_bytes, double ssm_bytes = 0);

// FLOPs of the attention core (QKᵀ and AV; the linear-attention and SSM state updates) in the
// forward pass of one causal sequence of `tokens` tokens, summed over the layers, each with its
// own bound: full attention s²/2 query-key pairs, a window w about w·s, a chunk c about c·s/2,
// a sparse top-k at most k per query. Per pair: 2 FLOP × heads × (qk_dim + v_dim).
double attention_flops_per_sequence(const ModelArch& m, double tokens);
// The same for one decode step at position `context` (one query over its cache).
double attention_flops_per_decode_token(const ModelArch& m, double context);

// Parameters one decode step reads for a batch of `batch` tokens: everything but the routed
// experts no token of the batch picks, with uniform routing E × (1 − (1 − k/E)^batch) experts
// touched per MoE layer (each MoE run with its own E and k).
double params_read_per_decode_step(const ModelArch& m, double batch);

// Residual blocks over all layers, each ending in a tensor-parallel all-reduce: a mixer (or two
// in parallel) and an MLP per layer, 2 × layers for a transformer; one per layer for Nemotron-H,
// whose layers are a mixer or an MLP.
int64_t residual_blocks(const ModelArch& m);

// One line per run kind for a derivation ("36 Gated DeltaNet layers: no KV, 1.0 MB of state
// each at 2 B; 12 full-attention layers: 2 × 2 × 256 per token each").
// KV at `bytes_per_element`; recurrent state at the model's bf16, its SSM part at `ssm_bytes` as for
// state_bytes_per_sequence.
std::vector<std::string> describe_runs(const ModelArch& m, double bytes_per_element, double ssm_bytes = 0);

// The formula and the numbers in it, for a derivation's step.
std::string kv_formula(const ModelArch& m);
std::string kv_substituted(const ModelArch& m, double bytes_per_element);

}  // namespace ridge::calc
