// The workload model and the roofline link kernel_bench prints beside each measurement.
// Catalog figures (data/hardware.toml): h100-sxm fp32 67 TFLOP/s (vector), 3.35 TB/s.
#include <gtest/gtest.h>

#include "calc_io/load_catalog.h"
#include "workload.h"

namespace ridge::kernels {
namespace {

const calc::Catalog& catalog() {
  static const calc::Catalog c = [] {
    auto loaded = calc_io::load_catalog(RIDGE_SOURCE_DIR "/data");
    if (!loaded) {
      ADD_FAILURE() << calc::to_string(loaded.errors());
      return calc::Catalog{};
    }
    return std::move(loaded).value();
  }();
  return c;
}

const calc::Registry& registry() {
  static const calc::Registry r = calc::make_builtin_registry();
  return r;
}

TEST(Workload, CountsPerKernel) {
  Workload add = vector_add_workload(1000);
  EXPECT_EQ(add.flops, 1000);
  EXPECT_EQ(add.bytes, 12000);
  EXPECT_EQ(add.size, "n=1000");
  // 2 × 3 = 6 elements: 30 FLOP, 48 B.
  Workload sm = softmax_workload(2, 3);
  EXPECT_EQ(sm.flops, 30);
  EXPECT_EQ(sm.bytes, 48);
  // m 2, n 3, k 4: 2 × 2 × 3 × 4 = 48 FLOP; 4 × (8 + 12 + 6) = 104 B.
  Workload g = gemm_workload("gemm_tiled", 2, 3, 4);
  EXPECT_EQ(g.flops, 48);
  EXPECT_EQ(g.bytes, 104);
  EXPECT_EQ(g.size, "m=2 n=3 k=4");
  // Fusion keeps the FLOP and drops 16 of 28 bytes per element.
  Workload fused = chain_workload(100, true), unfused = chain_workload(100, false);
  EXPECT_EQ(fused.flops, unfused.flops);
  EXPECT_EQ(fused.bytes, 1200);
  EXPECT_EQ(unfused.bytes, 2800);
  // 4,096³ does not overflow an int product.
  EXPECT_DOUBLE_EQ(gemm_workload("gemm_naive", 4096, 4096, 4096).flops, 2.0 * 4096 * 4096 * 4096);
}

TEST(Workload, Median) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7);
}

TEST(Workload, RooflinePredictionForABandwidthBoundKernel) {
  // Vector add, n = 10^6: intensity 1/12 FLOP/B, far under the ridge 67e12 ÷ 3.35e12 = 20;
  // attainable 3.35e12 ÷ 12 = 2.7917e11 FLOP/s; time 1.2e7 B ÷ 3.35e12 B/s = 3.582 us.
  auto p = roofline_prediction(registry(), catalog(), "h100-sxm", vector_add_workload(1000000));
  ASSERT_TRUE(p.ok()) << calc::to_string(p.errors());
  EXPECT_FALSE(p->compute_bound);
  EXPECT_DOUBLE_EQ(p->peak_flops, 67e12);
  EXPECT_DOUBLE_EQ(p->bandwidth, 3.35e12);
  EXPECT_NEAR(p->attainable_flops, 3.35e12 / 12, 1e3);
  EXPECT_NEAR(p->seconds, 1.2e7 / 3.35e12, 1e-12);
}

TEST(Workload, RooflinePredictionForAComputeBoundKernel) {
  // GEMM 4,096³: 1.374e11 FLOP over 4 × 3 × 4,096² = 2.013e8 B: 683 FLOP/B, compute-bound;
  // 2 × 4,096³ ÷ 67e12 = 2.051 ms.
  auto p = roofline_prediction(registry(), catalog(), "h100-sxm", gemm_workload("gemm_tiled", 4096, 4096, 4096));
  ASSERT_TRUE(p.ok()) << calc::to_string(p.errors());
  EXPECT_TRUE(p->compute_bound);
  EXPECT_DOUBLE_EQ(p->attainable_flops, 67e12);
  EXPECT_NEAR(p->seconds, 2.0 * 4096 * 4096 * 4096 / 67e12, 1e-9);
}

TEST(Workload, UnknownGpuIsAnErrorNamingIt) {
  auto p = roofline_prediction(registry(), catalog(), "h1000", vector_add_workload(10));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.errors()[0].field, "gpu");
  EXPECT_EQ(p.errors()[0].value, "h1000");
}

TEST(Workload, SummarizeUsesTheBoundingResource) {
  // Memory-bound, measured at twice the predicted time: half the bandwidth.
  Workload add = vector_add_workload(1000000);
  auto p = roofline_prediction(registry(), catalog(), "h100-sxm", add);
  ASSERT_TRUE(p.ok());
  Row r = summarize(add, 2 * p->seconds, *p);
  EXPECT_NEAR(r.fraction_of_peak, 0.5, 1e-12);
  EXPECT_NEAR(r.achieved_bandwidth, 3.35e12 / 2, 1);
  // Compute-bound, 4× the predicted time: a quarter of the FLOP/s peak.
  Workload g = gemm_workload("gemm_tiled", 4096, 4096, 4096);
  auto pg = roofline_prediction(registry(), catalog(), "h100-sxm", g);
  ASSERT_TRUE(pg.ok());
  Row rg = summarize(g, 4 * pg->seconds, *pg);
  EXPECT_NEAR(rg.fraction_of_peak, 0.25, 1e-12);
  EXPECT_NEAR(rg.achieved_flops, 67e12 / 4, 1e3);
}

TEST(Workload, DeviceNamesMapToCatalogIds) {
  EXPECT_EQ(catalog_id_for_device("NVIDIA H100 80GB HBM3"), "h100-sxm");
  EXPECT_EQ(catalog_id_for_device("NVIDIA H100 PCIe"), "h100-pcie");
  EXPECT_EQ(catalog_id_for_device("NVIDIA H200"), "h200");
  EXPECT_EQ(catalog_id_for_device("NVIDIA GH200 480GB"), "");
  EXPECT_EQ(catalog_id_for_device("NVIDIA B200"), "b200");
  EXPECT_EQ(catalog_id_for_device("NVIDIA GB200"), "gb200");
  EXPECT_EQ(catalog_id_for_device("NVIDIA A100-SXM4-80GB"), "a100-80gb-sxm");
  EXPECT_EQ(catalog_id_for_device("NVIDIA A100-SXM4-40GB"), "");
  EXPECT_EQ(catalog_id_for_device("Tesla T4"), "");
  // Every id it can return is in the catalog.
  for (const char* name : {"H100 80GB HBM3", "H100 PCIe", "H200", "H800", "B200", "B300", "GB200", "GB300",
                           "A100-SXM4-80GB", "L40S", "RTX PRO 6000 Blackwell"}) {
    const std::string id = catalog_id_for_device(name);
    ASSERT_FALSE(id.empty()) << name;
    EXPECT_NE(catalog().hardware.find(id), nullptr) << name << " -> " << id;
  }
}

}  // namespace
}  // namespace ridge::kernels
