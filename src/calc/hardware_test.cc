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

TEST(Hardware, InvalidTomlIsAnErrorNotACrash) {
  auto bad = HardwareCatalog::parse("[unclosed\nname = ", "bad.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errors()[0].message.find("not valid TOML"), std::string::npos);
}

}  // namespace
}  // namespace ridge::calc
