#include "reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ridge::kernels {
namespace {

constexpr double kGeluC = 0.7978845608028654;  // sqrt(2 / π)
constexpr double kGeluA = 0.044715;

double gelu_tanh(double t) { return 0.5 * t * (1.0 + std::tanh(kGeluC * (t + kGeluA * t * t * t))); }

// The float expression the CUDA kernels evaluate (kernels.cu, gelu()).
float gelu_tanh_float(float t) {
  const float inner = 0.7978845608f * std::fma(0.044715f * t, t * t, t);
  return 0.5f * t * (1.0f + std::tanh(inner));
}

float gelu_erf_float(float t) { return 0.5f * t * (1.0f + std::erf(t * 0.70710678f)); }

// Rounds to fp16's 11-bit significand (round half to even); the range is not limited, which
// the sums the emulation rounds never need.
float round_to_half(float v) {
  if (v == 0.0f || !std::isfinite(v)) return v;
  int exponent = 0;
  const float significand = std::frexp(v, &exponent);  // in [0.5, 1)
  return std::ldexp(std::nearbyint(std::ldexp(significand, 11)), exponent - 11);
}

}  // namespace

std::vector<float> random_floats(std::size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> out(n);
  uint64_t state = seed;
  for (auto& v : out) {
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const double unit = static_cast<double>(z >> 40) * 0x1.0p-24;  // 24 bits: exact in float
    v = static_cast<float>(lo + (hi - lo) * unit);
  }
  return out;
}

std::vector<float> vector_add(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(a.size());
  // A float sum is correctly rounded, so the double detour changes nothing: the GPU must match bit for bit.
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = static_cast<float>(static_cast<double>(a[i]) + b[i]);
  return c;
}

std::vector<float> softmax_rows(const std::vector<float>& x, int rows, int cols) {
  std::vector<float> y(x.size());
  std::vector<double> e(static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r) {
    const float* in = x.data() + static_cast<std::size_t>(r) * cols;
    float* out = y.data() + static_cast<std::size_t>(r) * cols;
    const double max = *std::max_element(in, in + cols);
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += e[c] = std::exp(in[c] - max);
    for (int c = 0; c < cols; ++c) out[c] = static_cast<float>(e[c] / sum);
  }
  return y;
}

GemmReference gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  GemmReference out;
  out.c.assign(static_cast<std::size_t>(m) * n, 0.0f);
  out.magnitude.assign(static_cast<std::size_t>(m) * n, 0.0);
  std::vector<double> acc(static_cast<std::size_t>(n));
  for (int i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    double* mag = out.magnitude.data() + static_cast<std::size_t>(i) * n;
    for (int p = 0; p < k; ++p) {
      const double aip = a[static_cast<std::size_t>(i) * k + p];
      const float* brow = b.data() + static_cast<std::size_t>(p) * n;
      for (int j = 0; j < n; ++j) {
        // A product of two floats is exact in double; only the sum rounds, far below float's.
        const double prod = aip * brow[j];
        acc[j] += prod;
        mag[j] += std::fabs(prod);
      }
    }
    for (int j = 0; j < n; ++j) out.c[static_cast<std::size_t>(i) * n + j] = static_cast<float>(acc[j]);
  }
  return out;
}

GemmEntry gemm_entry(const std::vector<float>& a, const std::vector<float>& b, int n, int k, int row, int col) {
  double acc = 0, mag = 0;
  for (int p = 0; p < k; ++p) {
    const double prod = static_cast<double>(a[static_cast<std::size_t>(row) * k + p]) * b[static_cast<std::size_t>(p) * n + col];
    acc += prod;
    mag += std::fabs(prod);
  }
  return {static_cast<float>(acc), mag};
}

std::vector<float> elementwise_chain(const std::vector<float>& x, const std::vector<float>& residual, ChainParams p) {
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(x[i]) * p.scale + p.shift;
    y[i] = static_cast<float>(gelu_tanh(t) + residual[i]);
  }
  return y;
}

std::vector<float> gemm_tiled_emulation(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                        int tile, GemmBug bug) {
  std::vector<float> c(static_cast<std::size_t>(m) * n, 0.0f);
  const int k_tiles = bug == GemmBug::kSkipPartialKTile ? k / tile : (k + tile - 1) / tile;
  const int m_limit = bug == GemmBug::kSkipEdgeOutputs ? m / tile * tile : m;
  const int n_limit = bug == GemmBug::kSkipEdgeOutputs ? n / tile * tile : n;
  for (int i = 0; i < m_limit; ++i) {
    for (int j = 0; j < n_limit; ++j) {
      float acc = 0.0f;
      for (int t = 0; t < k_tiles; ++t) {
        const int b_tile = bug == GemmBug::kReuseFirstKTile ? 0 : t;
        int end = std::min(tile, k - t * tile);
        if (bug == GemmBug::kDropOneProductPerKTile) end -= 1;
        for (int kk = 0; kk < end; ++kk) {
          // Out-of-range tile entries are zero-filled in shared memory, as in the kernel.
          const float av = a[static_cast<std::size_t>(i) * k + t * tile + kk];
          const int b_row = b_tile * tile + kk;
          const float bv = b_row < k ? b[static_cast<std::size_t>(b_row) * n + j] : 0.0f;
          acc = std::fma(av, bv, acc);
        }
      }
      c[static_cast<std::size_t>(i) * n + j] = acc;
    }
  }
  return c;
}

std::vector<float> softmax_emulation(const std::vector<float>& x, int rows, int cols, int block, SoftmaxBug bug) {
  std::vector<float> y(x.size());
  std::vector<float> partial(static_cast<std::size_t>(block));
  const int summed = bug == SoftmaxBug::kDropRowTail ? cols / block * block : cols;
  for (int r = 0; r < rows; ++r) {
    const float* in = x.data() + static_cast<std::size_t>(r) * cols;
    float* out = y.data() + static_cast<std::size_t>(r) * cols;
    float max = -std::numeric_limits<float>::infinity();
    if (bug != SoftmaxBug::kNoMaxSubtraction) {
      for (int c = 0; c < cols; ++c) max = std::max(max, in[c]);
    } else {
      max = 0.0f;
    }
    std::fill(partial.begin(), partial.end(), 0.0f);
    const bool half = bug == SoftmaxBug::kHalfSum;
    auto add = [half](float& acc, float v) { acc = half ? round_to_half(acc + v) : acc + v; };
    for (int c = 0; c < summed; ++c) add(partial[c % block], std::exp(in[c] - max));
    // The block's tree: halves until one value is left.
    for (int width = block / 2; width > 0; width /= 2) {
      for (int t = 0; t < width; ++t) add(partial[t], partial[t + width]);
    }
    const float sum = partial[0];
    for (int c = 0; c < cols; ++c) out[c] = std::exp(in[c] - max) / sum;
  }
  return y;
}

std::vector<float> chain_emulation(const std::vector<float>& x, const std::vector<float>& residual, ChainParams p,
                                   ChainBug bug) {
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float t = std::fma(x[i], p.scale, p.shift);
    const float g = bug == ChainBug::kErfGelu ? gelu_erf_float(t) : gelu_tanh_float(t);
    y[i] = g + residual[i];
  }
  return y;
}

}  // namespace ridge::kernels
