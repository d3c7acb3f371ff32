// Golden files per diagram kind (tests/golden/diagrams/KIND.svg): the same input gives the
// same bytes. RIDGE_UPDATE_GOLDEN=1 rewrites them; review the diff before committing.
#include "diagram/diagrams.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "calc/test_catalog.h"
#include "calc/source_dir.h"

namespace ridge::diagram {
namespace {

const std::map<std::string, calc::Given>& examples() {
  static const std::map<std::string, calc::Given> e = {
      {"roofline", {{"gpu", "h100-sxm,b200,mi300x"}, {"kernels", "softmax@1.25,gemm@600"}}},
      {"pipeline", {{"stages", "4"}, {"microbatches", "8"}, {"schedule", "1f1b"}}},
      {"ring", {{"bytes", "16GB"}, {"ranks", "8"}, {"bus-bandwidth", "400GB/s"}}},
      {"kv-blocks", {{"tokens", "40,25,33"}, {"block-size", "16"}, {"shared-prefix", "16"}}},
      {"memory", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}, {"sequences", "64"}}},
      {"checkpoint", {{"mtbf-hours", "3"}, {"write-seconds", "60"}}},
      {"step-waterfall", {{"params", "70B"}, {"tokens", "4M"}, {"gpu", "h100-sxm"}, {"gpus", "1024"}, {"seconds", "6"},
                          {"comm", "0.8"}, {"bubble", "0.6"}}},
  };
  return e;
}

std::string draw_ok(const std::string& kind, const calc::Given& params, bool standalone = true) {
  Options o;
  o.standalone = standalone;
  auto r = draw(kind, params, calc::testing::registry(), calc::testing::real_catalog(), o);
  if (!r) {
    ADD_FAILURE() << kind << ": " << calc::to_string(r.errors());
    return "";
  }
  return r->svg;
}

TEST(Diagrams, EveryKindMatchesItsGoldenFile) {
  ASSERT_EQ(examples().size(), kinds().size());
  for (const auto& kind : kinds()) {
    std::string svg = draw_ok(kind, examples().at(kind));
    std::string path = std::string(ridge::source_dir()) + "/tests/golden/diagrams/" + kind + ".svg";
    if (const char* update = std::getenv("RIDGE_UPDATE_GOLDEN"); update && std::string(update) == "1") {
      std::ofstream(path, std::ios::binary) << svg;
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << "missing " << path << " (RIDGE_UPDATE_GOLDEN=1 writes it)";
    std::stringstream golden;
    golden << in.rdbuf();
    EXPECT_EQ(svg, golden.str()) << kind << " differs from " << path;
  }
}

TEST(Diagrams, DeterministicAndAccessible) {
  for (const auto& kind : kinds()) {
    std::string a = draw_ok(kind, examples().at(kind), false), b = draw_ok(kind, examples().at(kind), false);
    EXPECT_EQ(a, b) << kind;
    EXPECT_NE(a.find("<title id=\"d-title\">"), std::string::npos) << kind;
    EXPECT_NE(a.find("<desc id=\"d-desc\">"), std::string::npos) << kind;
    EXPECT_NE(a.find("role=\"img\""), std::string::npos) << kind;
    EXPECT_EQ(a.find("<style>"), std::string::npos) << kind << ": inline diagrams take the page's CSS (CSP)";
    EXPECT_EQ(a.find("fill=\"#"), std::string::npos) << kind << ": colours come from CSS classes";
  }
}

TEST(Diagrams, NumbersComeFromTheEngine) {
  // The pipeline's caption is the engine's bubble: (4 - 1) / (8 + 4 - 1) = 27.3%.
  EXPECT_NE(draw_ok("pipeline", examples().at("pipeline")).find("bubble 27.3%"), std::string::npos);
  // The memory bar is the fit calculator's: 141 GB of weights, 687 GB of KV for 64 sequences.
  std::string memory = draw_ok("memory", examples().at("memory"));
  EXPECT_NE(memory.find("weights 141 GB"), std::string::npos);
  EXPECT_NE(memory.find("KV cache 687 GB"), std::string::npos);
  // The checkpoint optimum is Young/Daly's sqrt(2 × 60 × 10,800) = 1,138 s = 19 min.
  EXPECT_NE(draw_ok("checkpoint", examples().at("checkpoint")).find("optimum 19 min"), std::string::npos);
  // The ring: each rank sends 2 × 7/8 × 16 GB = 28 GB.
  EXPECT_NE(draw_ok("ring", examples().at("ring")).find("28 GB"), std::string::npos);
}

TEST(Diagrams, BadParametersAreNamed) {
  auto e = draw("kv-blocks", {{"tokens", "40,x"}}, calc::testing::registry(), calc::testing::real_catalog());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.errors()[0].field, "tokens");
  auto g = draw("roofline", {{"gpu", "h100-sxm,nope"}}, calc::testing::registry(), calc::testing::real_catalog());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.errors()[0].field, "gpu");
  auto k = draw("sankey", {}, calc::testing::registry(), calc::testing::real_catalog());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.errors()[0].field, "kind");
  // Interleaved needs microbatches in groups of the stages (Megatron-LM's schedule).
  auto s = draw("pipeline", {{"stages", "4"}, {"microbatches", "6"}, {"schedule", "interleaved"}, {"virtual-stages", "2"}},
                calc::testing::registry(), calc::testing::real_catalog());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.errors()[0].field, "microbatches");
}

// Issue 33 item 6: the interleaved schedule answered 400 "not drawn yet". Hand-derived for 4
// stages, 8 microbatches, 2 chunks per stage: each stage works 8 × (1 + 2) = 24 units; the
// bubble is (p − 1) × 3 / v = 3 × 3 / 2 = 4.5 units (Narayanan et al. 2021: the 1F1B bubble
// divided by v), so the step takes 28.5 units, and the engine's fraction is
// ((4 − 1) / 2) / (8 + 1.5) = 15.8%. Every stage runs 8 × 2 forwards and 8 × 2 backwards: 128 boxes.
TEST(Diagrams, Finding33_TheInterleavedScheduleIsDrawn) {
  auto d = draw("pipeline", {{"stages", "4"}, {"microbatches", "8"}, {"schedule", "interleaved"}, {"virtual-stages", "2"}},
                calc::testing::registry(), calc::testing::real_catalog());
  ASSERT_TRUE(d.ok()) << d.errors()[0].message;
  const std::string& svg = d->svg;
  EXPECT_NE(svg.find("The step takes 28.5 units"), std::string::npos) << d->desc;
  EXPECT_NE(svg.find("bubble 15.8%"), std::string::npos);
  size_t boxes = 0;
  for (size_t at = 0; (at = svg.find(" of chunk ", at)) != std::string::npos; ++at) ++boxes;
  EXPECT_EQ(boxes, 128u);
}

TEST(Diagrams, FromADerivationOfTheRightCalculator) {
  auto fit = calc::testing::run("fit", examples().at("memory"));
  auto ok = draw("memory", {}, calc::testing::registry(), calc::testing::real_catalog(), {}, &fit);
  EXPECT_TRUE(ok.ok());
  auto wrong = draw("checkpoint", {{"from", "kv"}}, calc::testing::registry(), calc::testing::real_catalog(), {}, &fit);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.errors()[0].field, "from");
}

}  // namespace
}  // namespace ridge::diagram

namespace ridge::diagram {
namespace {

// Issue 20: the KV-blocks legend named green when no shared block was drawn.
TEST(Diagrams, KvBlocksLegendNamesGreenOnlyWhenDrawn) {
  auto none = draw("kv-blocks", {{"tokens", "40,25"}, {"block-size", "16"}}, calc::testing::registry(),
                   calc::testing::real_catalog());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->svg.find("green"), std::string::npos);
  EXPECT_EQ(none->svg.find("d-shared"), std::string::npos);
  auto some = draw("kv-blocks", {{"tokens", "40,25"}, {"block-size", "16"}, {"shared-prefix", "16"}}, calc::testing::registry(),
                   calc::testing::real_catalog());
  ASSERT_TRUE(some.ok());
  EXPECT_NE(some->svg.find("(green)"), std::string::npos);
  EXPECT_NE(some->svg.find("d-shared"), std::string::npos);
}

}  // namespace
}  // namespace ridge::diagram
