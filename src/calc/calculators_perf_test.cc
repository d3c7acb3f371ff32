// The performance model's calculators, `step` and `serve`. Each expectation is derived by hand
// in the comment above it. The fitted constants are pinned in every call (efficiency 0.5, link
// 1, no per-layer overhead) so that a refit changes `ridge validate`, not these tests.
#include <gtest/gtest.h>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

Given korthikanti_22b() {
  // Korthikanti et al. 2022, Table 3: 22B on 8 A100s, TP 8, batch 4 = one micro-batch of 4.
  return {{"model", "megatron-gpt-22b"}, {"gpu", "a100-80gb-sxm"}, {"gpus", "8"}, {"tp", "8"},
          {"seq", "2048"}, {"micro-batch", "4"}, {"global-batch", "4"}, {"recompute", "selective"},
          {"gemm-efficiency-max", "0.5"}, {"gemm-half-intensity", "0"}, {"link-efficiency", "1"}};
}

TEST(Step, Korthikanti22BOnEightA100s) {
  // N = V·h + L·(12h² + 9h + 2h norms) + h = 51,200·6,144 + 48 × 453,052,416 + 6,144
  //   = 22,061,094,912 (tied embeddings, the logit layer counted once).
  // Matmul FLOPs  6 × N × b·s = 6 × 22,061,094,912 × 8,192 = 1,084,346,937,114,624
  // Attention     12 × L × s² × h × b = 12 × 48 × 2,048² × 6,144 × 4 = 59,373,627,899,904
  // Selective     4 × 48 × 2,048² × 6,144 × 4 = 19,791,209,299,968
  // Per GPU       (sum) ÷ 8 = 145,438,971,789,312 FLOP; at 312 TFLOP/s × 0.5: 0.93230 s
  // TP            4 × 48 layers × 2·7/8 × (4·2,048·6,144·2 B = 100,663,296 B) ÷ 300 GB/s = 0.11274 s
  // Optimizer     22,061,094,912 ÷ 8 × 32 B ÷ 2,039 GB/s = 0.04328 s
  // Step          0.93230 + 0.11274 + 0.04328 = 1.08832 s (the paper measured 1.10 s)
  Derivation d = run("step", korthikanti_22b());
  EXPECT_NEAR(result(d, "step_seconds"), 1.08832, 1e-4);
  EXPECT_NEAR(result(d, "compute_seconds"), 0.93230, 1e-4);
  EXPECT_NEAR(result(d, "exposed_comm_seconds"), 0.11274, 1e-4);
  EXPECT_DOUBLE_EQ(result(d, "bubble_fraction"), 0);
  // MFU = (matmul + attention) ÷ step ÷ 8 ÷ 312 TFLOP/s = 1.14372e15 ÷ 1.08832 ÷ 2.496e15 = 0.4210;
  // HFU adds the recomputation: 1.16351e15 ÷ 1.08832 ÷ 2.496e15 = 0.4283 (the paper: 41.5%, 43.7%).
  EXPECT_NEAR(result(d, "mfu"), 0.4210, 1e-3);
  EXPECT_NEAR(result(d, "hfu"), 0.4283, 1e-3);
  // 4 × 2,048 tokens ÷ 1.08832 s ÷ 8 GPUs = 940.9 tokens/s per GPU.
  EXPECT_NEAR(result(d, "tokens_per_second_per_gpu"), 940.9, 0.1);
}

TEST(Step, FullRecomputationAddsAThirdOfTheLayers) {
  // Full recomputation: one more forward of the layers, (6 × (N − V·h) × b·s + attention) ÷ 3
  // = (6 × 21,746,522,112 × 8,192 + 59,373,627,899,904) ÷ 3 = 376,086,227,582,976 FLOP instead of
  // selective's 19,791,209,299,968; per GPU the difference is 44,536,877,285,376 FLOP = 0.28549 s
  // at 156 TFLOP/s, and the TP collectives go from 4 to 6 per layer: + 0.05637 s.
  Given g = korthikanti_22b();
  g["recompute"] = "full";
  Derivation full = run("step", g);
  EXPECT_NEAR(result(full, "step_seconds"), 1.08832 + 0.28549 + 0.05637, 2e-4);
}

TEST(Step, PipelineBubbleIsStagesMinusOneOverVirtualTimesMicroBatches) {
  // 175B (96 layers) on 64 GPUs: TP 8, PP 8, DP 1; 64 micro-batches of 1; vp 3:
  // bubble = (8 − 1) ÷ (3 × 64) = 0.036458.
  Derivation d = run("step", {{"model", "gpt-3-175b"}, {"gpu", "a100-80gb-sxm"}, {"gpus", "64"}, {"tp", "8"},
                              {"pp", "8"}, {"vp", "3"}, {"seq", "2048"}, {"global-batch", "64"}});
  EXPECT_NEAR(result(d, "bubble_fraction"), 7.0 / 192, 1e-9);
}

TEST(Step, LayoutErrorsAreNamed) {
  // 12 GPUs are not a multiple of tp 8; 6 sequences are not whole micro-batches of 4; 5 does not
  // divide 64 heads; pp 5 does not divide 48 layers.
  Given g = korthikanti_22b();
  g["gpus"] = "12";
  EXPECT_NE(to_string(errors_of("step", g)).find("--gpus"), std::string::npos);
  g = korthikanti_22b();
  g["global-batch"] = "6";
  EXPECT_NE(to_string(errors_of("step", g)).find("--global-batch"), std::string::npos);
  g = korthikanti_22b();
  g["tp"] = "5";
  g["gpus"] = "5";
  EXPECT_NE(to_string(errors_of("step", g)).find("--tp"), std::string::npos);
  g = korthikanti_22b();
  g["pp"] = "5";
  g["gpus"] = "40";
  EXPECT_NE(to_string(errors_of("step", g)).find("--pp"), std::string::npos);
  g = korthikanti_22b();
  g["ep"] = "2";
  EXPECT_NE(to_string(errors_of("step", g)).find("--ep"), std::string::npos);
}

Given llama7b_h100(const char* batch, const char* input, const char* output) {
  return {{"model", "llama-2-7b"}, {"gpu", "h100-sxm"}, {"batch", batch}, {"input-tokens", input},
          {"output-tokens", output}, {"weights-dtype", "fp8"}, {"kv-dtype", "fp8"},
          {"bandwidth-efficiency", "1"}, {"prefill-efficiency", "1"}, {"layer-overhead", "0"},
          {"kv-group-reuse", "1"}};
}

TEST(Serve, Llama7BBatchOneIsWeightBound) {
  // Llama 2 7B: N = 2 × 32,000 × 4,096 + 32 × (4·4,096² + 3·4,096·11,008 + 2·4,096) + 4,096
  //   = 6,738,415,616; matmul params (no input embedding) 6,607,343,616.
  // Prefill of 128 tokens: 2 × 6,607,343,616 × 128 + 2 × 32 × 128² × 4,096 = 1.69577e12 FLOP
  //   = 0.857 ms at 1,978.9 TFLOP/s (fp8), below reading 6,738,415,616 B at 3.35 TB/s = 2.0115 ms.
  Derivation d = run("serve", llama7b_h100("1", "128", "1"));
  EXPECT_NEAR(result(d, "ttft_seconds"), 2.0115e-3, 1e-7);
  // Decode at context 128 + 1/2: KV 2 × 32 × 32 × 128 × 1 B = 262,144 B/token × 128.5 = 33,685,504 B;
  // (6,738,415,616 + 33,685,504) B ÷ 3.35 TB/s = 2.0215 ms per token.
  EXPECT_NEAR(result(d, "tpot_seconds"), 2.0215e-3, 1e-7);
  EXPECT_NEAR(result(d, "output_tokens_per_second"), 1 / 2.0215e-3, 0.1);
  // One request: 2.0115 + 1 × 2.0215 ms = 4.0330 ms, 247.9 requests/s.
  EXPECT_NEAR(result(d, "requests_per_second"), 1 / 4.0330e-3, 0.1);
}

TEST(Serve, TensorParallelSplitsTheWeightsAndAddsAllReduces) {
  // tp 2 halves the weight read: 3,369,207,808 B ÷ 3.35 TB/s = 1.00573 ms of the decode step; the
  // KV (4 KV heads per GPU, 16,842,752 B) adds 0.00503 ms; two all-reduces per layer of 4,096 × 2 B
  // move 2 × 32 × 2·1/2 × 8,192 B = 524,288 B at 450 GB/s × 0.7: 0.00166 ms. Sum 1.01242 ms.
  Given g = llama7b_h100("1", "128", "1");
  g["tp"] = "2";
  Derivation d = run("serve", g);
  EXPECT_NEAR(result(d, "tpot_seconds"), 1.01242e-3, 2e-8);
  EXPECT_NEAR(result(d, "output_tokens_per_second_per_gpu"), 1 / 1.01242e-3 / 2, 0.1);
}

}  // namespace
}  // namespace ridge::calc
