#include "bank/loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bank/lint.h"
#include "bank/snippets.h"
#include "calc/test_catalog.h"

namespace ridge::bank {
namespace {

const KnownIds& known() {
  static const KnownIds k = [] {
    KnownIds ids;
    ids.topics = {"napkin-math", "kernels"};
    ids.tracks = {"serving", "kernels"};
    ids.concepts = {"kv-cache", "roofline"};
    ids.companies = {"nvidia"};
    ids.lab_builds = {"rate-limiter", "kv-blocks"};
    ids.topics.insert("coding");
    return ids;
  }();
  return k;
}

// A valid question; each test breaks one thing in it.
std::string good() {
  return R"(+++
title = "Will it fit?"
topic = "napkin-math"
difficulty = "medium"
tracks = ["serving"]
concepts = ["kv-cache"]
free = true
tldr = "About {{kv.max_sequences}} sequences fit."
updated = 2026-11-30
+++

## Answer

```calc id=kv
fit model=llama-3.1-70b gpu=h100-sxm gpus=8 context=32768
```

Each sequence holds {{kv.kv_bytes_per_sequence:GB:1}} of cache. The card has 80 GB[^h100].

```calc id=step hidden
decode model=llama-3.1-70b gpu=h100-sxm tp=8 batch={{kv.max_sequences}} context=32768
```

At that batch a step takes at least {{step.step_seconds_floor:ms:1}}.

## Decision table

| option | wins when |
|---|---|
| fp8 cache | quality holds |

## Follow-ups

### One?

Yes.

### Two?

No.

## Sources

[^h100]: NVIDIA H100 datasheet, 2023.
)";
}

struct Parsed {
  bool ok;
  Question q;
  std::vector<Diagnostic> diags;
  std::string all() const {
    std::string s;
    for (const auto& d : diags) s += d.to_string() + "\n";
    return s;
  }
};

Parsed parse(const std::string& text, LoadOptions options = {}) {
  Parsed p;
  p.ok = parse_question(text, "questions/napkin-math/will-it-fit.md", known(), calc::testing::registry(),
                        calc::testing::real_catalog(), options, p.q, p.diags);
  return p;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

void expect_error(const Parsed& p, const std::string& fragment, int line) {
  for (const auto& d : p.diags) {
    if (d.message.find(fragment) != std::string::npos) {
      EXPECT_EQ(d.line, line) << d.to_string();
      EXPECT_EQ(d.file, "questions/napkin-math/will-it-fit.md");
      return;
    }
  }
  ADD_FAILURE() << "no error containing '" << fragment << "'; got:\n" << p.all();
}

TEST(Loader, GoodQuestionLoadsWithNumbersFromTheEngine) {
  Parsed p = parse(good());
  ASSERT_TRUE(p.diags.empty()) << p.all();
  EXPECT_EQ(p.q.slug, "will-it-fit");
  EXPECT_EQ(p.q.tldr(), "About 40 sequences fit.");
  EXPECT_NE(p.q.html.find("10.7 GB of cache"), std::string::npos);
  EXPECT_NE(p.q.html.find("<table"), std::string::npos);  // the decision table, rendered
  EXPECT_NE(p.q.html.find("class=\"derivation\""), std::string::npos);
  EXPECT_NE(p.q.html.find("href=\"#src-h100\">[1]</a>"), std::string::npos);
  // The hidden block ran at batch 40 (from the first block) but renders no chain.
  ASSERT_EQ(p.q.calcs.size(), 2u);
  EXPECT_TRUE(p.q.calcs[1].hidden);
  EXPECT_EQ(p.q.calcs[1].call.find("batch=40 "), p.q.calcs[1].call.find("batch="));
  EXPECT_EQ(p.q.html.find("data-calculator=\"decode\""), std::string::npos);
  EXPECT_EQ(p.q.follow_ups.size(), 2u);
}

// Issue 33: two titles showed their backticks in every list and in the browser's tab.
TEST(Loader, Finding33_ATitleWithMarkdownIsRefused) {
  expect_error(parse(replace(good(), "title = \"Will it fit?\"", "title = \"Will `llama` fit?\"")), "title carries Markdown ('`')", 2);
  expect_error(parse(replace(good(), "title = \"Will it fit?\"", "title = \"Will it **fit**?\"")), "title carries Markdown ('**')", 2);
}

TEST(Loader, MissingFieldIsNamed) {
  expect_error(parse(replace(good(), "free = true\n", "")), "'free' is required", 2);
}

TEST(Loader, UnknownIdsListTheKnownOnes) {
  Parsed p = parse(replace(good(), "concepts = [\"kv-cache\"]", "concepts = [\"kv-cash\"]"));
  expect_error(p, "unknown concept 'kv-cash'; known: kv-cache, roofline", 6);
  expect_error(parse(replace(good(), "topic = \"napkin-math\"", "topic = \"napkins\"")), "unknown topic 'napkins'", 3);
  expect_error(parse(replace(good(), "difficulty = \"medium\"", "difficulty = \"brutal\"")),
               "difficulty 'brutal' is not one of", 4);
}

TEST(Loader, BadDirectivesAreReportedAtTheirLine) {
  expect_error(parse(replace(good(), "```calc id=kv\n", "```calc\n")), "calc block needs an id", 14);
  expect_error(parse(replace(good(), "## Decision table", "```diagram rooflne gpu=h100-sxm\n```\n\n## Decision table")),
               "'rooflne' is not a diagram kind", 26);
  expect_error(parse(replace(good(), "fit model=", "fitt model=")), "'fitt' is not a calculator", 15);
}

TEST(Loader, UnknownCalculatorParameter) {
  expect_error(parse(replace(good(), "context=32768\n", "context=32768 colour=blue\n")),
               "calc kv: --colour: 'blue' is not a parameter of this calculator", 15);
}

TEST(Loader, ReferenceToAMissingResult) {
  expect_error(parse(replace(good(), "{{kv.kv_bytes_per_sequence:GB:1}}", "{{kv.bytes_per_seq}}")),
               "calc block 'kv' has no result 'bytes_per_seq'", 18);
  expect_error(parse(replace(good(), "{{kv.kv_bytes_per_sequence:GB:1}}", "{{nope.x}}")), "no calc block with id 'nope'", 18);
  expect_error(parse(replace(good(), "{{kv.kv_bytes_per_sequence:GB:1}}", "{{kv.kv_bytes_per_sequence:ms}}")),
               "format 'ms' does not apply", 18);
}

TEST(Loader, StructureAndCitations) {
  expect_error(parse(replace(good(), "### Two?\n\nNo.\n", "")), "it needs 2 to 4", 11);
  expect_error(parse(replace(good(), "## Decision table", "## Thoughts")), "section 'Thoughts' is not one of", 26);
  expect_error(parse(replace(good(), "[^h100]: NVIDIA", "[^h200]: NVIDIA")), "citation [^h100] has no definition", 18);
  // The TL;DR is read with the body (issue 30: in place, not copied): its citation is at its line, 8.
  expect_error(parse(replace(good(), "sequences fit.\"", "sequences fit[^nope].\"")), "citation [^nope] has no definition", 8);
}

TEST(Loader, ProseLint) {
  Parsed p = parse(replace(good(), "Each sequence holds", "We simply note 3.35 TB/s \xE2\x80\x94 each sequence holds"));
  expect_error(p, "filler word 'simply'", 18);
  expect_error(p, "'3.35 TB/s' is a figure with a unit", 18);
  expect_error(p, "em dash", 18);
  // Without lint (the server's load) the same text loads.
  EXPECT_TRUE(parse(replace(good(), "Each sequence holds", "We simply note")).ok);
}

TEST(Lint, FindsFiguresButNotNamesOrCounts) {
  auto figures = find_figures("8 GPUs, an H100 80GB, 3.35 TB/s, $2.50, 40% and an 8B model and 2 B per param");
  std::vector<std::string> texts;
  for (const auto& f : figures) texts.push_back(f.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"80GB", "3.35 TB/s", "$2.50", "40%", "2 B"}));
}

TEST(Lint, ADollarGluedToAWordEnds) {
  // Found by fuzz_question: "x$5" looped forever in find_figures.
  EXPECT_TRUE(find_figures("x$5 and y$").empty());
}

TEST(Snippets, OutputComparisonIgnoresTrailingSpace) {
  EXPECT_TRUE(outputs_match("a\nb\n", "a  \nb\n\n"));
  EXPECT_FALSE(outputs_match("a\nb\n", "a\nc\n"));
}

TEST(Snippets, AFailingSnippetIsReported) {
  auto dir = std::filesystem::temp_directory_path() / ("ridge-snippet-test-" + std::to_string(::getpid()));
  SnippetRunner runner(dir);
  Snippet ok{"python", "run", "print(6 * 7)\n", std::string("42\n"), 10};
  EXPECT_EQ(runner.run(ok).status, SnippetOutcome::kPassed);
  EXPECT_TRUE(runner.run(ok).cached);
  Snippet wrong{"python", "run", "print(6 * 9)\n", std::string("42\n"), 10};
  auto outcome = runner.run(wrong);
  EXPECT_EQ(outcome.status, SnippetOutcome::kFailed);
  EXPECT_NE(outcome.message.find("54"), std::string::npos);
  Snippet broken{"cpp", "run", "int main() { return undefined; }\n", std::string(""), 10};
  EXPECT_NE(runner.run(broken).message.find("does not compile"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// Issue 30: the question files parse on every core (a thread per 64 files, up to one per
// core), then merge in file order. 300 files, every third without 'free': the bank holds the
// 300 in file order and the 100 errors come in file order, as one thread made them.
TEST(Loader, ManyFilesLoadInFileOrderWhateverTheThreads) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("ridge-bank-order-" + std::to_string(::getpid())) / "content";
  fs::create_directories(root / "questions" / "napkin-math");
  fs::create_directories(root / "concepts");
  fs::create_directories(root / "companies");
  std::ofstream(root / "topics.toml") << "[[topic]]\nid = \"napkin-math\"\nname = \"N\"\ndescription = \"d\"\n"
                                         "[[track]]\nid = \"serving\"\nname = \"S\"\ndescription = \"d\"\n"
                                         "weights = { napkin-math = 1 }\n";
  std::ofstream(root / "concepts" / "kv-cache.md") << "+++\ntitle = \"The KV cache\"\n+++\n";
  auto name = [](int i) { return "q-" + std::string(i < 10 ? "00" : i < 100 ? "0" : "") + std::to_string(i); };
  for (int i = 0; i < 300; ++i) {
    std::ofstream(root / "questions" / "napkin-math" / (name(i) + ".md")) << (i % 3 == 0 ? replace(good(), "free = true\n", "") : good());
  }
  LoadResult r = load_bank(root, calc::testing::registry(), calc::testing::real_catalog(), {/*lint=*/false});
  ASSERT_EQ(r.bank.questions.size(), 300u);  // a missing field is reported, the question still loads
  for (int i = 0; i < 300; ++i) EXPECT_EQ(r.bank.questions[i].slug, name(i)) << i;
  std::vector<std::string> missing;
  for (const auto& d : r.errors) {
    if (d.message.find("'free' is required") != std::string::npos) missing.push_back(fs::path(d.file).stem().string());
  }
  ASSERT_EQ(missing.size(), 100u);
  for (int j = 0; j < 100; ++j) EXPECT_EQ(missing[j], name(3 * j)) << j;
  fs::remove_all(root.parent_path());
}

TEST(Loader, WholeTreeDuplicateSlugsAndLinks) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("ridge-bank-test-" + std::to_string(::getpid())) / "content";
  fs::create_directories(root / "questions" / "napkin-math");
  fs::create_directories(root / "questions" / "kernels");
  fs::create_directories(root / "concepts");
  fs::create_directories(root / "companies");
  std::ofstream(root / "topics.toml") << "[[topic]]\nid = \"napkin-math\"\nname = \"N\"\ndescription = \"d\"\n"
                                         "[[topic]]\nid = \"kernels\"\nname = \"K\"\ndescription = \"d\"\n"
                                         "[[track]]\nid = \"serving\"\nname = \"S\"\ndescription = \"d\"\n"
                                         "weights = { napkin-math = 1 }\n";
  std::ofstream(root / "concepts" / "kv-cache.md") << "+++\ntitle = \"The KV cache\"\n+++\n";
  std::string q = replace(good(), "No.\n", "No, see [the roofline](/q/missing) and [kv](/concepts/kv-cache).\n");
  // kernels/ sorts first, so the napkin-math copy is the duplicate.
  std::ofstream(root / "questions" / "kernels" / "will-it-fit.md") << replace(q, "napkin-math", "kernels");
  std::ofstream(root / "questions" / "napkin-math" / "will-it-fit.md") << good();
  LoadResult r = load_bank(root, calc::testing::registry(), calc::testing::real_catalog());
  std::string all;
  for (const auto& d : r.errors) all += d.to_string() + "\n";
  EXPECT_NE(all.find("slug 'will-it-fit' is already used"), std::string::npos) << all;
  EXPECT_NE(all.find("link /q/missing points to nothing"), std::string::npos) << all;
  EXPECT_EQ(all.find("/concepts/kv-cache points"), std::string::npos) << all;
  ASSERT_EQ(r.bank.questions.size(), 1u);
  EXPECT_EQ(r.bank.by_topic("kernels").size(), 1u);
  EXPECT_EQ(r.bank.by_topic("napkin-math").size(), 0u);
  EXPECT_EQ(r.bank.by_track("serving").size(), 1u);
  EXPECT_EQ(r.bank.by_concept("kv-cache").size(), 1u);
  EXPECT_EQ(r.bank.by_difficulty(Difficulty::kMedium).size(), 1u);
  fs::remove_all(root.parent_path());
}

}  // namespace
}  // namespace ridge::bank

namespace ridge::bank {
namespace {

TEST(LoaderLint, PlantedHandCalculationIsAnError) {
  Parsed p = parse(replace(good(), "Each sequence holds", "Ten nodes give `10 × 3,739 ≈ 37,400` tokens. Each sequence holds"));
  expect_error(p, "arithmetic worked by hand", 18);
  Parsed prose = parse(replace(good(), "Each sequence holds", "That is 1 PB ÷ 256 per GPU. Each sequence holds"));
  expect_error(prose, "arithmetic worked by hand", 18);
}

TEST(LoaderLint, SymbolicFormulasAndGluedShapesStayAllowed) {
  Parsed p = parse(replace(good(), "Each sequence holds",
                           "KV per token is `2 × L × H_kv × d × bytes`; tiles are 128×128; the H100 x 8 node. Each sequence holds"));
  for (const auto& d : p.diags) EXPECT_EQ(d.message.find("by hand"), std::string::npos) << d.to_string();
}

TEST(LoaderLint, PlantedRetypedResultIsAnError) {
  // 40 sequences fit (the good question's tldr); 327,680 B per token is kv_bytes_per_token.
  Parsed p = parse(replace(good(), "batch={{kv.max_sequences}}", "batch=40 seq_bytes=327680"));
  bool found = false;
  for (const auto& d : p.diags) found = found || d.message.find("use {{kv.kv_bytes_per_token}}") != std::string::npos;
  EXPECT_TRUE(found) << p.all();
}

TEST(LoaderLint, ExprBlockFeedsReferences) {
  Parsed p = parse(replace(good(), "At that batch", "```calc id=sum\nexpr\nfleet = {{kv.max_sequences}} × 10\n```\n\n"
                                                    "Ten nodes hold {{sum.fleet}} sequences. At that batch"));
  ASSERT_TRUE(p.diags.empty()) << p.all();
  EXPECT_NE(p.q.html.find("Ten nodes hold 400 sequences"), std::string::npos);
  EXPECT_NE(p.q.html.find("kv.max_sequences × 10"), std::string::npos);  // the step shows where the number came from
}

TEST(LoaderWhatIf, BreakevenAndRangeOnACalculatorsFlag) {
  // Young/Daly at the optimum: overhead = sqrt(2 × write ÷ MTBF). With MTBF 3 h = 10,800 s it
  // reaches 5% at write = 0.05² × 10,800 ÷ 2 = 13.5 s; at write 30 s it is sqrt(60 ÷ 10,800)
  // = 7.45%, at 120 s sqrt(240 ÷ 10,800) = 14.9%.
  Parsed p = parse(replace(good(), "At that batch",
                           "```calc id=ck\ncheckpoint mtbf-hours=3 write-seconds=60\n```\n\n"
                           "```calc id=w\nexpr\nwrite = breakeven({{ck.overhead_fraction}}, ck.write-seconds, 5%, 1 s, 60 s)\n"
                           "r = range({{ck.overhead_fraction}}, ck.write-seconds, 30 s, 120 s)\n```\n\n"
                           "Writes under {{w.write:s:1}} keep it at 5%[^h100], {{w.r_low:%:2}} to {{w.r_high:%:1}}. At that batch"));
  ASSERT_TRUE(p.diags.empty()) << p.all();
  EXPECT_NE(p.q.html.find("Writes under 13.5 s keep it"), std::string::npos);
  EXPECT_NE(p.q.html.find("7.45% to 14.9%"), std::string::npos);
}

TEST(LoaderWhatIf, ALineOfAnEarlierExprBlockIsAnInput) {
  // t = 100 s ÷ eff: 400 s at eff 25%, 100 s at 100%; it reaches 160 s at eff = 100 ÷ 160 = 62.5%.
  Parsed p = parse(replace(good(), "At that batch",
                           "```calc id=a hidden\nexpr\neff = 50%\n```\n\n"
                           "```calc id=b hidden\nexpr\nt = 100 s / {{a.eff}}\n```\n\n"
                           "```calc id=w hidden\nexpr\nr = range({{b.t}}, a.eff, 25%, 100%)\n"
                           "e = breakeven({{b.t}}, a.eff, 160 s, 25%, 100%) as %\n```\n\n"
                           "From {{w.r_low:s:0}} to {{w.r_high:s:0}}, {{w.e:%:1}} even. At that batch"));
  ASSERT_TRUE(p.diags.empty()) << p.all();
  EXPECT_NE(p.q.html.find("From 400 s to 100 s, 62.5% even."), std::string::npos) << p.q.html.substr(0, 3000);
}

TEST(LoaderWhatIf, AFlagTheBlockDoesNotWriteIsRefused) {
  Parsed p = parse(replace(good(), "At that batch",
                           "```calc id=ck\ncheckpoint mtbf-hours=3 write-seconds=60\n```\n\n"
                           "```calc id=w\nexpr\nx = breakeven({{ck.overhead_fraction}}, ck.restart-seconds, 5%, 1 s, 60 s)\n```\n\n"
                           "At that batch"));
  bool found = false;
  for (const auto& d : p.diags) found = found || d.message.find("the block writes no restart-seconds=") != std::string::npos;
  EXPECT_TRUE(found) << p.all();
}

TEST(LoaderLint, PlantedTypedLinkIsAnError) {
  Parsed p = parse(replace(good(), "At that batch",
                           "```calc id=ar hidden\nallreduce bytes=16GB ranks=8 bus-bandwidth=450GB/s\n```\n\nAt that batch"));
  bool found = false;
  for (const auto& d : p.diags) found = found || d.message.find("calc ar: bus-bandwidth=450GB/s is a link the catalog holds") != std::string::npos;
  EXPECT_TRUE(found) << p.all();
}

TEST(LoaderLint, PlantedSeedSentenceIsAnError) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / "ridge_seed_test" / "content";
  fs::path seeds = root.parent_path() / "seeds";
  fs::create_directories(root / "questions" / "napkin-math");
  fs::create_directories(root / "concepts");
  fs::create_directories(seeds);
  std::ofstream(root / "topics.toml") << "[[topic]]\nid = \"napkin-math\"\nname = \"N\"\ndescription = \"d\"\ntarget = 1\n"
                                          "[[track]]\nid = \"serving\"\nname = \"S\"\ndescription = \"d\"\n";
  std::ofstream(root / "concepts" / "kv-cache.md") << "+++\ntitle = \"KV\"\n+++\n";
  std::ofstream(seeds / "page.txt") << "Intro. The quick brown fox jumps over the lazy dog while the cat sleeps soundly nearby today.\n";
  std::string q = replace(good(), "Each sequence holds",
                          "The quick brown fox jumps over the lazy dog while the cat sleeps soundly. Each sequence holds");
  q = replace(q, "concepts = [\"kv-cache\"]", "concepts = [\"kv-cache\"]");
  std::ofstream(root / "questions" / "napkin-math" / "will-it-fit.md") << q;
  LoadOptions options;
  options.seeds_dir = seeds.string();
  LoadResult r = load_bank(root, calc::testing::registry(), calc::testing::real_catalog(), options);
  bool found = false;
  for (const auto& d : r.errors) found = found || d.message.find("12 words with the seed pages") != std::string::npos;
  EXPECT_TRUE(found);
  options.seeds_dir.clear();
  LoadResult without = load_bank(root, calc::testing::registry(), calc::testing::real_catalog(), options);
  for (const auto& d : without.errors) EXPECT_EQ(d.message.find("seed pages"), std::string::npos) << d.to_string();
  fs::remove_all(root.parent_path());
}

}  // namespace
}  // namespace ridge::bank

#include "bank/company_loader.h"

namespace ridge::bank {
namespace {

TEST(Company, APageWithSourcesRoundsAndTagsParses) {
  std::vector<Diagnostic> diags;
  Company c = parse_company(R"(name = "Example"
kind = "gpu cloud"
summary = "s"
confidence = "partial"
tracks = ["serving"]
topics = ["kernels"]
updated = 2026-12-01
[weights]
kernels = 2
[[rounds]]
name = "Coding"
confidence = "partial"
sources = ["r1"]
[[sources]]
id = "r1"
title = "A first-hand report"
url = "https://example.com/r1"
read = 2026-12-01
kind = "candidate"
[[questions]]
slug = "will-it-fit"
source = "r1"
why = "the coding round"
)", "example", "companies/example.toml", known(), diags);
  for (const auto& d : diags) ADD_FAILURE() << d.to_string();
  EXPECT_EQ(c.rounds.size(), 1u);
  EXPECT_EQ(c.weights.at("kernels"), 2);
  EXPECT_EQ(c.questions[0].source, "r1");
}

TEST(Company, MissingSourceRoundConfidenceOrTagSourceFails) {
  auto errors = [](const std::string& text) {
    std::vector<Diagnostic> diags;
    parse_company(text, "x", "companies/x.toml", known(), diags);
    std::string all;
    for (const auto& d : diags) all += d.message + "\n";
    return all;
  };
  std::string head = "name = \"X\"\nkind = \"gpu cloud\"\nsummary = \"s\"\nconfidence = \"limited\"\nupdated = 2026-12-01\n";
  EXPECT_NE(errors(head).find("at least one [[sources]]"), std::string::npos);
  std::string src = "[[sources]]\nid = \"a\"\ntitle = \"t\"\nurl = \"https://e.com\"\nread = 2026-12-01\nkind = \"guide\"\n";
  EXPECT_NE(errors(head + "[[rounds]]\nname = \"R\"\nsources = [\"a\"]\n" + src).find("has no confidence"), std::string::npos);
  EXPECT_NE(errors(head + "[[rounds]]\nname = \"R\"\nconfidence = \"partial\"\nsources = [\"b\"]\n" + src).find("is not in [[sources]]"),
            std::string::npos);
  EXPECT_NE(errors(head + src + "[[questions]]\nslug = \"q\"\n").find("names no source"), std::string::npos);
  EXPECT_NE(errors("confidence2 = 1\n" + head + src).find("unknown key"), std::string::npos);
}

TEST(Loader, ACodingQuestionNamesALabBuildThatExists) {
  LoadOptions lint;
  lint.lint = true;
  std::string coding = replace(good(), "topic = \"napkin-math\"", "topic = \"coding\"");
  Parsed missing = parse(coding, lint);
  expect_error(missing, "a coding question names its lab build: lab = \"ID\"", 2);
  Parsed unknown = parse(replace(coding, "updated = ", "lab = \"kv-block\"\nupdated = "), lint);
  expect_error(unknown, "lab build 'kv-block' does not exist; accepted: kv-blocks, rate-limiter", 9);
  Parsed named = parse(replace(coding, "updated = ", "lab = \"kv-blocks\"\nupdated = "), lint);
  EXPECT_EQ(named.q.lab, "kv-blocks");
  for (const auto& d : named.diags) EXPECT_EQ(d.message.find("lab"), std::string::npos) << d.to_string();
  // The server (no lint) serves a coding question that names no build; other topics may name one.
  LoadOptions serve;
  serve.lint = false;
  Parsed served = parse(coding, serve);
  for (const auto& d : served.diags) EXPECT_EQ(d.message.find("lab build"), std::string::npos) << d.to_string();
}

}  // namespace
}  // namespace ridge::bank
