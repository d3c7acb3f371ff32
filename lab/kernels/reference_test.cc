// The CPU references against hand-worked values, and the checker against deliberately wrong
// results: a correct float implementation must pass it and each planted bug must fail it at
// the sizes kernel_bench checks (many tiles, sizes no tile or block divides). Runs
// everywhere as ctest kernels.reference; no GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "check.h"
#include "kernels.h"
#include "reference.h"

namespace ridge::kernels {
namespace {

// ---------------------------------------------------------------- references

TEST(Reference, RandomFloatsAreDeterministicAndInRange) {
  auto a = random_floats(10000, 7, -1.0f, 1.0f);
  auto b = random_floats(10000, 7, -1.0f, 1.0f);
  auto c = random_floats(10000, 8, -1.0f, 1.0f);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (float v : a) {
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
  }
  // Uniform: the mean of 10,000 draws is within 4 standard errors (0.577 ÷ 100) of 0.
  const double mean = std::accumulate(a.begin(), a.end(), 0.0) / a.size();
  EXPECT_NEAR(mean, 0.0, 0.023);
}

TEST(Reference, VectorAddIsTheFloatSum) {
  auto c = vector_add({1.0f, 2.5f, -3.0f}, {0.5f, 0.25f, 3.0f});
  EXPECT_EQ(c, (std::vector<float>{1.5f, 2.75f, 0.0f}));
  // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: round to even gives 1, as the GPU does.
  EXPECT_EQ(vector_add({1.0f}, {0x1.0p-24f})[0], 1.0f);
}

TEST(Reference, SoftmaxHandValues) {
  // Row [0, ln 3]: e^0 = 1, e^ln3 = 3, sum 4: [0.25, 0.75]. Row of equal values: 1/4 each.
  auto y = softmax_rows({0.0f, std::log(3.0f), 2.0f, 2.0f, 2.0f, 2.0f}, 1, 2);
  EXPECT_NEAR(y[0], 0.25f, 1e-7);
  EXPECT_NEAR(y[1], 0.75f, 1e-7);
  auto flat = softmax_rows({2.0f, 2.0f, 2.0f, 2.0f}, 1, 4);
  for (float v : flat) EXPECT_FLOAT_EQ(v, 0.25f);
  // [1000, 1000]: exp(1000) overflows a double, exp(1000 − max) does not: [0.5, 0.5].
  auto big = softmax_rows({1000.0f, 1000.0f, 0.0f, 1.0f}, 2, 2);
  EXPECT_FLOAT_EQ(big[0], 0.5f);
  EXPECT_FLOAT_EQ(big[1], 0.5f);
  // Row [0, 1]: 1 ÷ (1 + e) = 0.268941, e ÷ (1 + e) = 0.731059.
  EXPECT_NEAR(big[3], 0.7310585786, 1e-7);
}

TEST(Reference, GemmHandValues) {
  // [1 2 3; 4 5 6] × [7 8; 9 10; 11 12] = [58 64; 139 154]; Σ|ab| = the same (all positive).
  auto r = gemm({1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, 2, 2, 3);
  EXPECT_EQ(r.c, (std::vector<float>{58, 64, 139, 154}));
  EXPECT_EQ(r.magnitude, (std::vector<double>{58, 64, 139, 154}));
  // With a sign: [1 −2] × [3; 4] = 3 − 8 = −5, Σ|ab| = 11.
  auto s = gemm({1, -2}, {3, 4}, 1, 1, 2);
  EXPECT_EQ(s.c[0], -5.0f);
  EXPECT_EQ(s.magnitude[0], 11.0);
  auto entry = gemm_entry({1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, 2, 3, 1, 0);
  EXPECT_EQ(entry.value, 139.0f);
}

TEST(Reference, ChainHandValues) {
  // x = 0 with scale 1, shift 0: gelu(0) = 0, y = residual.
  auto zero = elementwise_chain({0.0f}, {0.75f}, {1.0f, 0.0f});
  EXPECT_EQ(zero[0], 0.75f);
  // t = 1.5 × 1 − 0.5 = 1: gelu_tanh(1) = 0.5 (1 + tanh(0.797885 × 1.044715)) = 0.841192.
  auto one = elementwise_chain({1.0f}, {0.0f}, {1.5f, -0.5f});
  EXPECT_NEAR(one[0], 0.8411919906, 1e-7);
  // t = −1: −0.158808; plus residual 1.
  auto neg = elementwise_chain({-1.0f}, {1.0f}, {1.0f, 0.0f});
  EXPECT_NEAR(neg[0], 1.0 - 0.1588080094, 1e-7);
}

// ---------------------------------------------------------------- the checker itself

TEST(Checker, PassesAnExactCopyAndSaysSo) {
  std::vector<float> v = random_floats(1000, 1, -1, 1);
  CheckResult r = check_close(v, v, {0, 0});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.checked, 1000u);
  EXPECT_EQ(r.message.rfind("ok:", 0), 0u) << r.message;
}

TEST(Checker, FindsOneWrongElement) {
  std::vector<float> expected = random_floats(1000, 1, -1, 1);
  std::vector<float> actual = expected;
  actual[637] += 1e-3f;
  CheckResult r = check_close(actual, expected, {1e-4, 0});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad, 1u);
  EXPECT_EQ(r.first_bad, 637u);
  EXPECT_NE(r.message.find("element 637"), std::string::npos) << r.message;
  EXPECT_GT(r.worst_error_ratio, 1.0);
}

TEST(Checker, NanNeverPassesAndInfinityOnlyMatchesItself) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(check_close(std::vector<float>{nan}, std::vector<float>{1.0f}, {1e9, 1e9}).ok);
  EXPECT_FALSE(check_close(std::vector<float>{nan}, std::vector<float>{nan}, {1e9, 1e9}).ok);
  EXPECT_TRUE(check_close(std::vector<float>{inf}, std::vector<float>{inf}, {0, 0}).ok);
  EXPECT_FALSE(check_close(std::vector<float>{inf}, std::vector<float>{-inf}, {1e9, 1e9}).ok);
  EXPECT_FALSE(check_close(std::vector<float>{inf}, std::vector<float>{3.0f}, {1e9, 1e9}).ok);
}

TEST(Checker, SizeMismatchFailsWithAMessage) {
  CheckResult r = check_close(std::vector<float>(3), std::vector<float>(4), {1, 1});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("size mismatch"), std::string::npos);
  std::vector<double> scale(2);
  EXPECT_FALSE(check_close(std::vector<float>(3), std::vector<float>(3), {1, 1}, scale).ok);
}

TEST(Checker, ScaleReplacesTheExpectedMagnitude) {
  // |1.1 − 1| = 0.1: fails at rel 0.01 of |expected| = 0.01, passes at rel 0.01 of scale 20.
  std::vector<float> actual{1.1f}, expected{1.0f};
  EXPECT_FALSE(check_close(actual, expected, {0, 0.01}).ok);
  EXPECT_TRUE(check_close(actual, expected, {0, 0.01}, std::vector<double>{20.0}).ok);
}

// ---------------------------------------------------------------- vector add

TEST(CheckerVectorAdd, ALostTailFails) {
  // n = 1,000,003 is no multiple of the 256-thread block: a launch of n ÷ 256 blocks rounded
  // down (3,906 × 256 = 999,936) never writes the last 67. Exact tolerance catches any difference.
  const std::size_t n = 1000003;
  auto a = random_floats(n, 11, -1, 1), b = random_floats(n, 12, -1, 1);
  auto expected = vector_add(a, b);
  EXPECT_TRUE(check_close(expected, expected, vector_add_tolerance()).ok);
  auto lost = expected;
  for (std::size_t i = n / kElementwiseThreads * kElementwiseThreads; i < n; ++i) lost[i] = 0;
  CheckResult r = check_close(lost, expected, vector_add_tolerance());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad, 67u);
  EXPECT_EQ(r.first_bad, 999936u);
  // One ulp off anywhere fails too.
  auto ulp = expected;
  ulp[12345] = std::nextafter(ulp[12345], 2.0f);
  EXPECT_FALSE(check_close(ulp, expected, vector_add_tolerance()).ok);
}

// ---------------------------------------------------------------- softmax

TEST(CheckerSoftmax, AFloatKernelPassesAtOddSizes) {
  // The kernel's own float arithmetic (256 strided partial sums, then a tree) against the
  // double reference: rows of 1,000 (not a multiple of 256), of 7 (fewer than the threads)
  // and one long row of 20,011.
  for (auto [rows, cols] : {std::pair{300, 1000}, std::pair{50, 7}, std::pair{2, 20011}}) {
    auto x = random_floats(static_cast<std::size_t>(rows) * cols, 21, -8, 8);
    CheckResult r = check_close(softmax_emulation(x, rows, cols, kSoftmaxThreads, SoftmaxBug::kNone),
                                softmax_rows(x, rows, cols), softmax_tolerance(cols));
    EXPECT_TRUE(r.ok) << rows << " × " << cols << ": " << r.message;
    EXPECT_LT(r.worst_error_ratio, 0.5) << "the margin is thinner than the tolerance's reasoning says";
  }
}

TEST(CheckerSoftmax, ADroppedRowTailFailsWhereTheBlockDoesNotDivideTheRow) {
  // Summing only the first floor(cols ÷ 256) × 256 elements: at cols 1,000 the last 232 are
  // missing from every row's sum.
  auto x = random_floats(300 * 1000, 22, -8, 8);
  CheckResult r = check_close(softmax_emulation(x, 300, 1000, kSoftmaxThreads, SoftmaxBug::kDropRowTail),
                              softmax_rows(x, 300, 1000), softmax_tolerance(1000));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad, 300u * 1000u);
  // The same bug is invisible at cols 1,024: why the check sizes include a non-multiple.
  auto x2 = random_floats(10 * 1024, 23, -8, 8);
  EXPECT_TRUE(check_close(softmax_emulation(x2, 10, 1024, kSoftmaxThreads, SoftmaxBug::kDropRowTail),
                          softmax_rows(x2, 10, 1024), softmax_tolerance(1024))
                  .ok);
}

TEST(CheckerSoftmax, HalfPrecisionAccumulationFails) {
  // The kernel must accumulate in fp32. Partial sums rounded to fp16 (u = 2^-11, ~4.9e-4)
  // err by about 1e-3 of the sum; the tolerance at 1,000 columns is 2 × 32 × 2^-24 = 3.8e-6.
  auto x = random_floats(300 * 1000, 25, -8, 8);
  CheckResult r = check_close(softmax_emulation(x, 300, 1000, kSoftmaxThreads, SoftmaxBug::kHalfSum),
                              softmax_rows(x, 300, 1000), softmax_tolerance(1000));
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.bad, 300u * 1000u / 2) << r.message;
}

TEST(CheckerSoftmax, NoMaxSubtractionFailsOnLargeInputs) {
  // Inputs in [80, 100]: exp(100) > FLT_MAX, so the sum is inf and outputs 0 or NaN.
  auto x = random_floats(4 * 512, 24, 80, 100);
  CheckResult r = check_close(softmax_emulation(x, 4, 512, kSoftmaxThreads, SoftmaxBug::kNoMaxSubtraction),
                              softmax_rows(x, 4, 512), softmax_tolerance(512));
  EXPECT_FALSE(r.ok);
}

// ---------------------------------------------------------------- GEMM

struct GemmCase {
  int m, n, k;
};

CheckResult check_tiled(GemmCase s, GemmBug bug, uint64_t seed = 31) {
  auto a = random_floats(static_cast<std::size_t>(s.m) * s.k, seed, -1, 1);
  auto b = random_floats(static_cast<std::size_t>(s.k) * s.n, seed + 1, -1, 1);
  auto ref = gemm(a, b, s.m, s.n, s.k);
  return check_close(gemm_tiled_emulation(a, b, s.m, s.n, s.k, kGemmTile, bug), ref.c, gemm_tolerance(s.k),
                     ref.magnitude);
}

// 200 = 6 × 32 + 8 rows and columns, k = 1,000 = 31 × 32 + 8: 7 × 7 output tiles, 32 k-tiles,
// partial tiles on every edge. kernel_bench checks 1,000³ the same way.
constexpr GemmCase kManyTiles{200, 200, 1000};

TEST(CheckerGemm, TheTiledFloatKernelPasses) {
  for (GemmCase s : {kManyTiles, GemmCase{64, 64, 64}, GemmCase{33, 65, 17}, GemmCase{1, 1, 1}}) {
    CheckResult r = check_tiled(s, GemmBug::kNone);
    EXPECT_TRUE(r.ok) << s.m << "×" << s.n << "×" << s.k << ": " << r.message;
  }
}

TEST(CheckerGemm, ALongSequentialFloatSumStaysInsideTheBound) {
  // One tile as wide as k: a single float accumulator over 8,192 products, the naive kernel's
  // loop. γ(k) bounds it whatever the order; the check must not fail a correct kernel.
  const int k = 8192;
  auto a = random_floats(4 * static_cast<std::size_t>(k), 41, -1, 1);
  auto b = random_floats(static_cast<std::size_t>(k) * 4, 42, -1, 1);
  auto ref = gemm(a, b, 4, 4, k);
  CheckResult r = check_close(gemm_tiled_emulation(a, b, 4, 4, k, k, GemmBug::kNone), ref.c, gemm_tolerance(k), ref.magnitude);
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(CheckerGemm, ABugThatScalesWithTheTilesFailsOnlyWhereThereAreMany) {
  // Reading B's first k-tile for every k-step is right while k fits in one tile (k = 32) and
  // wrong for 31 of the 32 k-tiles at k = 1,000: why the check sizes span many tiles.
  EXPECT_TRUE(check_tiled({32, 32, 32}, GemmBug::kReuseFirstKTile).ok);
  CheckResult r = check_tiled(kManyTiles, GemmBug::kReuseFirstKTile);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.bad, 200u * 200u * 9 / 10) << r.message;
}

TEST(CheckerGemm, OneProductLostPerTileFails) {
  // Losing the last product of each k-tile: 32 products of ~0.25 magnitude per output, far
  // above γ(1,001) × Σ|ab| ≈ 6e-5 × 250 = 0.015.
  CheckResult r = check_tiled(kManyTiles, GemmBug::kDropOneProductPerKTile);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.bad, 200u * 200u * 9 / 10) << r.message;
  // Even one tile's worth (k = 32, one product lost) fails.
  EXPECT_FALSE(check_tiled({32, 32, 32}, GemmBug::kDropOneProductPerKTile).ok);
}

TEST(CheckerGemm, EdgeBugsFailAtSizesNoTileDivides) {
  // The partial last k-tile skipped: 8 of 1,000 products missing from every output.
  EXPECT_FALSE(check_tiled(kManyTiles, GemmBug::kSkipPartialKTile).ok);
  // Outputs past the last full tile never written: rows and columns 192..199, 3,136 outputs,
  // all but the few whose true value is within the tolerance of 0 flagged.
  CheckResult edge = check_tiled(kManyTiles, GemmBug::kSkipEdgeOutputs);
  EXPECT_FALSE(edge.ok);
  EXPECT_LE(edge.bad, 200u * 200u - 192u * 192u);
  EXPECT_GT(edge.bad, (200u * 200u - 192u * 192u) * 99 / 100);
  // Both are invisible when the tile divides every dimension.
  EXPECT_TRUE(check_tiled({64, 64, 64}, GemmBug::kSkipPartialKTile).ok);
  EXPECT_TRUE(check_tiled({64, 64, 64}, GemmBug::kSkipEdgeOutputs).ok);
}

TEST(CheckerGemm, SpotEntriesMatchTheWholeReference) {
  auto a = random_floats(37 * 53, 51, -1, 1), b = random_floats(53 * 29, 52, -1, 1);
  auto ref = gemm(a, b, 37, 29, 53);
  for (auto [row, col] : {std::pair{0, 0}, std::pair{36, 28}, std::pair{17, 3}}) {
    GemmEntry e = gemm_entry(a, b, 29, 53, row, col);
    EXPECT_EQ(e.value, ref.c[static_cast<std::size_t>(row) * 29 + col]);
    EXPECT_EQ(e.magnitude, ref.magnitude[static_cast<std::size_t>(row) * 29 + col]);
  }
}

// ---------------------------------------------------------------- elementwise chain

TEST(CheckerChain, TheFloatChainPassesAndTheErfGeluFails) {
  const std::size_t n = 1000003;
  auto x = random_floats(n, 61, -3, 3), r = random_floats(n, 62, -1, 1);
  const ChainParams p;
  auto expected = elementwise_chain(x, r, p);
  CheckResult good = check_close(chain_emulation(x, r, p, ChainBug::kNone), expected, chain_tolerance());
  EXPECT_TRUE(good.ok) << good.message;
  CheckResult erf = check_close(chain_emulation(x, r, p, ChainBug::kErfGelu), expected, chain_tolerance());
  EXPECT_FALSE(erf.ok);
  EXPECT_GT(erf.max_abs_error, 1e-4);
}

}  // namespace
}  // namespace ridge::kernels
