#include "calc/hardware.h"

#include <gtest/gtest.h>

#include <cmath>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

TEST(Hardware, CatalogHasEveryRequiredChipWithSourceAndDate) {
  const auto& hw = testing::real_catalog().hardware;
  for (const char* id : {"a100-80gb-sxm", "h100-sxm", "h100-pcie", "h200", "h800", "b200", "b300", "gb200", "mi300x",
                         "mi325x", "mi355x", "tpu-v5e", "tpu-v5p", "tpu-v6e", "trainium2", "gaudi3", "l40s",
                         "rtx-pro-6000"}) {
    const Accelerator* a = hw.find(id);
    ASSERT_NE(a, nullptr) << id;
    EXPECT_FALSE(a->source.empty()) << id;
    EXPECT_EQ(a->as_of.size(), 10u) << id << " as_of " << a->as_of;
    EXPECT_GT(a->peak(Dtype::kBf16), 0) << id;
  }
}

TEST(Hardware, DensePeaksNotSparsity) {
  // H100 SXM: 989.4 TFLOPS bf16 dense (1,979 with sparsity), 3.35 TB/s, 80 GB.
  const Accelerator* h100 = testing::real_catalog().hardware.find("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_NEAR(h100->peak(Dtype::kBf16), 989.4e12, 1e12);
  EXPECT_DOUBLE_EQ(h100->memory_bytes, 80e9);
  EXPECT_DOUBLE_EQ(h100->memory_bandwidth, 3.35e12);
  EXPECT_FALSE(testing::real_catalog().hardware.find("a100-80gb-sxm")->supports(Dtype::kFp8));
}

TEST(Hardware, ParseErrorsNameTheEntryAndField) {
  auto bad = HardwareCatalog::parse(R"([x1]
name = "X"
vendor = "V"
memory_bytes = -1
memory_bandwidth = 1e12
power_watts = 100
source = "s"
as_of = 2024-01-01
[x1.peak_flops]
bf16 = 1e12
fp7 = 1e12
)", "test.toml");
  ASSERT_FALSE(bad.ok());
  std::string all = to_string(bad.errors());
  EXPECT_NE(all.find("x1.memory_bytes"), std::string::npos) << all;
  EXPECT_NE(all.find("x1.peak_flops.fp7"), std::string::npos) << all;
}

TEST(Hardware, SystemsCarryPowerAndScaleOutWithSourceAndDate) {
  const auto& hw = testing::real_catalog().hardware;
  // DGX H100/H200 user guide: 10.2 kW max; DGX B200 user guide: 14.3 kW max; each with 8
  // ConnectX-7 at 400 Gb/s = 50 GB/s for 8 GPUs, so 8 × 50e9 / 8 = 50e9 B/s per GPU.
  for (const char* id : {"h100-sxm", "h200", "b200", "gb200", "mi300x"}) {
    const Accelerator* a = hw.find(id);
    ASSERT_NE(a, nullptr) << id;
    ASSERT_TRUE(a->has_system()) << id;
    EXPECT_FALSE(a->system.name.empty()) << id;
    EXPECT_FALSE(a->system.source.empty()) << id;
    EXPECT_EQ(a->system.as_of.size(), 10u) << id;
    EXPECT_GT(a->system.power_per_gpu(), a->power_watts) << id << ": a system draws more than its GPUs";
    EXPECT_DOUBLE_EQ(a->system.scale_out_bandwidth(), 50e9) << id;
  }
  EXPECT_DOUBLE_EQ(hw.find("h100-sxm")->system.power_watts, 10.2e3);
  EXPECT_DOUBLE_EQ(hw.find("b200")->system.power_watts, 14.3e3);
  EXPECT_DOUBLE_EQ(hw.find("gb200")->system.gpus, 72);
  EXPECT_FALSE(hw.find("tpu-v6e")->has_system());
}

constexpr const char* kMinimalChip = R"([x1]
name = "X"
vendor = "V"
memory_bytes = 80e9
memory_bandwidth = 1e12
source = "s"
as_of = 2024-01-01
[x1.peak_flops]
bf16 = 1e12
)";

TEST(Hardware, SystemTableIsParsed) {
  // 4 NICs of 50 GB/s for 8 GPUs: 4 × 50e9 / 8 = 25e9 B/s per GPU; 8 kW / 8 = 1 kW per GPU.
  auto ok = HardwareCatalog::parse(std::string(kMinimalChip) + R"([x1.system]
name = "Box"
gpus = 8
power_watts = 8e3
nics = 4
nic_bandwidth = 50e9
source = "s"
as_of = 2024-01-01
)", "test.toml");
  ASSERT_TRUE(ok.ok()) << to_string(ok.errors());
  const Accelerator* x = ok->find("x1");
  EXPECT_DOUBLE_EQ(x->system.scale_out_bandwidth(), 25e9);
  EXPECT_DOUBLE_EQ(x->system.power_per_gpu(), 1e3);
}

TEST(Hardware, UnknownKeysAreErrors) {
  // A misspelt field in the chip and in its system, and a missing system figure.
  auto bad = HardwareCatalog::parse(std::string(kMinimalChip) + R"(memroy_type = "HBM3"
[x1.system]
name = "Box"
gpus = 8.5
power_watt = 8e3
nics = 4
nic_bandwidth = 50e9
source = "s"
as_of = 2024-01-01
)", "test.toml");
  ASSERT_FALSE(bad.ok());
  std::string all = to_string(bad.errors());
  EXPECT_NE(all.find("x1.peak_flops.memroy_type"), std::string::npos) << all;  // TOML puts it under peak_flops
  EXPECT_NE(all.find("x1.system.power_watt: "), std::string::npos) << all;
  EXPECT_NE(all.find("x1.system.power_watts"), std::string::npos) << all;   // now missing
  EXPECT_NE(all.find("x1.system.gpus"), std::string::npos) << all;          // not whole
  auto top = HardwareCatalog::parse(R"([x1]
name = "X"
vendor = "V"
memory_bytes = 80e9
memory_bandwith = 1e12
source = "s"
as_of = 2024-01-01
[x1.peak_flops]
bf16 = 1e12
)", "test.toml");
  ASSERT_FALSE(top.ok());
  std::string msg = to_string(top.errors());
  EXPECT_NE(msg.find("x1.memory_bandwith"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is not a known field"), std::string::npos) << msg;
}

TEST(Hardware, InvalidTomlIsAnErrorNotACrash) {
  auto bad = HardwareCatalog::parse("[unclosed\nname = ", "bad.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errors()[0].message.find("not valid TOML"), std::string::npos);
}


// Issue 31, the fabric model. H100's measured all-reduce (Azure ND H100 v5, NVLS, 8 GPUs):
// 234.45 GB/s at 16 MiB, 295.53 at 32 MiB, 478.87 at 8 GiB.
TEST(Fabric, InsideTheDomainTheMeasuredBusbwAtTheSize) {
  const Accelerator& h100 = *testing::real_catalog().hardware.find("h100-sxm");
  ASSERT_FALSE(h100.system.measured.empty());
  EXPECT_EQ(h100.system.scale_up_domain, 8);
  CollectiveEstimate big = estimate_collective(h100, "all_reduce", 8, 8, 8589934592.0, 0.7, 20e-6);
  EXPECT_TRUE(big.measured);
  EXPECT_DOUBLE_EQ(big.busbw, 478.87e9);
  // 8 GiB × 2·7/8 ÷ 478.87 GB/s = 31.386 ms (alpha is a floor here, far below).
  EXPECT_NEAR(big.seconds, 8589934592.0 * 1.75 / 478.87e9, 1e-9);
  // Halfway between 16 and 32 MiB on a log scale (16 MiB × √2): halfway between the figures.
  CollectiveEstimate mid = estimate_collective(h100, "all_reduce", 8, 8, 16777216.0 * std::sqrt(2.0), 0.7, 20e-6);
  EXPECT_NEAR(mid.busbw, (234.45e9 + 295.53e9) / 2, 1e3);
  // alpha: the 1 KiB message's time, 1,024 × 1.75 ÷ 0.07 GB/s = 25.6 us.
  EXPECT_NEAR(mid.alpha, 25.6e-6, 1e-9);
}

TEST(Fabric, AcrossDomainsTheGroupUsesItsShareOfTheNics) {
  const Accelerator& h100 = *testing::real_catalog().hardware.find("h100-sxm");
  // A DP group of one GPU per node (TP 8 fills the node): one 50 GB/s NIC × 0.7 = 35 GB/s.
  CollectiveEstimate one = estimate_collective(h100, "all_reduce", 64, ranks_per_domain(64, 8, 8), 1e9, 0.7, 20e-6);
  EXPECT_TRUE(one.scale_out);
  EXPECT_FALSE(one.measured);
  EXPECT_DOUBLE_EQ(one.busbw, 35e9);
  // 20 us + 2·63/64 × 1 GB ÷ 35 GB/s.
  EXPECT_NEAR(one.seconds, 20e-6 + 2 * 63.0 / 64 * 1e9 / 35e9, 1e-12);
  // A ring with all 8 GPUs of each node uses the node's 8 NICs: min(8 × 50, 450) × 0.7 = 280 GB/s.
  CollectiveEstimate full = estimate_collective(h100, "all_reduce", 64, ranks_per_domain(64, 1, 8), 1e9, 0.7, 20e-6);
  EXPECT_DOUBLE_EQ(full.busbw, 280e9);
  // All-to-all over 16 GPUs, 8 per node: 8/16 of each buffer leaves the node through 8 NICs
  // shared by 8 GPUs (35 GB/s each at 0.7), 7/16 stays on NVLink (315 GB/s): the NICs set the
  // time, 0.5 ÷ 35 GB/s per byte, and busbw = (15/16) ÷ that = 65.625 GB/s.
  CollectiveEstimate a2a = estimate_collective(h100, "alltoall", 16, 8, 1e8, 0.7, 20e-6);
  EXPECT_NEAR(a2a.busbw, 65.625e9, 1e3);
  // --scale-out-bandwidth (one NIC per GPU at 25 GB/s, as DGX A100's HDR) replaces the catalog.
  CollectiveEstimate hdr = estimate_collective(h100, "all_reduce", 64, 1, 1e9, 0.7, 20e-6, 25e9);
  EXPECT_DOUBLE_EQ(hdr.busbw, 17.5e9);
}

TEST(Fabric, MeasuredFiguresAreCheckedWhenParsed) {
  const char* bad = R"(
[x]
name = "X"
vendor = "NVIDIA"
memory_bytes = 1e9
memory_bandwidth = 1e12
source = "s"
as_of = 2025-01-01
[x.peak_flops]
bf16 = 1e15
[x.system]
name = "S"
gpus = 8
power_watts = 1e4
nics = 8
nic_bandwidth = 50e9
source = "s"
as_of = 2025-01-01
[[x.system.measured]]
collective = "all_reduce"
algorithm = "ring"
gpus = 8
bytes = [2e6, 1e6]
busbw = [1e9]
source = "s"
as_of = 2025-01-01
)";
  auto parsed = HardwareCatalog::parse(bad, "test");
  ASSERT_FALSE(parsed.ok());
  std::string text = to_string(parsed.errors());
  EXPECT_NE(text.find("x.system.measured[0].busbw"), std::string::npos) << text;
  EXPECT_NE(text.find("x.system.measured[0].bytes"), std::string::npos) << text;
}

}  // namespace
}  // namespace ridge::calc
