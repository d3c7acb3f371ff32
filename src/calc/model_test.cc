#include "calc/model.h"

#include <gtest/gtest.h>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

const ModelArch& model(const char* id) {
  const ModelArch* m = testing::real_catalog().find_model(id);
  if (m == nullptr) {
    ADD_FAILURE() << "missing data/models/" << id << ".json";
    static ModelArch empty;
    return empty;
  }
  return *m;
}

// Published counts: the model cards (Hugging Face safetensors totals) and papers; see
// data/models/PUBLISHED.md for each source.
struct Published {
  const char* id;
  double total;
  double active;     // 0 for dense
  double tolerance;  // relative
};

class PublishedCounts : public ::testing::TestWithParam<Published> {};

TEST_P(PublishedCounts, DerivedCountMatchesTheModelCard) {
  const Published& p = GetParam();
  ParamCount c = count_params(model(p.id));
  EXPECT_NEAR(c.total / p.total, 1.0, p.tolerance) << p.id << " total " << c.total;
  if (p.active > 0) {
    EXPECT_NEAR(c.active / p.active, 1.0, p.tolerance) << p.id << " active " << c.active;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, PublishedCounts,
    ::testing::Values(Published{"llama-3.1-8b", 8.03e9, 0, 0.002},      // card: 8.03B
                      Published{"llama-3.1-70b", 70.6e9, 0, 0.002},     // card: 70.6B
                      Published{"llama-3.1-405b", 405.9e9, 0, 0.003},   // card: 406B (405,853,388,800)
                      Published{"llama-3.3-70b", 70.6e9, 0, 0.002},
                      Published{"qwen2.5-72b", 72.7e9, 0, 0.002},       // card: 72.7B
                      Published{"mixtral-8x7b", 46.7e9, 12.9e9, 0.005}, // Mistral: 46.7B total, 12.9B active
                      Published{"deepseek-v3", 671e9, 37e9, 0.02},     // paper: 671B total, 37B activated
                      // Built from Narayanan et al. 2021 Table 1 (sizes to 0.1B; the engine leaves
                      // out the 2,048 × h position table): 145.6B, 310.1B, 529.6B, 1008.0B.
                      Published{"megatron-gpt-145.6b", 145.6e9, 0, 0.001},
                      Published{"megatron-gpt-310.1b", 310.1e9, 0, 0.001},
                      Published{"megatron-gpt-530b", 529.6e9, 0, 0.001},
                      Published{"megatron-gpt-1t", 1008.0e9, 0, 0.001}));

TEST(Model, Gpt2TypeHasAPlainMlpWithBiases) {
  // megatron-gpt-22b (Korthikanti et al. 2022 Table 3): h = 6,144, 48 layers, vocab 51,200.
  // Per layer: attention 4h² + 4h = 151,019,520; MLP 8h² + 5h = 302,020,608; norms 2h = 12,288;
  // × 48 = 21,746,515,968; + embedding 51,200 × 6,144 = 314,572,800 (tied) + final norm 6,144.
  const ModelArch& m = model("megatron-gpt-22b");
  EXPECT_FALSE(m.gated_mlp);
  EXPECT_DOUBLE_EQ(count_params(m).total, 22061094912.0);
}

TEST(Model, Llama8BIsExact) {
  // embeddings 128,256 × 4,096 twice (untied) = 1,050,673,152
  // per layer: attention 2 × 4096² + 2 × 4096 × 1024 = 41,943,040; MLP 3 × 4096 × 14336 =
  // 176,160,768; two norms 8,192 -> 218,112,000 × 32 layers = 6,979,584,000; final norm 4,096.
  EXPECT_DOUBLE_EQ(count_params(model("llama-3.1-8b")).total, 8030261248.0);
}

TEST(Model, Llama70BKvPerToken) {
  // 2 × 80 layers × 8 KV heads × 128 × 2 B = 327,680 B.
  EXPECT_DOUBLE_EQ(kv_elements_per_token(model("llama-3.1-70b")) * 2, 327680.0);
}

TEST(Model, LatentAttentionCachesTheCompressedVector) {
  // DeepSeek-V3: 61 layers × (512 + 64) × 2 B = 70,272 B per token in bf16.
  const ModelArch& m = model("deepseek-v3");
  EXPECT_TRUE(m.is_mla());
  EXPECT_EQ(m.moe_layers, 58);  // first 3 dense
  EXPECT_DOUBLE_EQ(kv_elements_per_token(m) * 2, 70272.0);
}

TEST(Model, MultiQueryAndTiedEmbeddingsFromASmallConfig) {
  auto m = parse_model_config(R"({"hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
    "multi_query": true, "intermediate_size": 4096, "vocab_size": 1000})", "tiny");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
  EXPECT_EQ(m->kv_heads, 1);
  EXPECT_TRUE(m->tied_embeddings);
  // embed 1,024,000 (tied); per layer: q and o 2 × 1024², k and v 2 × 1024 × 128, MLP
  // 3 × 1024 × 4096, norms 2,048; final norm 1,024.
  double per_layer = 2.0 * 1024 * 1024 + 2.0 * 1024 * 128 + 3.0 * 1024 * 4096 + 2048;
  EXPECT_DOUBLE_EQ(count_params(*m).total, 1024000 + 2 * per_layer + 1024);
  EXPECT_DOUBLE_EQ(kv_elements_per_token(*m), 2.0 * 2 * 1 * 128);
}

TEST(Model, NestedTextConfigIsRead) {
  auto m = parse_model_config(R"({"model_type": "llava", "text_config": {"hidden_size": 512,
    "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 100,
    "tie_word_embeddings": false}})", "nested");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
  EXPECT_EQ(m->layers, 4);
  EXPECT_EQ(m->kv_heads, 2);
  EXPECT_FALSE(m->tied_embeddings);
}

TEST(Model, ErrorsNameTheKey) {
  auto missing = parse_model_config(R"({"num_hidden_layers": 2})", "bad");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.errors()[0].field, "config.json:hidden_size");

  auto indivisible = parse_model_config(R"({"hidden_size": 1024, "num_hidden_layers": 2,
    "num_attention_heads": 8, "num_key_value_heads": 3, "vocab_size": 10})", "bad");
  ASSERT_FALSE(indivisible.ok());
  EXPECT_EQ(indivisible.errors()[0].field, "config.json:num_key_value_heads");

  auto wrong_type = parse_model_config(R"({"hidden_size": "big", "num_hidden_layers": 2,
    "num_attention_heads": 8, "vocab_size": 10})", "bad");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.errors()[0].field, "config.json:hidden_size");

  EXPECT_FALSE(parse_model_config("not json", "bad").ok());
  EXPECT_FALSE(parse_model_config("[1,2]", "bad").ok());
}

}  // namespace
}  // namespace ridge::calc

namespace ridge::calc {
namespace {

// A minimal config with a window; `extra` adds the keys that say which layers slide.
std::string windowed(const std::string& extra) {
  return R"({"model_type": "test", "hidden_size": 1024, "num_hidden_layers": 12, "num_attention_heads": 8,
             "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 1000, "max_position_embeddings": 32768,
             "sliding_window": 512)" + extra + "}";
}

TEST(Model, SlidingWindowLayersFromEachConvention) {
  // No other key (Mistral 7B v0.1): every layer slides.
  auto all = parse_model_config(windowed(""), "t");
  ASSERT_TRUE(all.ok()) << to_string(all.errors());
  EXPECT_EQ(all->sliding_layers, 12);
  EXPECT_EQ(all->max_position_embeddings, 32768);
  // Gemma 3's sliding_window_pattern 6: every 6th layer is global, 12 − 12/6 = 10 slide.
  EXPECT_EQ(parse_model_config(windowed(R"(, "sliding_window_pattern": 6)"), "t")->sliding_layers, 10);
  // Qwen's max_window_layers 8 with use_sliding_window: layers 8..11 slide, 4 of them.
  EXPECT_EQ(parse_model_config(windowed(R"(, "use_sliding_window": true, "max_window_layers": 8)"), "t")->sliding_layers, 4);
  // Qwen with the window switched off: none, and the window is dropped.
  auto off = parse_model_config(windowed(R"(, "use_sliding_window": false)"), "t");
  EXPECT_EQ(off->sliding_window, 0);
  EXPECT_FALSE(off->has_sliding_window());
  // layer_types must list every layer.
  auto bad = parse_model_config(windowed(R"(, "layer_types": ["sliding_attention", "full_attention"])"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors()[0].field, "config.json:layer_types");
}

TEST(Model, GptOssAlternatesSlidingAndFullLayers) {
  // gpt-oss-120b's layer_types: 18 sliding_attention and 18 full_attention over 36 layers.
  const ModelArch& m = model("gpt-oss-120b");
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(m.sliding_layers, 18);
  // KV elements per token 2 × 36 × 8 × 64 = 36,864, per layer 1,024. At 1,000 tokens:
  // 1,024 × (18 × 1,000 + 18 × 128) = 20,791,296 elements; at 100 tokens (inside the window)
  // 36,864 × 100 = 3,686,400.
  EXPECT_DOUBLE_EQ(kv_elements_per_sequence(m, 1000), 20791296.0);
  EXPECT_DOUBLE_EQ(kv_elements_per_sequence(m, 100), 3686400.0);
  EXPECT_FALSE(model("llama-3.1-8b").has_sliding_window());
}

}  // namespace
}  // namespace ridge::calc

namespace ridge::calc {
namespace {

// Finding 9: hostile config.json files crashed the CLI (deep nesting), hung it (2^40
// layers), printed "KV per token 0 B" (overflow), or said only "is not a JSON object".
TEST(Model, Finding09_HostileConfigsGetClearErrors) {
  std::string deep = "{\"hidden_size\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto d = parse_model_config(deep, "deep.json");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.errors()[0].message.find("nests arrays or objects 100001 deep"), std::string::npos) << d.errors()[0].message;
  auto huge = parse_model_config(R"({"hidden_size": 7168, "num_hidden_layers": 1099511627776, "num_attention_heads": 128,
    "vocab_size": 129280, "kv_lora_rank": 1099511627776})", "moe.json");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(to_string(huge.errors()).find("num_hidden_layers"), std::string::npos);
  EXPECT_NE(to_string(huge.errors()).find("2^24"), std::string::npos);
  auto overflow = parse_model_config(R"({"hidden_size": 1e400})", "e.json");
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.errors()[0].message.find("not valid JSON"), std::string::npos);
  auto utf16 = parse_model_config(std::string("\xFF\xFE{\0}\0", 6), "u16.json");
  ASSERT_FALSE(utf16.ok());
  EXPECT_NE(utf16.errors()[0].message.find("UTF-16"), std::string::npos);
  std::string big(kMaxConfigBytes + 1, ' ');
  auto large = parse_model_config(big, "big.json");
  ASSERT_FALSE(large.ok());
  EXPECT_NE(large.errors()[0].message.find("at most 4 MiB"), std::string::npos);
  // Values in messages are clipped to 80 characters.
  auto longval = parse_model_config("{\"hidden_size\": \"" + std::string(5000, 'x') + "\", \"num_hidden_layers\": 2}", "l.json");
  ASSERT_FALSE(longval.ok());
  for (const auto& e : longval.errors()) EXPECT_LE(e.value.size(), 80u);
}

// Issue 28, critical: mlp_only_layers was scanned once per layer (16 s for a 20 KB body at
// 2^24 layers). The count is now arithmetic; these check it against the per-layer rule.
TEST(Model, Finding28_MlpOnlyLayersCountedWithoutALoopOverLayers) {
  std::string only = "[";
  for (int i = 0; i < 5000; ++i) only += (i ? "," : "") + std::to_string(i * 7);
  only += ",7,7,14,99999999999,-3]";  // repeats count once; indices outside the model are ignored
  auto m = parse_model_config(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 16777216,
    "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 16, "vocab_size": 100, "intermediate_size": 128,
    "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "decoder_sparse_step": 1,
    "mlp_only_layers": )" + only + "}", "huge-moe.json");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
  EXPECT_EQ(m->moe_layers, 16777216 - 5000);

  // Every second layer sparse, counted from one (Qwen), after 3 dense layers; layer 5 listed dense.
  auto q = parse_model_config(R"({"model_type": "qwen2_moe", "hidden_size": 64, "num_hidden_layers": 12,
    "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "num_experts": 8, "num_experts_per_tok": 2,
    "decoder_sparse_step": 2, "first_k_dense_replace": 3, "mlp_only_layers": [5, 5, 4]})", "q.json");
  ASSERT_TRUE(q.ok()) << to_string(q.errors());
  // Sparse by the rule: (l + 1) % 2 == 0 and l >= 3: 3, 5, 7, 9, 11; minus 5 (4 is not sparse).
  EXPECT_EQ(q->moe_layers, 4);

  // DeepSeek counts from zero: moe_layer_freq 1 after first_k_dense_replace 3 of 61 layers.
  auto d = parse_model_config(R"({"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 61,
    "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "n_routed_experts": 8, "num_experts_per_tok": 2,
    "moe_layer_freq": 1, "first_k_dense_replace": 3})", "d.json");
  ASSERT_TRUE(d.ok()) << to_string(d.errors());
  EXPECT_EQ(d->moe_layers, 58);

  auto too_long = parse_model_config(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "num_experts": 8, "num_experts_per_tok": 2,
    "mlp_only_layers": [0, 1, 1]})", "long.json");
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(to_string(too_long.errors()).find("mlp_only_layers"), std::string::npos);
}

}  // namespace
}  // namespace ridge::calc
