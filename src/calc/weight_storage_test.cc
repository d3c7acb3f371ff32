// Weights as the checkpoint ships them (quantization_config): quantized matrices with their scale
// overhead, the embedding, head, norms and routers kept in bf16; --weights-dtype overrides it.
// Each expectation is derived by hand in the comment above it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "calc/model.h"
#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

bool assumes(const Derivation& d, const std::string& text) {
  for (const auto& a : d.assumptions()) {
    if (a.find(text) != std::string::npos) return true;
  }
  return false;
}

// A config written to the test's temporary folder, for --config.
std::string config_file(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / (name + ".json")).string();
  std::ofstream(path) << text;
  return path;
}

// One Llama layer: hidden 256, 4 heads of 64 (no GQA), MLP 512, vocabulary 1,000, tied.
std::string tiny_llama(const std::string& extra) {
  return R"({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 1, "num_attention_heads": 4,
             "intermediate_size": 512, "vocab_size": 1000, "tie_word_embeddings": true)" + extra + "}";
}

TEST(WeightsAsShipped, Mxfp4ExpertsAndBf16EverythingElseForGptOss) {
  // gpt-oss-120b: 36 layers of 128 experts; one expert is a gated MLP of 2,880 × 2,880 with
  // biases: 3 × 2,880 × 2,880 + 2 × 2,880 + 2,880 = 24,891,840 weights; all experts
  // 36 × 128 × 24,891,840 = 114,701,598,720. MXFP4 stores them at 0.5 B plus one 1-byte scale
  // per 32 (0.53125 B) instead of 2 B: 114,701,598,720 × 1.46875 = 168,467,973,120 B less
  // than bf16; the rest stays bf16.
  Derivation bf16 = run("fit", {{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}, {"context", "8192"},
                                {"weights-dtype", "bf16"}});
  Derivation shipped = run("fit", {{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}, {"context", "8192"}});
  EXPECT_DOUBLE_EQ(result(shipped, "weights_bytes"), result(bf16, "weights_bytes") - 168467973120.0);
  EXPECT_TRUE(assumes(shipped, "quantization_config: mxfp4 on the routed experts"));
  // The cache stays bf16 (the checkpoint's dtype): 73,728 B per token as with bf16 weights.
  EXPECT_DOUBLE_EQ(result(shipped, "kv_bytes_per_token"), 73728.0);
}

TEST(WeightsAsShipped, BlockFp8CountsItsScalesAndKeepsEmbeddingHeadNormsRoutersInBf16) {
  // DeepSeek-V3: e4m3 weights with one fp32 scale per 128 × 128 block, 1 + 4 / 16,384 B per
  // weight. Kept in bf16: embedding and head 2 × 129,280 × 7,168 = 1,853,358,080; routers
  // 58 MoE layers × 7,168 × 256 = 106,430,464; norms 61 × 2 × 7,168 + 7,168 = 881,664;
  // 1,960,670,208 in all. With P params (P = bf16 bytes ÷ 2), shipped = (P − kept) ×
  // (1 + 1/4,096) + kept × 2 = bf16 − (P − kept) × 4,095/4,096.
  Derivation bf16 = run("fit", {{"model", "deepseek-v3"}, {"gpu", "h200"}, {"gpus", "8"}, {"context", "8192"},
                                {"weights-dtype", "bf16"}});
  Derivation shipped = run("fit", {{"model", "deepseek-v3"}, {"gpu", "h200"}, {"gpus", "8"}, {"context", "8192"}});
  const double b = result(bf16, "weights_bytes"), kept = 1960670208.0;
  EXPECT_NEAR(result(shipped, "weights_bytes"), b - (b / 2 - kept) * 4095.0 / 4096.0, 1.0);
  EXPECT_TRUE(assumes(shipped, "one fp32 scale per 128 × 128 block"));
  // An explicit --weights-dtype fp8 sizes every weight at 1 B, as before.
  Derivation fp8 = run("fit", {{"model", "deepseek-v3"}, {"gpu", "h200"}, {"gpus", "8"}, {"context", "8192"},
                               {"weights-dtype", "fp8"}});
  EXPECT_DOUBLE_EQ(result(fp8, "weights_bytes"), b / 2);
}

TEST(WeightsAsShipped, GptqInt4WithGroupScalesAndTheSameByFlags) {
  // One layer: attention 4 × 256 × 256 = 262,144, MLP 3 × 256 × 512 = 393,216: 655,360
  // quantized weights at 0.5 B + (2 B scale + 0.5 B zero) ÷ 128 = 0.51953125 B: 340,480 B.
  // Kept in bf16: tied embedding 1,000 × 256 = 256,000 and norms 2 × 256 + 256 = 768: 256,768
  // × 2 B = 513,536 B. Total 854,016 B.
  const std::string gptq = config_file("gptq", tiny_llama(R"(, "quantization_config": {"quant_method": "gptq",
      "bits": 4, "group_size": 128, "desc_act": false, "sym": true})"));
  Derivation shipped = run("fit", {{"config", gptq}, {"gpu", "h100-sxm"}, {"context", "1024"}});
  EXPECT_DOUBLE_EQ(result(shipped, "weights_bytes"), 854016.0);
  EXPECT_TRUE(assumes(shipped, "int4 gptq, an fp16 scale and an int4 zero point per group of 128"));
  // The same layout asked for by flags on the unquantized config.
  const std::string plain = config_file("plain", tiny_llama(""));
  Derivation flags = run("fit", {{"config", plain}, {"gpu", "h100-sxm"}, {"context", "1024"},
                                 {"weights-dtype", "int4"}, {"weights-group", "128"}});
  EXPECT_DOUBLE_EQ(result(flags, "weights_bytes"), 854016.0);
  // Decode reads all of it at batch 1 (a dense model): 854,016 B ÷ 3.35e12 B/s.
  Derivation dec = run("decode", {{"config", gptq}, {"gpu", "h100-sxm"}});
  EXPECT_NEAR(result(dec, "weight_read_seconds"), 854016.0 / 3.35e12, 1e-18);
  // A group size without an integer dtype is refused by name.
  Errors e = errors_of("fit", {{"config", plain}, {"gpu", "h100-sxm"}, {"context", "1024"}, {"weights-group", "128"}});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].field, "weights-group");
}

TEST(WeightsAsShipped, UnknownQuantMethodIsRefusedNamingTheAcceptedOnesUnlessADtypeIsGiven) {
  const std::string hqq = config_file("hqq", tiny_llama(R"(, "quantization_config": {"quant_method": "hqq"})"));
  Errors e = errors_of("fit", {{"config", hqq}, {"gpu", "h100-sxm"}, {"context", "1024"}});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].field, "config.json:quantization_config.quant_method");
  EXPECT_EQ(e[0].value, "hqq");
  EXPECT_NE(e[0].accepted.find("fp8"), std::string::npos);
  EXPECT_NE(e[0].accepted.find("mxfp4"), std::string::npos);
  EXPECT_NE(e[0].accepted.find("gptq"), std::string::npos);
  EXPECT_NE(e[0].accepted.find("awq"), std::string::npos);
  // With --weights-dtype the format does not matter: 655,360 + 256,768 = 912,128 params × 1 B.
  Derivation d = run("fit", {{"config", hqq}, {"gpu", "h100-sxm"}, {"context", "1024"}, {"weights-dtype", "int8"}});
  EXPECT_DOUBLE_EQ(result(d, "weights_bytes"), 912128.0);
}

}  // namespace
}  // namespace ridge::calc
