#include "calc/hardware.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ridge::calc
