// CPU references for the kernel lab: what each CUDA kernel in kernels.cu must reproduce.
// References compute in double and round once to float, so they are the exactly rounded
// answer, not one more float implementation. Plain C++: built and tested on every machine.
//
// The *_emulation functions replay a kernel's own float arithmetic and loop structure on the
// CPU, with optional deliberate bugs. They exist to test the checker (check.h): a correct
// fp32 kernel must pass it and a buggy one must fail it, which can be shown without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ridge::kernels {

// Deterministic inputs, uniform in [lo, hi): the same sequence on every machine (splitmix64).
std::vector<float> random_floats(std::size_t n, uint64_t seed, float lo, float hi);

// c[i] = a[i] + b[i]. Precondition: a.size() == b.size().
std::vector<float> vector_add(const std::vector<float>& a, const std::vector<float>& b);

// Softmax of each row of a rows × cols row-major matrix: y = exp(x − max) / Σ exp(x − max).
std::vector<float> softmax_rows(const std::vector<float>& x, int rows, int cols);

// C = A × B with A m × k and B k × n, row-major. `magnitude` holds Σ_k |a_ik × b_kj| for
// each output: the scale of the rounding error any float accumulation of that sum may make.
struct GemmReference {
  std::vector<float> c;
  std::vector<double> magnitude;
};
GemmReference gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k);

// One output of the GEMM, for spot checks of sizes too large to compute whole on the CPU.
struct GemmEntry {
  float value;
  double magnitude;
};
GemmEntry gemm_entry(const std::vector<float>& a, const std::vector<float>& b, int n, int k, int row, int col);

// The elementwise chain: y = gelu(x × scale + shift) + residual, with the tanh form of GELU
// (Hendrycks and Gimpel, 2016): gelu(t) = 0.5 t (1 + tanh(sqrt(2/π) (t + 0.044715 t³))).
struct ChainParams {
  float scale = 1.5f;
  float shift = -0.25f;
};
std::vector<float> elementwise_chain(const std::vector<float>& x, const std::vector<float>& residual, ChainParams p);

// ---- emulations of the kernels' float arithmetic, with deliberate bugs for the checker's tests

enum class GemmBug {
  kNone,
  kReuseFirstKTile,   // every k-step loads B's first tile: invisible while k fits in one tile
  kSkipPartialKTile,  // the k loop runs floor(k / tile) tiles: invisible when tile divides k
  kSkipEdgeOutputs,   // outputs past the last full tile are never written (left 0)
  kDropOneProductPerKTile,  // each k-tile loses its last product: grows with the number of tiles
};
// The tiled kernel's loop nest: float accumulators, one fused multiply-add per product, k in
// tiles of `tile`.
std::vector<float> gemm_tiled_emulation(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                        int tile, GemmBug bug);

enum class SoftmaxBug {
  kNone,
  kNoMaxSubtraction,  // exp(x) / Σ exp(x): overflows to inf (then NaN) for large inputs
  kDropRowTail,       // the sum skips the last cols mod block elements of each row
  kHalfSum,           // the partial sums rounded to fp16 after every add (not fp32 accumulation)
};
// The softmax kernel's arithmetic: float throughout, each of `block` threads summing its own
// strided columns, then a tree across threads.
std::vector<float> softmax_emulation(const std::vector<float>& x, int rows, int cols, int block, SoftmaxBug bug);

enum class ChainBug {
  kNone,
  kErfGelu,  // the exact erf form of GELU where the kernel promised the tanh form
};
// The chain in float, as the fused kernel computes it (the unfused kernels round the same
// intermediates to float, so they agree).
std::vector<float> chain_emulation(const std::vector<float>& x, const std::vector<float>& residual, ChainParams p,
                                   ChainBug bug);

}  // namespace ridge::kernels
