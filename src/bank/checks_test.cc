#include "bank/checks.h"

#include <gtest/gtest.h>

#include "bank/course_loader.h"
#include "bank/loader.h"
#include "calc/test_catalog.h"

namespace ridge::bank {
namespace {

std::string all(const std::vector<Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) s += d.to_string() + "\n";
  return s;
}

// ---- (a) the last column of a decision table flips ----

TEST(FlipCells, RefusesNoneNeverNothingDashAndEmpty) {
  // Body lines counted from 10: the heading is line 10, the header 12, the rule 13, rows 14 on.
  const std::string body =
      "## Decision table\n"                                      // 10
      "\n"                                                       // 11
      "| option | wins when | flips when |\n"                   // 12
      "|---|---|---|\n"                                          // 13
      "| fp8 cache | quality holds | eval drops by 1 point |\n"  // 14: a real flip, kept
      "| bf16 | always | none |\n"                               // 15
      "| int4 | never | |\n"                                     // 16: empty
      "| TP16 | never | **Never**: the fabric is too slow |\n"   // 17: a reason is not a flip
      "| PP | rarely | - |\n"                                    // 18
      "| EP | MoE | n/a |\n"                                     // 19
      "| CP | long context | nonetheless when s > 128k |\n"      // 20: 'nonetheless' is a word of its own
      "\n"
      "## Follow-ups\n"
      "\n"
      "| a | b |\n"
      "|---|---|\n"
      "| x | none |\n";  // 27: not a decision table
  std::vector<Diagnostic> diags;
  check_flip_cells(body, 10, "q.md", diags);
  ASSERT_EQ(diags.size(), 5u) << all(diags);
  const int expected_lines[] = {15, 16, 17, 18, 19};
  for (size_t i = 0; i < diags.size(); ++i) {
    EXPECT_EQ(diags[i].line, expected_lines[i]) << diags[i].to_string();
    EXPECT_NE(diags[i].message.find("condition that reverses the choice"), std::string::npos);
  }
  EXPECT_NE(diags[2].message.find("'never"), std::string::npos) << diags[2].message;
}

TEST(FlipCells, IgnoresFencedBlocksAndTheHeaderRow) {
  const std::string body =
      "## Decision table\n"
      "\n"
      "| option | |\n"  // a header may end blank: only rows below the rule are choices
      "|---|---|\n"
      "| a | b > 3 |\n"
      "\n"
      "```text\n"
      "| not | a table | |\n"
      "```\n";
  std::vector<Diagnostic> diags;
  check_flip_cells(body, 1, "q.md", diags);
  EXPECT_TRUE(diags.empty()) << all(diags);
}

// ---- (b) retired names ----

ContentPolicy retired_policy() {
  ContentPolicy p;
  std::vector<Diagnostic> diags;
  parse_retired_names(R"toml(
[[retired]]
name = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"
replacement = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"
since = "DCGM 3.3, 2023"
source = "https://github.com/NVIDIA/DCGM/blob/master/dcgmlib/dcgm_fields.h"

[[retired]]
name = "--enable-chunked-prefill"
replacement = "chunked prefill on by default (V1)"
since = "vLLM 0.8, 2025"
source = "https://docs.vllm.ai/en/latest/configuration/engine_args.html"
)toml",
                      "retired-names.toml", p, diags);
  EXPECT_TRUE(diags.empty()) << all(diags);
  return p;
}

TEST(RetiredNames, AnOldNameInProseIsAnErrorNamingItsReplacement) {
  ContentPolicy p = retired_policy();
  ASSERT_EQ(p.retired.size(), 2u);
  const std::string text =
      "Read `DCGM_FI_DEV_CLOCK_THROTTLE_REASONS` every second.\n"  // 1: refused
      "\n"
      "DCGM 3.3 renamed DCGM_FI_DEV_CLOCK_THROTTLE_REASONS; dashboards still use it.\n"  // 3: about the rename
      "\n"
      "| field | healthy |\n"
      "|---|---|\n"
      "| DCGM_FI_DEV_CLOCK_THROTTLE_REASONS_X | 0 |\n"  // 7: another identifier
      "| DCGM_FI_DEV_CLOCK_THROTTLE_REASONS | 0 |\n"    // 8: refused
      "\n"
      "```sh\n"
      "vllm serve m --enable-chunked-prefill-size 4 --enable-chunked-prefill\n"  // 11: only the second
      "```\n"
      "See https://example.com/DCGM_FI_DEV_CLOCK_THROTTLE_REASONS for the list.\n";  // 13: a URL
  std::vector<Diagnostic> diags;
  check_retired_names(text, 1, "q.md", p, diags);
  ASSERT_EQ(diags.size(), 3u) << all(diags);
  EXPECT_EQ(diags[0].line, 1);
  EXPECT_EQ(diags[1].line, 8);
  EXPECT_NE(diags[0].message.find("write 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS'"), std::string::npos) << diags[0].message;
  EXPECT_NE(diags[0].message.find("DCGM 3.3"), std::string::npos);
  EXPECT_EQ(diags[2].line, 11);
  EXPECT_NE(diags[2].message.find("--enable-chunked-prefill"), std::string::npos);
}

TEST(RetiredNames, AnEntryWithoutItsSourceIsRefused) {
  ContentPolicy p;
  std::vector<Diagnostic> diags;
  parse_retired_names("[[retired]]\nname = \"A\"\nreplacement = \"B\"\nsince = \"2025\"\nsource = \"\"\n",
                      "retired-names.toml", p, diags);
  ASSERT_FALSE(diags.empty());
  EXPECT_NE(diags[0].message.find("'source'"), std::string::npos) << all(diags);
}

// ---- (c) refused source kinds ----

ContentPolicy source_policy() {
  ContentPolicy p;
  std::vector<Diagnostic> diags;
  parse_source_kinds(R"toml(
[[refused]]
domain = "hardforum.com"
kind = "forum"
why = "a forum thread"

[[refused]]
domain = "reddit.com"
kind = "forum"
why = "a forum thread"
candidate_reports = true

[[refused]]
domain = "huggingface.co"
path = "/community-user/"
kind = "model card"
why = "a community upload, not the model's authors"
)toml",
                     "source-kinds.toml", p, diags);
  EXPECT_TRUE(diags.empty()) << all(diags);
  return p;
}

TEST(SourceKinds, AForumFootnoteIsRefusedUnlessItIsTheSubject) {
  ContentPolicy p = source_policy();
  std::vector<SourceEntry> sources = {
      {"hbm", "HBM3E speeds, a forum thread, 2024. https://hardforum.com/threads/hbm3e.1/", 40},
      {"sub", "HBM3E speeds, a forum thread, cited as the subject: what buyers claimed. https://www.hardforum.com/t/2", 41},
      {"jedec", "JESD238 HBM3, JEDEC, 2022. https://www.jedec.org/standards-documents/docs/jesd238a", 42},
      {"card", "A model card, 2025. https://huggingface.co/community-user/eagle3", 43},
      {"meta", "Llama 3.1 model card, Meta, 2024. https://huggingface.co/meta-llama/Llama-3.1-8B", 44},
      {"look", "notahardforum.com is another host. https://notahardforum.com/x", 45},
  };
  std::vector<Diagnostic> diags;
  check_source_kinds(sources, "q.md", p, diags);
  ASSERT_EQ(diags.size(), 2u) << all(diags);
  EXPECT_EQ(diags[0].line, 40);
  EXPECT_NE(diags[0].message.find("[^hbm] cites hardforum.com (forum"), std::string::npos) << diags[0].message;
  EXPECT_EQ(diags[1].line, 43);
  EXPECT_NE(diags[1].message.find("model card"), std::string::npos);
}

TEST(SourceKinds, ACompanyPageMayCiteAForumOnlyAsACandidateReport) {
  ContentPolicy p = source_policy();
  Company c;
  c.file = "companies/x.toml";
  c.sources = {{"r1", "a loop report", "https://old.reddit.com/r/x/1", "2026-11-01", "candidate", 10},
               {"r2", "a prep guide", "https://www.reddit.com/r/x/2", "2026-11-01", "guide", 16},
               {"h", "specs", "https://hardforum.com/t/3", "2026-11-01", "candidate", 22}};
  std::vector<Diagnostic> diags;
  check_company_sources(c, p, diags);
  ASSERT_EQ(diags.size(), 2u) << all(diags);
  EXPECT_EQ(diags[0].line, 16);
  EXPECT_NE(diags[0].message.find("only as a first-hand candidate report"), std::string::npos);
  EXPECT_EQ(diags[1].line, 22);
}

// Ids a planted napkin-math question refers to.
KnownIds napkin_ids() {
  KnownIds known;
  known.topics = {"napkin-math"};
  known.tracks = {"serving"};
  known.concepts = {"kv-cache"};
  return known;
}

// The three checks run in `ridge check`'s load: a question with each violation planted.
TEST(Checks, ParseQuestionAppliesAllThree) {
  KnownIds known = napkin_ids();
  known.policy = retired_policy();
  known.policy.refused = source_policy().refused;
  const std::string text = R"(+++
title = "Which field shows throttling?"
topic = "napkin-math"
difficulty = "easy"
tracks = ["serving"]
concepts = ["kv-cache"]
free = true
tldr = "Read the clock event reasons."
updated = 2026-12-01
+++

## Answer

Watch `DCGM_FI_DEV_CLOCK_THROTTLE_REASONS` on every node.

## Decision table

| signal | act | flips when |
|---|---|---|
| power cap | raise it | never |

## Follow-ups

### One?

Yes[^f].

### Two?

No.

## Sources

[^f]: A forum thread, 2024. https://hardforum.com/threads/1
)";
  Question q;
  std::vector<Diagnostic> diags;
  parse_question(text, "questions/napkin-math/q.md", known, calc::testing::registry(), calc::testing::real_catalog(), {},
                 q, diags);
  std::string got = all(diags);
  EXPECT_NE(got.find("q.md:14: 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS' is retired"), std::string::npos) << got;
  EXPECT_NE(got.find("q.md:20: decision table: the last cell 'never'"), std::string::npos) << got;
  EXPECT_NE(got.find("q.md:34: source [^f] cites hardforum.com"), std::string::npos) << got;
  EXPECT_EQ(diags.size(), 3u) << got;
}

// ---- one network: a link the catalog holds is named, not typed ----

TEST(TypedLinks, ACatalogLinkTypedIntoACollectiveOrTransferIsRefused) {
  const auto& hw = calc::testing::real_catalog().hardware;
  std::vector<Diagnostic> diags;
  // 450 GB/s is DGX H100's NVLink per direction (900 GB/s both ways ÷ 2).
  check_typed_links("allreduce", {{"bytes", "16GB"}, {"bus-bandwidth", "450GB/s"}}, hw, "q.md", 12, "ar", diags);
  ASSERT_EQ(diags.size(), 1u) << all(diags);
  EXPECT_EQ(diags[0].line, 12);
  EXPECT_NE(diags[0].message.find("calc ar: bus-bandwidth=450GB/s"), std::string::npos) << diags[0].message;
  EXPECT_NE(diags[0].message.find("h100-sxm NVLink 4 per direction"), std::string::npos) << diags[0].message;
  EXPECT_NE(diags[0].message.find("allreduce gpu=h100-sxm"), std::string::npos) << diags[0].message;
  // 8 × 400 Gb/s = 400 GB/s, the node's NICs; 50 GB/s one NIC; 900 GB/s NVLink both ways.
  diags.clear();
  check_typed_links("allreduce", {{"bus_bandwidth", "400GB/s"}}, hw, "q.md", 1, "a", diags);
  check_typed_links("transfer", {{"bandwidth", "50GB/s"}}, hw, "q.md", 2, "b", diags);
  check_typed_links("alltoall", {{"inter-bandwidth", "900e9"}}, hw, "q.md", 3, "c", diags);
  ASSERT_EQ(diags.size(), 3u) << all(diags);
  EXPECT_NE(diags[0].message.find("all its NICs together"), std::string::npos) << diags[0].message;
  EXPECT_NE(diags[1].message.find("{{ID.nic_bandwidth}} from `chip gpu=h100-sxm`"), std::string::npos) << diags[1].message;
  EXPECT_NE(diags[2].message.find("both directions added"), std::string::npos) << diags[2].message;
}

TEST(TypedLinks, MeasuredRatesReferencesAndOtherCalculatorsPass) {
  const auto& hw = calc::testing::real_catalog().hardware;
  std::vector<Diagnostic> diags;
  check_typed_links("allreduce", {{"bus-bandwidth", "370GB/s"}}, hw, "q.md", 1, "a", diags);     // a measured busbw
  check_typed_links("transfer", {{"bandwidth", "{{c.nic_bandwidth}}"}}, hw, "q.md", 1, "b", diags);  // named
  check_typed_links("transfer", {{"bandwidth", "25GB/s"}}, hw, "q.md", 1, "c", diags);           // an NVMe array
  check_typed_links("roofline", {{"bandwidth", "450GB/s"}}, hw, "q.md", 1, "d", diags);          // not a link flag
  check_typed_links("transfer", {{"bandwidth", "50GB/s"}, {"medium", "storage"}}, hw, "q.md", 1, "e", diags);  // a filesystem
  EXPECT_TRUE(diags.empty()) << all(diags);
}

TEST(TypedLinks, ACatalogLinkTypedAsAnExprLiteralIsRefusedWithItsLine) {
  const auto& hw = calc::testing::real_catalog().hardware;
  std::vector<Diagnostic> diags;
  // The block starts at file line 40 with its `expr` line. 400 Gbit/s = 400e9 / 8 = 50 GB/s,
  // one NIC of DGX H100 (line 42); 450 GB/s its NVLink per direction (line 43); 64 GB/s the
  // H100's PCIe Gen5 host link per direction (line 44). 25 GB/s (an NVMe array) and 3.35 TB/s
  // (HBM) are no link.
  const std::string block =
      "expr\n"
      "hbm = 3.35 TB/s\n"
      "node = 8 × 400 Gbit/s\n"
      "nvlink = 450 GB/s\n"
      "pcie = 64 GB/s × 0.8\n"
      "nvme = 25 GB/s\n";
  check_typed_link_literals(block, 40, hw, "q.md", "net", diags);
  ASSERT_EQ(diags.size(), 3u) << all(diags);
  EXPECT_EQ(diags[0].line, 42);
  EXPECT_NE(diags[0].message.find("calc net: node types 400 Gbit/s"), std::string::npos) << diags[0].message;
  EXPECT_NE(diags[0].message.find("{{ID.nic_bandwidth}} from `chip gpu=h100-sxm`"), std::string::npos) << diags[0].message;
  EXPECT_EQ(diags[1].line, 43);
  EXPECT_NE(diags[1].message.find("NVLink 4 per direction"), std::string::npos) << diags[1].message;
  EXPECT_EQ(diags[2].line, 44);
  EXPECT_NE(diags[2].message.find("{{ID.host_link_per_direction}}"), std::string::npos) << diags[2].message;
}

TEST(TypedLinks, AnExprLiteralIsExemptOnlyWithAReasonOnTheLineAbove) {
  const auto& hw = calc::testing::real_catalog().hardware;
  std::vector<Diagnostic> diags;
  const std::string block =
      "expr\n"
      "# subject: the question converts a line rate from bits to bytes\n"
      "nic = 400 Gbit/s\n"
      "# medium=wan: one DWDM wave between the sites\n"
      "wave = 400 Gbit/s\n"
      "# subject:\n"            // no reason: not exempt
      "bare = 50 GB/s\n"
      "# subject: a comment two lines up does not reach\n"
      "\n"
      "far = 50 GB/s\n";
  check_typed_link_literals(block, 1, hw, "q.md", "u", diags);
  ASSERT_EQ(diags.size(), 2u) << all(diags);
  EXPECT_EQ(diags[0].line, 7);
  EXPECT_NE(diags[0].message.find("bare types 50 GB/s"), std::string::npos) << diags[0].message;
  EXPECT_EQ(diags[1].line, 10);
}

TEST(TypedLinks, TheLoaderRefusesAPlantedExprLiteral) {
  // A question whose expr block types one NIC's rate: the loader reports it at the literal's
  // own line (front matter lines 1-10, blank 11, heading 12, blank 13, fence 14, `expr` 15,
  // the literal 16).
  const std::string text = std::string("+++\n") +
                           "title = \"How long does the copy take?\"\ntopic = \"napkin-math\"\n"
                           "difficulty = \"easy\"\ntracks = [\"serving\"]\nconcepts = [\"kv-cache\"]\nfree = true\n"
                           "tldr = \"Divide bytes by the rate.\"\nupdated = 2026-12-01\n+++\n" + R"(
## Answer

```calc id=pl
expr
rail = 400 Gbit/s
bytes = 10 GB
secs = bytes / rail
```

It takes {{pl.secs}}.
)";
  Question q;
  std::vector<Diagnostic> diags;
  parse_question(text, "questions/napkin-math/planted-link.md", napkin_ids(), calc::testing::registry(),
                 calc::testing::real_catalog(), {}, q, diags);
  std::string got = all(diags);
  EXPECT_NE(got.find("planted-link.md:16: calc pl: rail types 400 Gbit/s, a link the catalog holds"), std::string::npos)
      << got;
}

TEST(TypedLinks, ACourseExerciseIsCheckedLikeACalcBlock) {
  // 400 GB/s is a DGX H100's eight 400 Gb/s NICs together. (The line is the module's, as
  // for the course's other errors.)
  const std::string text =
      "title = \"Platform\"\ntrack = \"platform\"\nsummary = \"s\"\n"
      "[[modules]]\nid = \"placement\"\ntitle = \"Placement\"\nsummary = \"s\"\n"
      "exercise = \"allreduce bytes=16GB ranks=64 bus-bandwidth=400GB/s\"\n";
  Bank bank;
  std::vector<Diagnostic> diags;
  parse_course(text, "platform", "courses/platform.toml", bank, calc::testing::registry(), calc::testing::real_catalog(),
               {}, diags);
  std::string got = all(diags);
  EXPECT_NE(got.find("calc placement: bus-bandwidth=400GB/s is a link the catalog holds"), std::string::npos)
      << got;
}

}  // namespace
}  // namespace ridge::bank
