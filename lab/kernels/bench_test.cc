// kernel_bench's harness driven by a CPU stand-in for the GPU: the checks run at every size of
// the plan, a wrong kernel is reported as FAIL (also when another kernel left correct values
// in its output buffer), the timing takes warm-up runs and then the median, and the JSON and
// text carry the roofline beside each measurement. Runs everywhere as part of kernels.reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "bench.h"
#include "calc_io/load_catalog.h"
#include "kernels.h"

namespace ridge::kernels {
namespace {

// The kernels as the emulations in reference.h compute them, on host memory.
class HostDevice final : public Device {
 public:
  GemmBug tiled_bug = GemmBug::kNone;
  SoftmaxBug softmax_bug = SoftmaxBug::kNone;
  bool tiled_writes_nothing = false;
  bool fused_writes_nothing = false;
  std::map<std::string, int> launches;

  ~HostDevice() override { EXPECT_TRUE(live_.empty()) << live_.size() << " buffers not released"; }

  float* alloc(std::size_t n) override {
    float* p = new float[n == 0 ? 1 : n];
    fill_nan(p, n);
    live_[p] = n;
    return p;
  }
  void release(float* p) override {
    live_.erase(p);
    delete[] p;
  }
  void upload(float* dst, const std::vector<float>& src) override {
    EXPECT_EQ(live_.at(dst), src.size());
    std::copy(src.begin(), src.end(), dst);
  }
  std::vector<float> download(const float* src, std::size_t n) override { return {src, src + n}; }
  void fill_nan(float* p, std::size_t n) override { std::fill(p, p + n, std::numeric_limits<float>::quiet_NaN()); }

  void vector_add(const float* a, const float* b, float* c, long long n) override {
    ++launches["vector_add"];
    auto out = kernels::vector_add(vec(a, n), vec(b, n));
    std::copy(out.begin(), out.end(), c);
  }
  void softmax_rows(const float* x, float* y, int rows, int cols) override {
    ++launches["softmax_rows"];
    auto out = softmax_emulation(vec(x, 1LL * rows * cols), rows, cols, kSoftmaxThreads, softmax_bug);
    std::copy(out.begin(), out.end(), y);
  }
  void gemm_naive(const float* a, const float* b, float* c, int m, int n, int k) override {
    ++launches["gemm_naive"];
    // One float accumulator over all of k: a single tile as wide as k.
    auto out = gemm_tiled_emulation(vec(a, 1LL * m * k), vec(b, 1LL * k * n), m, n, k, k, GemmBug::kNone);
    std::copy(out.begin(), out.end(), c);
  }
  void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k) override {
    ++launches["gemm_tiled"];
    if (tiled_writes_nothing) return;
    auto out = gemm_tiled_emulation(vec(a, 1LL * m * k), vec(b, 1LL * k * n), m, n, k, kGemmTile, tiled_bug);
    std::copy(out.begin(), out.end(), c);
  }
  void chain_unfused(const float* x, const float* r, float* t, float* u, float* y, long long n, float scale,
                     float shift) override {
    ++launches["chain_unfused"];
    for (long long i = 0; i < n; ++i) t[i] = std::fma(x[i], scale, shift);
    auto out = chain_emulation(vec(x, n), vec(r, n), {scale, shift}, ChainBug::kNone);
    std::copy(out.begin(), out.end(), y);
    std::copy(out.begin(), out.end(), u);  // any value: nothing checks the temporaries
  }
  void chain_fused(const float* x, const float* r, float* y, long long n, float scale, float shift) override {
    ++launches["chain_fused"];
    if (fused_writes_nothing) return;
    auto out = chain_emulation(vec(x, n), vec(r, n), {scale, shift}, ChainBug::kNone);
    std::copy(out.begin(), out.end(), y);
  }

  // 1, 2, 3 ms in turn: any three consecutive runs have the median 2 ms.
  double time_once(const std::function<void()>& launch) override {
    launch();
    return 1e-3 * static_cast<double>(timed_++ % 3 + 1);
  }
  void synchronize() override {}

 private:
  static std::vector<float> vec(const float* p, long long n) { return {p, p + n}; }
  std::map<const float*, std::size_t> live_;
  long long timed_ = 0;
};

// Small enough for the CPU, with the same shapes of trouble as the real plan: sizes no block
// or tile divides, and a GEMM of 4 × 4 output tiles and 7 k-tiles.
Plan small_plan() {
  Plan p;
  p.elementwise_checks = {1003};
  p.elementwise = 4096;
  p.softmax_checks = {{30, 1000}, {5, 7}};
  p.softmax_rows = 16;
  p.softmax_cols = 300;
  p.gemm_checks = {{64, 64, 64}, {33, 65, 17}, {100, 100, 200}};
  p.gemm = 96;
  p.gemm_spots = 64;
  return p;
}

const calc::Catalog& catalog() {
  static const calc::Catalog c = [] {
    auto loaded = calc_io::load_catalog(RIDGE_SOURCE_DIR "/data");
    return loaded ? std::move(loaded).value() : calc::Catalog{};
  }();
  return c;
}

const Measured& find(const std::vector<Measured>& all, const std::string& kernel) {
  for (const auto& m : all) {
    if (m.work.kernel == kernel) return m;
  }
  ADD_FAILURE() << "no " << kernel;
  return all.front();
}

const DeviceInfo kInfo{"NVIDIA H100 80GB HBM3", "9.0", 132, "13.0", "13.0", "580.95.05"};
const Settings kSettings{"h100-sxm", "2026-11-30", 3, 1, false};

TEST(Bench, CorrectKernelsPassEveryCheckAndTheMedianIsReported) {
  HostDevice d;
  const Plan plan = small_plan();
  auto measured = run_benchmarks(d, plan, 1, 3);
  ASSERT_EQ(measured.size(), 6u);
  const char* order[] = {"vector_add", "softmax_rows", "gemm_naive", "gemm_tiled", "chain_unfused", "chain_fused"};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(measured[i].work.kernel, order[i]);
    EXPECT_TRUE(measured[i].checks.ok) << order[i] << ": " << ::testing::PrintToString(measured[i].checks.details);
    EXPECT_DOUBLE_EQ(measured[i].seconds, 2e-3) << order[i];
  }
  EXPECT_TRUE(all_passed(measured));
  // Every size of the plan was checked, plus the timed size.
  EXPECT_EQ(find(measured, "vector_add").checks.details.size(), 2u);
  EXPECT_EQ(find(measured, "softmax_rows").checks.details.size(), 3u);
  EXPECT_EQ(find(measured, "gemm_tiled").checks.details.size(), 4u);
  EXPECT_NE(find(measured, "gemm_tiled").checks.details.back().find("m=n=k=96 (64 entries)"), std::string::npos);
  // Launches: each check size once, then 1 warm-up and 3 timed runs.
  EXPECT_EQ(d.launches["vector_add"], 2 + 1 + 3);
  EXPECT_EQ(d.launches["gemm_tiled"], 4 + 1 + 3);
  EXPECT_EQ(d.launches["chain_fused"], 2 + 1 + 3);
}

TEST(Bench, ABugThatNeedsManyTilesIsReportedAsAFailure) {
  // Reading B's first k-tile for every k-step: right at 33 × 65 × 17 (k fits one tile), wrong
  // at 64³ (two k-tiles) and at k = 200 (seven). The report says FAIL, and all_passed() is
  // false, which is kernel_bench's exit status 1.
  HostDevice d;
  d.tiled_bug = GemmBug::kReuseFirstKTile;
  auto measured = run_benchmarks(d, small_plan(), 0, 1);
  const Measured& tiled = find(measured, "gemm_tiled");
  EXPECT_FALSE(tiled.checks.ok);
  EXPECT_NE(tiled.checks.details[1].find("ok:"), std::string::npos) << tiled.checks.details[1];  // 33 × 65 × 17
  EXPECT_EQ(tiled.checks.details[2].find("ok:"), std::string::npos) << tiled.checks.details[2];  // 100 × 100 × 200
  EXPECT_TRUE(find(measured, "gemm_naive").checks.ok);
  EXPECT_FALSE(all_passed(measured));
  auto rows = predict(calc::make_builtin_registry(), catalog(), "h100-sxm", measured);
  ASSERT_TRUE(rows.ok());
  const std::string text = render_text(kInfo, kSettings, measured, *rows);
  EXPECT_NE(text.find("FAIL"), std::string::npos) << text;
  EXPECT_FALSE(render_json(kInfo, kSettings, measured, *rows)["all_checks_passed"].get<bool>());
}

TEST(Bench, AKernelThatWritesNothingFailsEvenAfterACorrectOneUsedTheBuffer) {
  // The naive GEMM fills C correctly, then the tiled kernel writes nothing: the buffer is
  // reset to NaN in between, so the tiled check fails instead of reading the naive results.
  // The same for the fused chain after the unfused one.
  HostDevice d;
  d.tiled_writes_nothing = true;
  d.fused_writes_nothing = true;
  auto measured = run_benchmarks(d, small_plan(), 0, 1);
  EXPECT_TRUE(find(measured, "gemm_naive").checks.ok);
  EXPECT_TRUE(find(measured, "chain_unfused").checks.ok);
  // Every size fails, not only the first or the timed one.
  for (const char* kernel : {"gemm_tiled", "chain_fused"}) {
    const Measured& m = find(measured, kernel);
    EXPECT_FALSE(m.checks.ok) << kernel;
    for (const auto& line : m.checks.details) EXPECT_EQ(line.find("ok:"), std::string::npos) << kernel << ": " << line;
  }
}

TEST(Bench, ASoftmaxBugShowsAtTheRowsTheBlockDoesNotDivide) {
  HostDevice d;
  d.softmax_bug = SoftmaxBug::kDropRowTail;
  auto measured = run_benchmarks(d, small_plan(), 0, 1);
  const Measured& sm = find(measured, "softmax_rows");
  EXPECT_FALSE(sm.checks.ok);
  // Rows of 7 sum nothing at all (7 < 256): every output is inf or NaN.
  EXPECT_EQ(sm.checks.details[1].find("ok:"), std::string::npos) << sm.checks.details[1];
}

TEST(Bench, JsonAndTextCarryTheRooflineBesideTheMeasurement) {
  HostDevice d;
  auto measured = run_benchmarks(d, small_plan(), 1, 3);
  auto rows = predict(calc::make_builtin_registry(), catalog(), "h100-sxm", measured);
  ASSERT_TRUE(rows.ok()) << calc::to_string(rows.errors());
  const nlohmann::json j = render_json(kInfo, kSettings, measured, *rows);
  EXPECT_EQ(j["tool"], "kernel_bench");
  EXPECT_EQ(j["catalog_gpu"], "h100-sxm");
  EXPECT_EQ(j["device"]["driver_release"], "580.95.05");
  EXPECT_TRUE(j["all_checks_passed"].get<bool>());
  ASSERT_EQ(j["kernels"].size(), 6u);
  const auto& add = j["kernels"][0];
  // Vector add, n = 4,096: 49,152 B in 2 ms = 24.576 MB/s; 24.576e6 ÷ 3.35e12 of the
  // bandwidth. The roofline: 49,152 B ÷ 3.35e12 B/s = 14.67 ns.
  EXPECT_EQ(add["kernel"], "vector_add");
  EXPECT_EQ(add["bound"], "memory");
  EXPECT_DOUBLE_EQ(add["median_seconds"].get<double>(), 2e-3);
  EXPECT_DOUBLE_EQ(add["achieved_bandwidth"].get<double>(), 49152 / 2e-3);
  EXPECT_NEAR(add["fraction_of_peak"].get<double>(), 49152 / 2e-3 / 3.35e12, 1e-15);
  EXPECT_NEAR(add["roofline"]["seconds"].get<double>(), 49152 / 3.35e12, 1e-18);
  EXPECT_TRUE(add["check"]["ok"].get<bool>());
  // GEMM 96³: 2 × 96³ = 1,769,472 FLOP over 4 × 3 × 96² = 110,592 B is 16 FLOP/B, under the
  // fp32 ridge of 67e12 ÷ 3.35e12 = 20: memory-bound at this size, 110,592 ÷ 3.35e12 = 33 ns.
  const auto& tiled = j["kernels"][3];
  EXPECT_EQ(tiled["bound"], "memory");
  EXPECT_DOUBLE_EQ(tiled["flops"].get<double>(), 1769472);
  EXPECT_NEAR(tiled["roofline"]["seconds"].get<double>(), 110592 / 3.35e12, 1e-18);
  const std::string text = render_text(kInfo, kSettings, measured, *rows);
  EXPECT_NE(text.find("NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs), driver 580.95.05"), std::string::npos) << text;
  EXPECT_NE(text.find("gemm_tiled"), std::string::npos);
  EXPECT_EQ(text.find("FAIL"), std::string::npos) << text;
}

TEST(Bench, AnUnknownCatalogGpuIsAnError) {
  HostDevice d;
  auto measured = run_benchmarks(d, small_plan(), 0, 1);
  auto rows = predict(calc::make_builtin_registry(), catalog(), "h1000", measured);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.errors()[0].field, "gpu");
}

TEST(Bench, TheDefaultPlansCheckSizesNoBlockOrTileDivides) {
  for (bool quick : {false, true}) {
    const Plan p = default_plan(quick);
    EXPECT_NE(p.elementwise_checks.at(0) % kElementwiseThreads, 0);
    bool partial_rows = false, many_tiles_partial = false;
    for (auto [rows, cols] : p.softmax_checks) partial_rows = partial_rows || cols % kSoftmaxThreads != 0;
    for (auto [m, n, k] : p.gemm_checks) {
      many_tiles_partial = many_tiles_partial || (m % kGemmTile != 0 && n % kGemmTile != 0 && k % kGemmTile != 0 &&
                                                  k / kGemmTile >= 16 && m / kGemmTile >= 16);
    }
    EXPECT_TRUE(partial_rows);
    EXPECT_TRUE(many_tiles_partial);
  }
  EXPECT_EQ(default_plan(false).gemm, 4096);
  EXPECT_EQ(default_plan(true).gemm, 512);
}

}  // namespace
}  // namespace ridge::kernels
