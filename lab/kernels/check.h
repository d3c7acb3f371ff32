// The correctness check every kernel result goes through: an element passes when
// |actual − expected| ≤ abs + rel × scale, where scale is |expected| unless the caller gives
// one (GEMM gives Σ|a × b|, the scale of its rounding error). NaN and infinity never pass
// unless expected is the same infinity. The tolerances below are stated per kernel with the
// reasoning behind them, and lab/kernels/reference_test.cc shows each one failing a
// deliberately wrong result.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace ridge::kernels {

struct Tolerance {
  double abs = 0;
  double rel = 0;
};

struct CheckResult {
  bool ok = false;
  std::size_t checked = 0;
  std::size_t bad = 0;              // elements outside the tolerance
  std::size_t first_bad = 0;        // index of the first; meaningful when bad > 0
  double max_abs_error = 0;         // over all elements (NaN counts as infinite)
  double worst_error_ratio = 0;     // max of |error| ÷ allowed; above 1 fails
  std::string message;              // one line: "ok: 1,000,000 elements, max |error| 2.4e-07" or the first failure
};

// Compares element by element. `scale` is empty (use |expected|) or as long as `expected`.
// A size mismatch fails with a message, it is not a crash.
CheckResult check_close(std::span<const float> actual, std::span<const float> expected, Tolerance tol,
                        std::span<const double> scale = {});

// vector add: IEEE addition is correctly rounded on the CPU and the GPU alike: bit for bit.
Tolerance vector_add_tolerance();
// softmax of a row of `cols` inputs within [−8, 8], as kernels.cu computes it with
// kSoftmaxThreads threads per row: expf is within 2 ulp (CUDA Math API), x − max rounds by at
// most u |x − max| ≤ 16 u before exp, the block's sum of positive terms adds at most
// ceil(cols ÷ threads) + log2(threads) roundings, the division one: relative error at most
// (ceil(cols ÷ threads) + 8 + 20) u. Twice that, so a correct kernel cannot fail and a wrong
// sum (kDropRowTail) fails by orders of magnitude.
Tolerance softmax_tolerance(int cols);
// GEMM: any order of k float multiply-adds is within γ(k) = k u ÷ (1 − k u) of the exact sum,
// times Σ|a × b| (Higham, Accuracy and Stability of Numerical Algorithms, §3.1), u = 2^-24;
// the reference's own rounding adds u |c| ≤ u Σ|a × b|. So rel = γ(k + 1) on scale Σ|a × b|:
// a bound no correct kernel can exceed, and one product missing per tile exceeds it.
Tolerance gemm_tolerance(int k);
// elementwise chain: tanhf and the float GELU polynomial are within a few ulp of the double
// reference; 1e-5 absolute plus 1e-5 relative covers them with margin, yet the erf form of
// GELU (differing by up to about 1e-3) fails.
Tolerance chain_tolerance();

}  // namespace ridge::kernels
