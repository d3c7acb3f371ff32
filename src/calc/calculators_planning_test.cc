// speculative, lora and tco. Each expectation is derived by hand in the comment above it,
// from the catalog (H100 SXM: 80 GB, 3.35 TB/s, 989.4 TFLOP/s bf16 dense; DGX H100: 8 GPUs,
// 10.2 kW) and the models' config.json.
#include <gtest/gtest.h>

#include <cmath>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

TEST(Speculative, ExpectedTokensAndTheMemoryBoundSpeedup) {
  // a = 0.8, k = 4: (1 − 0.8^5) / 0.2 = (1 − 0.32768) / 0.2 = 3.3616 tokens per step.
  // Cost 4 × 0.05 + 1 = 1.2 target steps: speed-up 3.3616 / 1.2 = 2.801333.
  Derivation d = run("speculative", {{"acceptance", "0.8"}, {"draft-tokens", "4"}, {"draft-cost", "0.05"}});
  EXPECT_NEAR(result(d, "expected_tokens_per_step"), 3.3616, 1e-12);
  EXPECT_NEAR(result(d, "speedup_memory_bound"), 3.3616 / 1.2, 1e-12);
  EXPECT_EQ(d.find("break_even_batch"), nullptr);  // no chip, no ridge
}

TEST(Speculative, BreakEvenBatchOnH100) {
  // Ridge batch 989.4e12 × 2 B ÷ (2 × 3.35e12) = 295.34328 tokens per step. Break-even
  // 295.34328 × (3.3616 − 0.2) / 5 = 295.34328 × 0.63232 = 186.7515.
  // At batch 64: x = 64 / 295.34328 = 0.2166969, (k + 1)·x = 1.0834845 > 1, so
  // S = 3.3616 × 1 / (0.2 + 1.0834845) = 3.3616 / 1.2834845 = 2.61912. At 400: x = 1.35435, S = 3.3616 × 1.35435 /
  // (0.2 + 6.77175) = 0.65303: it no longer pays.
  Given g = {{"acceptance", "0.8"}, {"draft-tokens", "4"}, {"gpu", "h100-sxm"}, {"batch", "64"}};
  Derivation d = run("speculative", g);
  EXPECT_NEAR(result(d, "ridge_batch"), 295.34328, 1e-5);
  EXPECT_NEAR(result(d, "break_even_batch"), 186.7515, 1e-3);
  EXPECT_NEAR(result(d, "speedup_at_batch"), 2.61912, 1e-5);
  g["batch"] = "400";
  EXPECT_NEAR(result(run("speculative", g), "speedup_at_batch"), 0.65303, 1e-5);
}

TEST(Speculative, ADraftThatCostsTooMuchNeverPays) {
  // a = 0.3, k = 4: (1 − 0.3^5) / 0.7 = 0.99757 / 0.7 = 1.42510; cost 4 × 0.3 + 1 = 2.2:
  // 1.4251 / 2.2 = 0.64777 < 1, so the break-even batch is 0.
  Derivation d = run("speculative", {{"acceptance", "0.3"}, {"draft-tokens", "4"}, {"draft-cost", "0.3"}, {"gpu", "h100-sxm"}});
  EXPECT_NEAR(result(d, "speedup_memory_bound"), 0.99757 / 0.7 / 2.2, 1e-6);
  EXPECT_EQ(result(d, "break_even_batch"), 0);
  // a = 1 accepts every draft: k + 1 = 5 tokens per step (the limit of the formula).
  EXPECT_DOUBLE_EQ(result(run("speculative", {{"acceptance", "1"}, {"draft-tokens", "4"}}), "expected_tokens_per_step"), 5);
}

TEST(Speculative, ErrorsNameTheField) {
  EXPECT_EQ(errors_of("speculative", {{"acceptance", "1.5"}})[0].field, "acceptance");
  EXPECT_EQ(errors_of("speculative", {{"acceptance", "0.8"}, {"batch", "8"}})[0].field, "gpu");
  EXPECT_EQ(errors_of("speculative", {{"acceptance", "0.8"}, {"gpu", "a100-80gb-sxm"}, {"dtype", "fp8"}})[0].field, "dtype");
  EXPECT_EQ(errors_of("speculative", {{"acceptance", "0.8"}, {"draft-tokens", "0"}})[0].field, "draft-tokens");
}

TEST(Lora, Llama8BAttentionAdapters) {
  // Llama 3.1 8B: h = 4,096, 32 heads and 8 KV heads of 128, 32 layers, MLP 14,336. Rank 16, bf16:
  // q 16 × (4,096 + 4,096) × 32 × 2 = 8,388,608 B; k and v 16 × (4,096 + 1,024) × 32 × 2 =
  // 5,242,880 B each; o as q. Sum 27,262,976 B = 13,631,488 parameters.
  Derivation d = run("lora", {{"model", "llama-3.1-8b"}, {"rank", "16"}});
  EXPECT_DOUBLE_EQ(result(d, "adapter_bytes"), 27262976.0);
  EXPECT_DOUBLE_EQ(result(d, "adapter_params"), 13631488.0);
  EXPECT_EQ(d.find("adapters_fit"), nullptr);
  // All seven: gate, up and down each 16 × (4,096 + 14,336) × 32 × 2 = 18,874,368 B;
  // 27,262,976 + 3 × 18,874,368 = 83,886,080 B.
  EXPECT_DOUBLE_EQ(result(run("lora", {{"model", "llama-3.1-8b"}, {"rank", "16"}, {"modules", "q,k,v,o,gate,up,down"}}),
                          "adapter_bytes"),
                   83886080.0);
}

TEST(Lora, AdaptersThatFitBesideTheModel) {
  // Weights 8,030,261,248 × 2 B = 16,060,522,496 B; an 80 GB H100 leaves 63,939,477,504 B;
  // ÷ 27,262,976 B = 2,345.27: 2,345 adapters. With --memory 40GB: 23,939,477,504 B ÷
  // 27,262,976 = 878.1: 878.
  Derivation d = run("lora", {{"model", "llama-3.1-8b"}, {"rank", "16"}, {"gpu", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(result(d, "weights_bytes"), 16060522496.0);
  EXPECT_DOUBLE_EQ(result(d, "free_bytes"), 63939477504.0);
  EXPECT_EQ(result(d, "adapters_fit"), 2345);
  EXPECT_EQ(result(run("lora", {{"model", "llama-3.1-8b"}, {"rank", "16"}, {"memory", "40GB"}}), "adapters_fit"), 878);
}

TEST(Lora, EveryExpertGetsItsOwnMlpAdapter) {
  // Qwen3-30B-A3B: h = 2,048, 128 experts of width 768, all 48 layers MoE, no shared expert.
  // down at rank 8: 8 × 128 × (2,048 + 768) × 48 × 2 = 276,824,064 B.
  EXPECT_DOUBLE_EQ(result(run("lora", {{"model", "qwen3-30b-a3b"}, {"rank", "8"}, {"modules", "down"}}), "adapter_bytes"),
                   276824064.0);
}

TEST(Lora, ErrorsNameTheField) {
  EXPECT_EQ(errors_of("lora", {{"model", "llama-3.1-8b"}, {"rank", "16"}, {"modules", "q,x"}})[0].field, "modules");
  EXPECT_EQ(errors_of("lora", {{"model", "llama-3.1-8b"}, {"rank", "16"}, {"modules", "q,q"}})[0].message, "names 'q' twice");
  Errors mla = errors_of("lora", {{"model", "deepseek-v3"}, {"rank", "16"}, {"modules", "q,o"}});
  EXPECT_EQ(mla[0].field, "modules");
  EXPECT_EQ(mla[0].accepted, "o, gate, up, down");
  EXPECT_EQ(errors_of("lora", {{"model", "llama-3.1-8b"}, {"rank", "0"}})[0].field, "rank");
}

TEST(Tco, DgxH100OverFourYears) {
  // Annuity factor 0.08 / (1 − 1.08^−4) = 0.08 / (1 − 0.7350299) = 0.3019208: capex
  // 300,000 × 0.3019208 = $90,576.24 a year. Power 10,200 W × 1.3 × 8,760 h × $0.08 / 1,000 =
  // $9,292.61. With $5,000 staff and $3,000 space: $107,868.85 a year. Per GPU-hour at 80%:
  // 107,868.85 / (8 × 8,760 × 0.8) = $1.92403. Against $2.50 rent: break-even
  // 107,868.85 / (8 × 8,760 × 2.5) = 0.61569, below 0.8: buying is cheaper.
  Derivation d = run("tco", {{"server-price", "300000"}, {"gpu", "h100-sxm"}, {"staff-per-year", "5000"},
                             {"space-per-year", "3000"}, {"rent", "2.50"}});
  double capex = 300000 * 0.08 / (1 - std::pow(1.08, -4));
  EXPECT_NEAR(result(d, "capex_per_year"), 90576.24, 0.01);
  EXPECT_NEAR(result(d, "capex_per_year"), capex, 1e-6);
  EXPECT_NEAR(result(d, "power_per_year"), 9292.608, 1e-6);
  EXPECT_NEAR(result(d, "cost_per_year"), 107868.85, 0.01);
  EXPECT_NEAR(result(d, "usd_per_gpu_hour"), 1.92403, 1e-5);
  EXPECT_NEAR(result(d, "break_even_utilization"), 0.61569, 1e-5);
  EXPECT_EQ(result(d, "buy_cheaper"), 1);
}

TEST(Tco, StraightLineAndExplicitServer) {
  // No cost of capital: 300,000 / 4 = $75,000 a year. A 4-GPU server at 5 kW, PUE 1, $0.10:
  // 5,000 × 8,760 × 0.1 / 1,000 = $4,380. Per GPU-hour at 50%: 79,380 / (4 × 8,760 × 0.5) =
  // $4.5308; rent at $2: break-even 79,380 / (4 × 8,760 × 2) = 1.1327 > 1: renting always wins.
  Derivation d = run("tco", {{"server-price", "300k"}, {"cost-of-capital", "0"}, {"gpus-per-server", "4"},
                             {"system-power", "5kW"}, {"pue", "1"}, {"usd-per-kwh", "0.10"}, {"utilization", "50%"},
                             {"rent", "2"}});
  EXPECT_DOUBLE_EQ(result(d, "capex_per_year"), 75000);
  EXPECT_NEAR(result(d, "power_per_year"), 4380, 1e-9);
  EXPECT_NEAR(result(d, "usd_per_gpu_hour"), 79380.0 / 17520, 1e-9);
  EXPECT_NEAR(result(d, "break_even_utilization"), 79380.0 / 70080, 1e-9);
  EXPECT_EQ(result(d, "buy_cheaper"), 0);
}

TEST(Tco, ServerShapeIsRequiredWithoutACatalogSystem) {
  // tpu-v6e has no system entry: both the GPU count and the power must be given.
  Errors e = errors_of("tco", {{"server-price", "300000"}, {"gpu", "tpu-v6e"}});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].field, "gpus-per-server");
  EXPECT_EQ(e[1].field, "system-power");
  EXPECT_EQ(errors_of("tco", {{"server-price", "300000"}, {"gpu", "h100-sxm"}, {"utilization", "0"}})[0].field,
            "utilization");
}

}  // namespace
}  // namespace ridge::calc
