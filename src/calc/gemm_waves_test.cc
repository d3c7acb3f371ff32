// The prefill's GEMMs by tiles and waves (perf8s, issue 31; gemm_waves.h). Expected figures are
// derived by hand in the comment above each check.
#include "calc/gemm_waves.h"

#include <gtest/gtest.h>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::result;
using testing::run;

TEST(GemmWaves, ShortPrefillLeavesAWaveHalfEmpty) {
  // Llama 2 7B's QKV on one GPU: N = 3 × 4,096 = 12,288, K = 4,096, M = 128 rows, 128 × 128
  // tiles, 132 SMs at 1e13 FLOP/s each, fp8 weights at 3e12 B/s.
  // Tiles ⌈128 ÷ 128⌉ × ⌈12,288 ÷ 128⌉ = 1 × 96 = 96, one wave; a tile's K-loop
  // 2 × 128 × 128 × 4,096 = 134,217,728 FLOP ÷ 1e13 = 13.4217728 us; the weight read
  // 12,288 × 4,096 × 1 B = 50,331,648 B ÷ 3e12 = 16.777216 us is longer, so it sets the GEMM.
  const waves::Tile tile{128, 128};
  const waves::Gemm qkv{"QKV", 12288, 4096, 1};
  waves::Priced p = waves::price(128, qkv, tile, 132, 1e13, 1, 3e12);
  EXPECT_EQ(p.tiles, 96);
  EXPECT_EQ(p.waves, 1);
  EXPECT_NEAR(p.seconds, 16.777216e-6, 1e-12);
  // At M = 2,048: 16 × 96 = 1,536 tiles, ⌈1,536 ÷ 132⌉ = ⌈11.64⌉ = 12 waves of 13.4217728 us =
  // 161.0612736 us (the read, 16.78 us, is now far shorter), 3% above the 11.64 waves the FLOP
  // count alone would take.
  p = waves::price(2048, qkv, tile, 132, 1e13, 1, 3e12);
  EXPECT_EQ(p.tiles, 1536);
  EXPECT_EQ(p.waves, 12);
  EXPECT_NEAR(p.seconds, 161.0612736e-6, 1e-12);
  // The O projection (N = 4,096) at M = 128: 32 tiles, one wave at 32 of 132 SMs: 13.42 us for
  // what the FLOP count prices at 32 ÷ 132 of it; × 32 layers = 429.4967296 us.
  const waves::Gemm o{"O", 4096, 4096, 32};
  p = waves::price(128, o, tile, 132, 1e13, 1, 3e12);
  EXPECT_EQ(p.tiles, 32);
  EXPECT_NEAR(p.seconds, 32 * 13.4217728e-6, 1e-12);
}

TEST(GemmWaves, DenseTransformerGemmsPerGpu) {
  // Llama 2 70B at TP 4: hidden 8,192, 64 heads and 8 KV heads of 128, MLP 28,672 gated, vocab
  // 32,000, 80 layers. QKV N = (64 + 16) × 128 ÷ 4 = 2,560; O K = 64 × 128 ÷ 4 = 2,048; gate/up
  // N = 2 × 28,672 ÷ 4 = 14,336; down K = 7,168; LM head N = 8,000, once.
  const ModelArch* m = testing::real_catalog().find_model("llama-2-70b");
  ASSERT_NE(m, nullptr);
  const std::vector<waves::Gemm> g = waves::dense_transformer_gemms(*m, 4);
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0].n, 2560);
  EXPECT_EQ(g[0].k, 8192);
  EXPECT_EQ(g[0].count, 80);
  EXPECT_EQ(g[1].n, 8192);
  EXPECT_EQ(g[1].k, 2048);
  EXPECT_EQ(g[2].n, 14336);
  EXPECT_EQ(g[3].k, 7168);
  EXPECT_EQ(g[4].n, 8000);
  EXPECT_EQ(g[4].count, 1);
  // A MoE model keeps its FLOP count: no shapes.
  const ModelArch* moe = testing::real_catalog().find_model("qwen3-235b-a22b");
  ASSERT_NE(moe, nullptr);
  EXPECT_TRUE(waves::dense_transformer_gemms(*moe, 8).empty());
}

TEST(GemmWaves, ServePricesTheShortPrefillByWaves) {
  // serve, Llama 2 7B fp8 on one H100 SXM (132 SMs), one 128-token prompt. The GEMMs' rate is
  // 1,978.9 TFLOP/s × 0.50 = 989.45 TFLOP/s, 7.4958e12 per SM; bandwidth 3.35e12 × 0.90 =
  // 3.015e12 B/s; a 128 × 128 tile's K-loop is 32,768 × K FLOP.
  //  QKV  N 12,288 K 4,096:  96 tiles, 1 wave: 134,217,728 ÷ 7.4958e12 = 17.906 us
  //       (read 50,331,648 B = 16.694 us) -> 17.906 us × 32 = 572.99 us
  //  O    N 4,096 K 4,096:   32 tiles, 1 wave: 17.906 us × 32 = 572.99 us
  //  gate/up N 22,016 K 4,096: 172 tiles, 2 waves: 35.812 us (read 29.909 us) × 32 = 1,145.98 us
  //  down N 4,096 K 11,008:  32 tiles, 1 wave: 360,710,144 ÷ 7.4958e12 = 48.122 us × 32 = 1,539.90 us
  //  LM head N 32,000 K 4,096: 250 tiles, 2 waves: 35.812 us; read 131,072,000 B = 43.473 us
  //  total 3,875.3 us. The FLOP count priced them at max(2 × 6,607,343,616 × 128 ÷ 989.45e12,
  //  6,738,415,616 B ÷ 3.015e12) = max(1.709, 2.235) ms = 2.235 ms: TTFT rises by 1.640 ms.
  Given g{{"model", "llama-2-7b"}, {"gpu", "h100-sxm"}, {"batch", "1"}, {"input-tokens", "128"},
          {"output-tokens", "1"}, {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"}};
  const double with = result(run("serve", g), "ttft_seconds");
  g["gemm-tile-m"] = "0";
  const double without = result(run("serve", g), "ttft_seconds");
  EXPECT_NEAR(with - without, 3.8753e-3 - 2.2350e-3, 2e-6);
}

TEST(GemmWaves, ServeRateWavesOnlyDenseModels) {
  // serve-rate prices a dense model's prompt GEMMs by waves: Llama 3.3 70B fp8 at TP 2, a 500-token
  // prompt (M = 500: 4 row tiles of 128, the last 116 rows empty), is at least as slow with tiles as
  // with the FLOP count, never faster: each GEMM's waves hold at least its FLOPs ÷ the rate, and the
  // weight read is the same. A MoE model (Qwen3 235B, routed experts) keeps its FLOP count, so the
  // tile changes nothing there.
  Given dense{{"model", "llama-3.3-70b"}, {"gpu", "h100-sxm"}, {"tp", "2"}, {"rate", "0.5"},
              {"input-tokens", "500"}, {"output-tokens", "100"}, {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"}};
  const double with = result(run("serve-rate", dense), "ttft_mean_seconds");
  dense["gemm-tile-m"] = "0";
  const double without = result(run("serve-rate", dense), "ttft_mean_seconds");
  EXPECT_GT(with, without);
  Given moe{{"model", "qwen3-235b-a22b"}, {"gpu", "h200"}, {"tp", "8"}, {"rate", "0.5"},
            {"input-tokens", "500"}, {"output-tokens", "100"}, {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"}};
  const double moe_with = result(run("serve-rate", moe), "ttft_mean_seconds");
  moe["gemm-tile-m"] = "0";
  EXPECT_EQ(result(run("serve-rate", moe), "ttft_mean_seconds"), moe_with);
}

}  // namespace
}  // namespace ridge::calc
