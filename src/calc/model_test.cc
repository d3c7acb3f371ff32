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

// Issue 29: models as runs of layers. Expected figures come from the checkpoints' tensor
// inventories or the modelling code's shapes (data/models/PUBLISHED.md and the notes in
// /work/briefs/models-progress.md name each source), not from this program.
namespace ridge::calc {
namespace {

// Cache bytes one sequence holds at `context` tokens with a 2-byte cache: every layer's KV
// within its bound plus the fixed recurrent state.
double cache_bytes(const ModelArch& m, double context) {
  return 2 * (kv_elements_per_sequence(m, context) + state_elements_per_sequence(m));
}

struct Expected {
  const char* id;
  double total;         // exact sum of the checkpoint's (or modelling code's) tensor shapes, main model
  double active;        // per token with embedding and head counted (6ND's N), 0 when dense
  double published_total, published_active, rounding;  // the card's figures and their rounding
  bool published_active_without_embeddings;             // the card leaves embedding and head out
  double kv4k, kv32k, kv128k;                            // bytes per sequence, derivation below
};

class LayerRuns : public ::testing::TestWithParam<Expected> {};

TEST_P(LayerRuns, ParametersAndCacheMatchTheDerivation) {
  const Expected& e = GetParam();
  const ModelArch& m = model(e.id);
  ParamCount p = count_params(m);
  if (e.total > 0) {
    EXPECT_DOUBLE_EQ(p.total, e.total) << e.id;
  }
  if (e.active > 0) {
    EXPECT_DOUBLE_EQ(p.active, e.active) << e.id;
  }
  EXPECT_NEAR(p.total, e.published_total, e.rounding) << e.id;
  double active = e.published_active_without_embeddings ? p.active - p.embedding - p.lm_head : p.active;
  if (e.published_active > 0) {
    EXPECT_NEAR(active, e.published_active, e.rounding) << e.id;
  }
  EXPECT_DOUBLE_EQ(cache_bytes(m, 4096), e.kv4k) << e.id;
  EXPECT_DOUBLE_EQ(cache_bytes(m, 32768), e.kv32k) << e.id;
  EXPECT_DOUBLE_EQ(cache_bytes(m, 131072), e.kv128k) << e.id;
}

INSTANTIATE_TEST_SUITE_P(
    Models2025, LayerRuns,
    ::testing::Values(
        // Qwen3-Next-80B-A3B: safetensors scan 81,324,862,720 less the MTP module 1,650,471,424.
        // Card: 80B total, 3B activated (non-embedding). 12 gated full-attention layers 2 × 2 × 256
        // per token; 36 Gated DeltaNet layers of 32 × 128 × 128 + 8,192 × 3 = 548,864 elements.
        // 4k: 12 × 1,024 × 4,096 × 2 B = 100,663,296 + 36 × 548,864 × 2 B = 39,518,208.
        Expected{"qwen3-next-80b-a3b", 79674391296.0, 3874929408.0, 80e9, 3e9, 0.5e9, true,
                 140181504.0, 844824576.0, 3260743680.0},
        // Kimi-Linear-48B-A3B: safetensors scan 49,122,681,728; README 48B total, 3B active.
        // 7 MLA layers (512 + 64) per token; 20 KDA layers 32 × 128 × 128 + 3 × 4,096 × 3 = 561,152.
        // 4k: 7 × 576 × 4,096 × 2 B = 33,030,144 + 20 × 561,152 × 2 B = 22,446,080.
        Expected{"kimi-linear-48b-a3b", 49122681728.0, 3484459904.0, 48e9, 3e9, 1.5e9, true,
                 55476224.0, 286687232.0, 1079410688.0},
        // MiniMax-M1: tensor sum 456,089,655,296; README 456B total, 45.9B activated (without
        // embedding and head); within 0.1B, the looser of the two roundings (456B to ±0.5B). 10 softmax layers 2 × 8 × 128 per token; 70 Lightning layers of
        // 64 × 128 × 128 = 1,048,576. 4k: 10 × 2,048 × 4,096 × 2 B + 70 × 1,048,576 × 2 B.
        Expected{"minimax-m1", 456089655296.0, 48403306496.0, 456e9, 45.9e9, 0.1e9, true,
                 314572800.0, 1488977920.0, 5515509760.0},
        // MiniMax-M2.7: 228,689,764,864 weights (fp8 block scales aside); M2 README 230B / 10B.
        // 62 layers 2 × 8 × 128 × 2 B = 4,096 B per token each: 253,952 B per token.
        Expected{"minimax-m2.7", 228689764864.0, 11030553088.0, 230e9, 10e9, 1.5e9, true,
                 1040187392.0, 8321499136.0, 33285996544.0},
        // GLM-5.1: 753,864,139,008 less the MTP layer 9,952,920,576; GLM-5 report 744B / 40B.
        // 78 MLA layers: (512 + 64) latent + a 128-wide indexer key = 704 elements per token.
        Expected{"glm-5.1", 743911218432.0, 41784728832.0, 744e9, 40e9, 0.5e9, true,
                 449839104.0, 3598712832.0, 14394851328.0},
        // Nemotron 3 Nano: modelling shapes 31,577,940,288; report 31.6B total, 3.6B active with
        // embeddings (3.2B without the input embedding). 6 attention layers 2 × 2 × 128; 23 Mamba-2 layers
        // 64 × 64 × 128 + 6,144 × 3 = 542,720 elements.
        Expected{"nemotron-3-nano-30b-a3b", 31577940288.0, 3580076352.0, 31.6e9, 3.6e9, 0.05e9, false,
                 50130944.0, 226291712.0, 830271488.0},
        // Nemotron-H-56B: modelling shapes 56,324,350,464 (name: 56B). 10 attention layers
        // 2 × 8 × 128; 54 Mamba-2 layers 256 × 64 × 256 + 20,480 × 3 = 4,255,744 elements.
        Expected{"nemotron-h-56b", 56324350464.0, 0, 56e9, 0, 0.5e9, false,
                 627392512.0, 1801797632.0, 5828329472.0},
        // Llama 4 Scout (text): 107,769,861,120; card 109B with the vision tower (871,932,416), 17B
        // active. 12 global layers keep the context, 36 chunked layers at most 8,192 tokens, each
        // 2 × 8 × 128 × 2 B = 4,096 B per token: 32k = 12 × 4,096 × 32,768 + 36 × 4,096 × 8,192.
        Expected{"llama-4-scout-17b-16e", 107769861120.0, 17172894720.0, 109e9 - 871932416.0, 17e9, 0.5e9, false,
                 805306368.0, 2818572288.0, 7650410496.0},
        // Gemma 4 26B-A4B: card 25.2B total, 3.8B active. 25 sliding layers 2 × 8 × 256 × 2 B at
        // most 1,024 tokens; 5 global layers 2 × 2 × 512 × 2 B = 4,096 B per token.
        // 4k: 25 × 8,192 × 1,024 + 5 × 4,096 × 4,096 = 293,601,280.
        Expected{"gemma-4-26b-a4b", 0, 0, 25.2e9, 3.8e9, 0.05e9, false, 293601280.0, 880803840.0, 2894069760.0},
        // Qwen3.6-27B (dense): language-model inventory 26,895,998,464 (name: 27B). 16 gated full
        // layers 2 × 4 × 256; 48 Gated DeltaNet layers 48 × 128 × 128 + 10,240 × 3 = 817,152.
        Expected{"qwen3.6-27b", 26895998464.0, 0, 27e9, 0, 0.5e9, false, 346882048.0, 2225930240.0, 8668381184.0},
        // Qwen3.5-35B-A3B: language-model inventory 34,660,610,688; card 35B / 3B. 10 full layers
        // 2 × 2 × 256; 30 Gated DeltaNet layers of 548,864 elements.
        Expected{"qwen3.5-35b-a3b", 34660610688.0, 3454988928.0, 35e9, 3e9, 0.5e9, false,
                 116817920.0, 704020480.0, 2717286400.0},
        // MiMo-V2.5: language-model inventory 308,778,780,864 (no vendor figure). 9 full layers
        // 4 × (192 + 128) per token; 39 window layers 8 × (192 + 128), at most 128 tokens:
        // 4k = 9 × 2,560 × 4,096 + 39 × 5,120 × 128 = 94,371,840 + 25,559,040.
        Expected{"mimo-v2.5", 308778780864.0, 15445936320.0, 308778780864.0, 0, 1, false,
                 119930880.0, 780533760.0, 3045457920.0}),
    [](const ::testing::TestParamInfo<Expected>& param_info) {
      std::string name = param_info.param.id;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(Model, HybridRunsAreGroupedByKind) {
  const ModelArch& m = model("qwen3-next-80b-a3b");
  ASSERT_EQ(m.runs.size(), 2u);
  EXPECT_EQ(m.runs[0].count, 36);  // layer 0 is Gated DeltaNet (full attention every 4th: 3, 7, ...)
  EXPECT_EQ(m.runs[0].mixers[0].kind, MixerKind::kLinearAttention);
  EXPECT_EQ(m.runs[1].count, 12);
  EXPECT_TRUE(m.is_hybrid());
  EXPECT_EQ(m.cache_layers(), 12);
  // 12 × 2 × 2 × 256 = 12,288 cache elements per token; every layer MoE.
  EXPECT_DOUBLE_EQ(kv_elements_per_token(m), 12288.0);
  EXPECT_EQ(m.moe_layers, 48);
}

TEST(Model, AttentionFlopsFollowEachLayersBound) {
  // Llama 4 Scout at 32,768 tokens: 12 full layers s²/2 = 536,870,912 pairs; 36 chunked layers
  // 4 chunks × 8,192² / 2 = 134,217,728 pairs; each pair 2 × 40 × (128 + 128) FLOP.
  const ModelArch& m = model("llama-4-scout-17b-16e");
  const double per_pair = 2.0 * 40 * 256;
  EXPECT_DOUBLE_EQ(attention_flops_per_sequence(m, 32768), per_pair * (12 * 536870912.0 + 36 * 134217728.0));
  // Decode at 32,768: full layers read 32,768 tokens, chunked ones at most 8,192.
  EXPECT_DOUBLE_EQ(attention_flops_per_decode_token(m, 32768), per_pair * (12 * 32768.0 + 36 * 8192.0));
  // Full attention keeps the old formula: layers × heads × s² × (qk + v) for Llama 3.1 8B.
  EXPECT_DOUBLE_EQ(attention_flops_per_sequence(model("llama-3.1-8b"), 1000), 32.0 * 32 * 1000 * 1000 * 256);
}

std::string tiny(const std::string& type, const std::string& extra) {
  return R"({"model_type": ")" + type + R"(", "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512, "vocab_size": 1000,
             "max_position_embeddings": 8192)" + extra + "}";
}

TEST(Model, UnknownMixerOfAnUnknownFamilyIsRefusedByName) {
  auto listed = parse_model_config(tiny("retnet_lm", R"(, "layer_types": ["retention", "retention", "full_attention", "retention"])"), "r");
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.errors()[0].field, "config.json:layer_types[0]");
  EXPECT_NE(listed.errors()[0].value.find("retention"), std::string::npos);
  auto keyed = parse_model_config(tiny("xyz", R"(, "xyz_linear_attention": true)"), "x");
  ASSERT_FALSE(keyed.ok());
  EXPECT_EQ(keyed.errors()[0].field, "config.json:xyz_linear_attention");
  EXPECT_NE(keyed.errors()[0].message.find("not modelled"), std::string::npos);
  // A known family carrying a key it does not model is refused too (Mamba keys on Llama).
  auto mamba = parse_model_config(tiny("llama", R"(, "mamba_d_state": 16)"), "m");
  ASSERT_FALSE(mamba.ok());
  EXPECT_EQ(mamba.errors()[0].field, "config.json:mamba_d_state");
  // Inactive values change nothing and pass.
  EXPECT_TRUE(parse_model_config(tiny("llama", R"(, "attention_chunk_size": null)"), "n").ok());
}

TEST(Model, UnknownFamilyWithKnownKeysSaysWhichDefaults) {
  auto m = parse_model_config(tiny("brandnew", ""), "b");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
  bool said = false;
  for (const auto& note : m->notes) said = said || note.find("Llama defaults") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Model, ImpossibleModelsAreRefused) {
  auto window = parse_model_config(tiny("mistral", R"(, "sliding_window": 16384)"), "w");
  ASSERT_FALSE(window.ok());
  EXPECT_EQ(window.errors()[0].field, "config.json:sliding_window");
  auto experts = parse_model_config(tiny("qwen3_moe", R"(, "num_experts": 4, "num_experts_per_tok": 8)"), "e");
  ASSERT_FALSE(experts.ok());
  EXPECT_EQ(experts.errors()[0].field, "config.json:num_experts_per_tok");
  auto pattern = parse_model_config(tiny("nemotron_h", R"(, "hybrid_override_pattern": "M*-")"), "p");
  ASSERT_FALSE(pattern.ok());
  EXPECT_EQ(pattern.errors()[0].field, "config.json:hybrid_override_pattern");
  auto block = parse_model_config(tiny("nemotron_h", R"(, "hybrid_override_pattern": "M*-X")"), "p");
  ASSERT_FALSE(block.ok());
  EXPECT_EQ(block.errors()[0].field, "config.json:hybrid_override_pattern[3]");
}

TEST(Model, FamilyDefaultsFillAbsentKeys) {
  // Qwen3-Next with no linear_* keys: transformers' defaults, 16 key heads of 128, 32 value
  // heads of 128, conv 4, a full layer every 4: layers 0-2 Gated DeltaNet, layer 3 full.
  auto q = parse_model_config(tiny("qwen3_next", ""), "q");
  ASSERT_TRUE(q.ok()) << to_string(q.errors());
  // State: 32 × 128 × 128 + (2 × 16 × 128 + 32 × 128) × 3 = 524,288 + 24,576 per linear layer.
  EXPECT_DOUBLE_EQ(state_elements_per_sequence(*q), 3 * 548864.0);
  // A missing vocab_size takes the family's default (Qwen: 151,936).
  auto v = parse_model_config(R"({"model_type": "qwen3", "hidden_size": 256, "num_hidden_layers": 2,
    "num_attention_heads": 4, "head_dim": 64})", "v");
  ASSERT_TRUE(v.ok()) << to_string(v.errors());
  EXPECT_EQ(v->vocab, 151936);
  // Latent attention needs no head_dim (hidden 100 over 3 heads is not whole).
  auto mla = parse_model_config(R"({"model_type": "deepseek_v3", "hidden_size": 100, "num_hidden_layers": 2,
    "num_attention_heads": 3, "vocab_size": 10, "kv_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8})", "mla");
  ASSERT_TRUE(mla.ok()) << to_string(mla.errors());
  EXPECT_DOUBLE_EQ(kv_elements_per_token(*mla), 2.0 * (16 + 8));
}

TEST(Model, FalconH1RunsAttentionAndMamba2InParallel) {
  auto m = parse_model_config(tiny("falcon_h1", R"(, "mamba_d_ssm": 512, "mamba_n_heads": 8, "mamba_d_head": "auto",
    "mamba_d_state": 16, "mamba_n_groups": 1, "mamba_d_conv": 4)"), "falcon");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
  ASSERT_EQ(m->runs.size(), 1u);
  EXPECT_EQ(m->runs[0].mixers.size(), 2u);
  // Mamba-2 (d_inner 512, 8 heads of 64, state 16, 1 group, conv 4 with bias): in_proj
  // 256 × (512 + 544 + 8) = 272,384; conv 544 × 4 + 544 = 2,720; A_log, D, dt_bias 24; out_proj
  // 131,072: 406,200. Attention 256 × 256 × 2 + 256 × 128 × 2 = 196,608. MLP 3 × 256 × 512 =
  // 393,216. Norms 2 × 256. Per layer 996,536; × 4 + untied embedding and head 2 × 256,000 +
  // final norm 256 = 4,498,400.
  EXPECT_DOUBLE_EQ(count_params(*m).total, 4498400.0);
  // State per layer 512 × 16 + 544 × 3 = 9,824; KV 2 × 2 × 64 = 256 per token per layer.
  EXPECT_DOUBLE_EQ(state_elements_per_sequence(*m), 4 * 9824.0);
  EXPECT_DOUBLE_EQ(kv_elements_per_token(*m), 4 * 256.0);
  // Each layer ends in two residual blocks (the parallel mixers, then the MLP).
  EXPECT_EQ(residual_blocks(*m), 8);
  // Nemotron-H's layers are one block each (54 Mamba-2, 10 attention, 54 MLP); Llama's two.
  EXPECT_EQ(residual_blocks(model("nemotron-h-56b")), 118);
  EXPECT_EQ(residual_blocks(model("llama-3.1-8b")), 64);
}

TEST(Model, QkNormWidthsFollowTheFamily) {
  // tiny(): hidden 256, 4 heads and 2 KV heads of 64. Attention without norms: q and o
  // 2 × 256 × 256 = 131,072; k and v 2 × 256 × 128 = 65,536: 196,608.
  auto attention = [](const std::string& type, const std::string& extra = "") {
    auto m = parse_model_config(tiny(type, extra), type);
    EXPECT_TRUE(m.ok()) << to_string(m.errors());
    return m.ok() ? count_params(*m).attention_per_layer : 0.0;
  };
  // OLMo 2 (modeling_olmo2.py) and MiniMax-M2 normalize the whole projections: q_norm over
  // 4 × 64 = 256, k_norm over 2 × 64 = 128.
  EXPECT_DOUBLE_EQ(attention("olmo2"), 196608.0 + 384);
  EXPECT_DOUBLE_EQ(attention("minimax_m2", R"(, "use_qk_norm": true)"), 196608.0 + 384);
  // Qwen3 and Gemma 3: one head_dim-wide norm each for q and k.
  EXPECT_DOUBLE_EQ(attention("qwen3"), 196608.0 + 128);
  // Llama 4's qk norm is an L2 norm without weights.
  EXPECT_DOUBLE_EQ(attention("llama4_text"), 196608.0);
}

TEST(Model, Gemma3DefaultsAndFourNormsPerLayer) {
  // 12 layers, no sliding_window, no layer_types: Gemma3TextConfig's window 4,096 and pattern 6
  // (every 6th layer global): 10 sliding, 2 full; 4 RMSNorms of 256 per layer.
  std::string cfg = R"({"model_type": "gemma3_text", "hidden_size": 256, "num_hidden_layers": 12,
    "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000,
    "max_position_embeddings": 32768})";
  auto m = parse_model_config(cfg, "gemma3");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
  EXPECT_EQ(m->head_dim, 256);  // Gemma3TextConfig's head_dim default
  EXPECT_EQ(m->sliding_window, 4096);
  EXPECT_EQ(m->sliding_layers, 10);
  // Norms: 12 × 4 × 256 + the final 256 = 12,544.
  EXPECT_DOUBLE_EQ(count_params(*m).norms, 12544.0);
  // KV at 8,192 tokens: 2 full layers × 8,192 + 10 sliding × 4,096, each 2 × 2 × 256 per token.
  EXPECT_DOUBLE_EQ(kv_elements_per_sequence(*m, 8192), 1024.0 * (2 * 8192 + 10 * 4096));
}

TEST(Model, KimiLinearListsMustNameEveryLayerBeforeAnythingIsAllocated) {
  // 2^24 layers claimed, two layers listed: refused on the lists' length, not scanned per layer.
  auto m = parse_model_config(R"({"model_type": "kimi_linear", "hidden_size": 256, "num_hidden_layers": 16777216,
    "num_attention_heads": 4, "vocab_size": 100, "kv_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8,
    "linear_attn_config": {"full_attn_layers": [2], "kda_layers": [1], "num_heads": 4, "head_dim": 64}})", "k");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.errors()[0].field, "config.json:linear_attn_config");
}

TEST(Model, PythonInfinityInAConfigIsReadAsNull) {
  // Nemotron-H ships "time_step_limit": [0.0, Infinity], which Python's json writes.
  auto m = parse_model_config(tiny("llama", R"(, "time_step_limit": [0.0, Infinity], "x": "NaN in a string")"), "inf");
  ASSERT_TRUE(m.ok()) << to_string(m.errors());
}

TEST(Model, QuantizationConfigIsNamed) {
  const ModelArch& m = model("deepseek-v3");
  EXPECT_EQ(m.shipped_quantization, "fp8");
}

TEST(Model, LongPatternsStayBounded) {
  // 2^24 layers of Jamba's default pattern (attention every 8, MoE every 2): four runs, counted
  // per residue of the period 8, not per layer.
  auto j = parse_model_config(R"({"model_type": "jamba", "hidden_size": 64, "num_hidden_layers": 16777216,
    "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 100, "intermediate_size": 128,
    "num_experts": 4, "num_experts_per_tok": 2})", "jamba.json");
  ASSERT_TRUE(j.ok()) << to_string(j.errors());
  // Attention layers: l % 8 == 4, all even, so dense MLP: 2^24 / 8 = 2,097,152. Mamba + MoE: odd
  // layers, 2^23. Mamba + dense: the rest, 2^23 − 2^21. Three runs.
  EXPECT_EQ(j->runs.size(), 3u);
  int64_t attention = 0, mamba_moe = 0;
  for (const auto& run : j->runs) {
    if (run.mixers[0].kind == MixerKind::kAttention) attention += run.count;
    if (run.mixers[0].kind == MixerKind::kStateSpace && run.mlp.kind == MlpKind::kMoe) mamba_moe += run.count;
  }
  EXPECT_EQ(attention, 2097152);
  EXPECT_EQ(mamba_moe, 8388608);
  // A pattern whose period passes 4,096 at that depth is refused, not looped over.
  auto far = parse_model_config(R"({"model_type": "jamba", "hidden_size": 64, "num_hidden_layers": 16777216,
    "num_attention_heads": 4, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
    "attn_layer_period": 9973, "expert_layer_period": 9967})", "far.json");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.errors()[0].field, "config.json:num_hidden_layers");
}

}  // namespace
}  // namespace ridge::calc
