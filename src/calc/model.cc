// The figures that follow from a model's layer runs (model.h): parameters, weight bytes as
// stored, KV and recurrent state per sequence, attention FLOPs, and the text that describes them.
// Reading a config.json into the runs is model_config.cc and the model_*.cc files beside it.
#include "calc/model.h"

#include <algorithm>
#include <cmath>

#include "calc/model_reader.h"
#include "calc/units.h"

namespace ridge::calc {

using reader::d;
using reader::mlp_weights;
using reader::n;

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
        // The state is held in the checkpoint's 16-bit dtype whatever the KV dtype (vLLM's
        // mamba_cache_dtype "auto" is the model dtype), its recurrent part at ssm_bytes or the config's.
        const double sb = 2;
        const std::string sbt = "2 B";
        const double rb = recurrent_state_bytes(m, x, sb, ssm_bytes);
        const double each = (x.state - x.conv_state) * rb + x.conv_state * sb;
        if (rb == sb) {
          line += ": no KV, " + format_quantity(each, Unit::kBytes, 3) + " of state each ((" + x.state_text + ") × " + sbt + ")";
        } else {
          line += ": no KV, " + format_quantity(each, Unit::kBytes, 3) + " of state each (" + x.ssm_text + " × " +
                  format_significant(rb, 3) + " B" + (x.conv_text.empty() ? "" : " + " + x.conv_text + " × " + sbt) + ")";
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
