// The recurrent state of hybrid models in the serving calculators: split (not copied) across a
// tensor-parallel group, held at the dtype the config names, and described with counts that
// agree with their nouns. Each expectation is derived by hand in the comment above it from the
// config.json in data/models.
#include <gtest/gtest.h>

#include "calc/common.h"
#include "calc/model.h"
#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::result;
using testing::run;

bool assumes(const Derivation& d, const std::string& text) {
  for (const auto& a : d.assumptions()) {
    if (a.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(FitState, RecurrentStateIsSplitAcrossTheTensorParallelGroupNotCopied) {
  // Qwen3-Next-80B-A3B: 48 layers, a full-attention layer every 4th (12), Gated DeltaNet on the
  // other 36. Full attention: 2 KV heads of 256, so 8 GPUs hold each KV head 8 / 2 = 4 times.
  // KV at 32,768 tokens: 12 × 2 × 2 × 256 × 2 B = 24,576 B per token × 32,768 = 805,306,368 B.
  // State per Gated DeltaNet layer: 32 × 128 × 128 + (2 × 16 × 128 + 32 × 128) × 3 = 548,864
  // elements; 36 layers × 548,864 × 2 B = 39,518,208 B.
  // Held across the group: 805,306,368 × 4 + 39,518,208 = 3,260,743,680 B (the state's value
  // heads are split 32 / 8 = 4 per GPU: one copy in all). Copying it too would give
  // 844,824,576 × 4 = 3,379,298,304 B, 118,554,624 B (about 119 MB) more per sequence.
  Derivation d = run("fit", {{"model", "qwen3-next-80b-a3b"}, {"gpu", "h200"}, {"gpus", "8"}, {"context", "32768"}});
  EXPECT_EQ(result(d, "kv_replication"), 4);
  EXPECT_DOUBLE_EQ(result(d, "state_bytes_per_sequence"), 39518208.0);
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_sequence"), 844824576.0);
  EXPECT_DOUBLE_EQ(result(d, "cache_bytes_held_per_sequence"), 3260743680.0);
  EXPECT_TRUE(assumes(d, "recurrent state is split across the group by head"));
}

TEST(DecodeState, KvReadCopiesOnlyTheAttentionCache) {
  // The same model decoding at tp 8, batch 1, 32,768 tokens on an H200 (4.8 TB/s): per GPU the
  // step reads (805,306,368 × 4 + 39,518,208) ÷ 8 = 407,592,960 B, 84.915 us.
  Derivation d = run("decode", {{"model", "qwen3-next-80b-a3b"}, {"gpu", "h200"}, {"tp", "8"}, {"context", "32768"}});
  EXPECT_NEAR(result(d, "kv_read_seconds"), 3260743680.0 / 8 / 4.8e12, 1e-12);
}

TEST(FitState, MambaSsmCacheDtypeFloat32HoldsTheSsmStateAtFourBytes) {
  // Nemotron 3 Nano 30B-A3B: hybrid_override_pattern has 23 M (Mamba-2) and 6 * (attention)
  // layers; mamba_ssm_cache_dtype float32. Mamba-2: 64 heads of 64, ssm_state_size 128, 8
  // groups, conv 4: SSM state 64 × 64 × 128 = 524,288 elements at 4 B = 2,097,152 B; conv window
  // (4,096 + 2 × 8 × 128) × 3 = 18,432 elements at 2 B = 36,864 B; per layer 2,134,016 B;
  // 23 layers 49,082,368 B (49.1 MB; at 2 B throughout it would be 23 × 1,085,440 = 24,965,120).
  // KV: 6 × 2 × 2 × 128 × 2 B = 6,144 B per token; × 2,048 = 12,582,912 B.
  Derivation d = run("fit", {{"model", "nemotron-3-nano-30b-a3b"}, {"gpu", "h200"}, {"context", "2048"}});
  EXPECT_DOUBLE_EQ(result(d, "state_bytes_per_sequence"), 49082368.0);
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_token"), 6144.0);
  EXPECT_DOUBLE_EQ(result(d, "kv_bytes_per_sequence"), 12582912.0 + 49082368.0);
  EXPECT_TRUE(assumes(d, "mamba_ssm_cache_dtype float32"));
  // An fp8 KV cache halves the KV (6 × 2 × 2 × 128 × 1 B = 3,072 B per token) but not the state,
  // which engines keep in the model's dtype (vLLM mamba_cache_dtype auto): still 49,082,368 B.
  Derivation fp8 = run("fit", {{"model", "nemotron-3-nano-30b-a3b"}, {"gpu", "h200"}, {"context", "2048"},
                               {"kv-dtype", "fp8"}});
  EXPECT_DOUBLE_EQ(result(fp8, "kv_bytes_per_token"), 3072.0);
  EXPECT_DOUBLE_EQ(result(fp8, "state_bytes_per_sequence"), 49082368.0);
  // --state-dtype bf16 overrides the config: 24,965,120 B.
  Derivation bf16 = run("fit", {{"model", "nemotron-3-nano-30b-a3b"}, {"gpu", "h200"}, {"context", "2048"},
                                {"state-dtype", "bf16"}});
  EXPECT_DOUBLE_EQ(result(bf16, "state_bytes_per_sequence"), 24965120.0);
}

TEST(FitState, ModelsWithoutAStateDtypeKeepTheirStateAtTheCacheDtype) {
  // Nemotron-H 56B names no state dtype: 54 Mamba-2 layers of 256 heads × 64 × 256 state plus
  // (16,384 + 2 × 8 × 256) × 3 = 61,440 conv elements: 4,194,304 + 61,440 = 4,255,744 elements,
  // × 2 B × 54 = 459,620,352 B.
  Derivation d = run("fit", {{"model", "nemotron-h-56b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "8192"}});
  EXPECT_DOUBLE_EQ(result(d, "state_bytes_per_sequence"), 459620352.0);
}

TEST(Describe, CountsAgreeWithTheirNouns) {
  // A 4-layer Qwen3-Next: layers 0-2 Gated DeltaNet, layer 3 full attention (interval 4).
  auto m = parse_model_config(R"({"model_type": "qwen3_next", "hidden_size": 256, "num_hidden_layers": 4,
    "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 64, "intermediate_size": 512,
    "vocab_size": 1000, "num_experts": 1, "num_experts_per_tok": 1, "moe_intermediate_size": 64})", "q");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
  std::string lines;
  for (const auto& line : describe_runs(*m, 2)) lines += line + "\n";
  EXPECT_NE(lines.find("3 Gated DeltaNet layers:"), std::string::npos) << lines;
  EXPECT_NE(lines.find("1 full-attention layer:"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("1 full-attention layers"), std::string::npos) << lines;
  std::string notes;
  for (const auto& note : m->notes) notes += note + "\n";
  EXPECT_NE(notes.find("1 layer: full-attention + MoE (1 expert, 1 per token"), std::string::npos) << notes;
  EXPECT_NE(notes.find("3 layers: Gated DeltaNet"), std::string::npos) << notes;
  EXPECT_EQ(count_of(1, "layer"), "1 layer");
  EXPECT_EQ(count_of(2, "kind of layer", "kinds of layer"), "2 kinds of layer");
  EXPECT_EQ(count_of(0, "sequence"), "0 sequences");
  // One sequence that fits says so in the singular.
  Derivation one = run("fit", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"context", "8192"},
                               {"sequences", "1"}});
  EXPECT_EQ(one.conclusion().rfind("Fits: 1 sequence of 8,192 tokens needs ", 0), 0u) << one.conclusion();
  // The model line: one layer, one KV head.
  auto mqa = parse_model_config(R"({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 1,
    "num_attention_heads": 4, "num_key_value_heads": 1, "vocab_size": 1000})", "mqa");
  ASSERT_TRUE(mqa.ok()) << to_string(mqa.errors());
  Derivation line("fit", "t");
  detail::describe_model(line, *mqa, "config");
  ASSERT_FALSE(line.inputs().empty());
  EXPECT_NE(line.inputs()[0].display.find("1 layer, hidden 256, 4 heads, 1 KV head of 64"), std::string::npos)
      << line.inputs()[0].display;
}

}  // namespace
}  // namespace ridge::calc
