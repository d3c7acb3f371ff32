// A forward pass's GEMMs by tiles and waves: see gemm_waves.h.
#include "calc/gemm_waves.h"

#include <algorithm>
#include <cmath>

namespace ridge::calc::waves {

Priced price(double m, const Gemm& g, const Tile& t, double sms, double sm_rate, double weight_bytes,
             double bandwidth) {
  Priced p;
  if (m <= 0 || g.n <= 0 || g.k <= 0 || t.m <= 0 || t.n <= 0 || sms <= 0 || sm_rate <= 0) return p;
  p.tiles = std::ceil(m / t.m) * std::ceil(g.n / t.n);
  p.waves = std::ceil(p.tiles / sms);
  const double compute = p.waves * 2 * t.m * t.n * g.k / sm_rate;
  const double read = bandwidth > 0 ? g.n * g.k * weight_bytes / bandwidth : 0;
  p.seconds = g.count * std::max(compute, read);
  return p;
}

std::vector<Gemm> dense_transformer_gemms(const ModelArch& m, double tp) {
  if (m.is_moe() || m.is_mla() || m.runs.empty() || tp <= 0) return {};
  for (const LayerRun& r : m.runs) {
    if (r.mixers.size() != 1 || r.mixers[0].kind != MixerKind::kAttention || r.mlp.kind != MlpKind::kDense ||
        r.mlp.width != m.intermediate || r.mixers[0].heads != m.heads || r.mixers[0].kv_heads != m.kv_heads) {
      return {};
    }
  }
  const double h = static_cast<double>(m.hidden), d = static_cast<double>(m.head_dim);
  const double heads = static_cast<double>(m.heads), kv = static_cast<double>(m.kv_heads);
  const double width = static_cast<double>(m.intermediate), layers = static_cast<double>(m.layers);
  std::vector<Gemm> out = {
      {"QKV", (heads + 2 * kv) * d / tp, h, layers},
      {"O", h, heads * d / tp, layers},
      {m.gated_mlp ? "gate/up" : "up", (m.gated_mlp ? 2 : 1) * width / tp, h, layers},
      {"down", h, width / tp, layers},
      {"LM head", static_cast<double>(m.vocab) / tp, h, 1},
  };
  return out;
}

}  // namespace ridge::calc::waves
