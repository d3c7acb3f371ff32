// The token mixers and MLPs a layer is built from: each constructor sizes one layer's weights,
// the cache it keeps per token and its fixed state per sequence, from the modelling code cited.
#include "calc/model_reader.h"
#include "calc/units.h"

namespace ridge::calc::reader {

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
  x.kv_text = '(' + n(s.kv_lora_rank) + " + " + n(s.rope);
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

}  // namespace ridge::calc::reader
