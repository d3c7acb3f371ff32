// A question's body rendered on its first request (issue 30, item 3): `ridge serve` loads the
// bank with LoadOptions::render_bodies off. The answer is the same bytes as an eager load's,
// what reads across questions (search text, sections, follow-ups, links, sources) is the
// same, and a broken body is met by its first reader: the load succeeds, the page answers a
// 500 naming no internals, the error log names the file and the problem; an eager load (what
// `ridge serve --strict-bank` and `ridge check` run) refuses it.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "bank/loader.h"
#include "calc/source_dir.h"
#include "calc/test_catalog.h"
#include "web/app.h"
#include "web/http.h"
#include "web/log.h"
#include "web/routes/context.h"
#include "web/test_app.h"

namespace ridge::web {
namespace {

namespace fs = std::filesystem;

Response get(const App& app, const std::string& target) {
  Request req;
  req.method = "GET";
  req.target = target;
  EXPECT_TRUE(parse_target(target, req)) << target;
  return app.handle(req);
}

bank::LoadResult load(const fs::path& root, bool render_bodies) {
  bank::LoadOptions options{/*lint=*/false};
  options.render_bodies = render_bodies;
  return bank::load_bank(root, calc::testing::registry(), calc::testing::real_catalog(), options);
}

TEST(LazyBodies, EveryAnswerOfTheRealBankIsTheEagerLoadsBytes) {
  fs::path content = std::string(ridge::source_dir()) + "/content";
  bank::LoadResult eager = load(content, true), lazy = load(content, false);
  ASSERT_TRUE(eager.errors.empty());
  ASSERT_TRUE(lazy.errors.empty());
  ASSERT_EQ(lazy.bank.questions.size(), eager.bank.questions.size());
  ASSERT_GT(lazy.bank.questions.size(), 400u);
  for (size_t i = 0; i < eager.bank.questions.size(); ++i) {
    const bank::Question& e = eager.bank.questions[i];
    const bank::Question& l = lazy.bank.questions[i];
    ASSERT_EQ(l.slug, e.slug);
    EXPECT_TRUE(l.html.empty()) << l.slug;  // not rendered at load: the memory start-up saves
    EXPECT_FALSE(e.html.empty()) << e.slug;
    EXPECT_TRUE(l.body_errors.empty()) << l.slug;
    EXPECT_EQ(bank::answer_html(l, calc::testing::registry(), calc::testing::real_catalog()), e.html) << l.slug;
    // What pages across questions read is collected at load either way.
    EXPECT_EQ(l.tldr(), e.tldr()) << l.slug;
    // Search's text: a free answer's (a paid one is not searched, and not kept).
    EXPECT_EQ(l.plain_text, e.free ? e.plain_text : std::string()) << l.slug;
    EXPECT_EQ(l.sections, e.sections) << l.slug;
    EXPECT_EQ(l.follow_ups, e.follow_ups) << l.slug;  // rehearsal rounds
    EXPECT_EQ(l.links, e.links) << l.slug;
    EXPECT_EQ(l.sources.size(), e.sources.size()) << l.slug;
    EXPECT_EQ(l.snippets.size(), e.snippets.size()) << l.slug;
    EXPECT_EQ(l.diagrams.size(), e.diagrams.size()) << l.slug;
    EXPECT_EQ(l.calcs.size(), e.calcs.size()) << l.slug;
    // Issue 30: no derivation is kept; evaluated now, the blocks are the eager load's.
    EXPECT_TRUE(l.calcs_deferred) << l.slug;
    EXPECT_TRUE(std::none_of(l.calcs.begin(), l.calcs.end(), [](const bank::CalcBlock& c) { return c.derivation.has_value(); }))
        << l.slug;
    std::vector<bank::CalcBlock> now = bank::evaluated_calcs(l, calc::testing::registry(), calc::testing::real_catalog());
    ASSERT_EQ(now.size(), e.calcs.size()) << l.slug;
    for (size_t k = 0; k < now.size(); ++k) {
      EXPECT_EQ(now[k].id, e.calcs[k].id) << l.slug;
      EXPECT_EQ(now[k].call, e.calcs[k].call) << l.slug;
      ASSERT_EQ(now[k].derivation.has_value(), e.calcs[k].derivation.has_value()) << l.slug << " " << now[k].id;
      if (now[k].derivation) {
        EXPECT_EQ(calc::render_text(*now[k].derivation), calc::render_text(*e.calcs[k].derivation));
      }
    }
  }
}

// A bank of two questions in a temporary folder: "fine", and "broken", whose second calc block
// passes a parameter the calculator does not take (its front matter is fine).
class BrokenBody : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ridge-lazy-bodies-" + std::to_string(::getpid())) / "content";
    fs::create_directories(root_ / "questions" / "napkin-math");
    fs::create_directories(root_ / "concepts");
    fs::create_directories(root_ / "companies");
    std::ofstream(root_ / "topics.toml") << "[[topic]]\nid = \"napkin-math\"\nname = \"N\"\ndescription = \"d\"\n"
                                            "[[track]]\nid = \"serving\"\nname = \"S\"\ndescription = \"d\"\n"
                                            "weights = { napkin-math = 1 }\n";
    std::ofstream(root_ / "concepts" / "kv-cache.md") << "+++\ntitle = \"The KV cache\"\n+++\n";
    std::ofstream(root_ / "questions" / "napkin-math" / "fine.md") << question("fine", "");
    std::ofstream(root_ / "questions" / "napkin-math" / "broken.md") << question("broken", " warp_factor=9");
    // The same broken block, quoted by the TL;DR: start-up evaluates it (issue 30).
    std::ofstream(root_ / "questions" / "napkin-math" / "quoted.md")
        << question("quoted", " warp_factor=9", "Fits {{more.max_sequences}}.");
  }
  void TearDown() override { fs::remove_all(root_.parent_path()); }

  static std::string question(const std::string& title, const std::string& extra, const std::string& tldr = "Fits.",
                              bool free = true) {
    return "+++\ntitle = \"" + title + "\"\ntopic = \"napkin-math\"\ndifficulty = \"medium\"\ntracks = [\"serving\"]\n"
           "concepts = [\"kv-cache\"]\nfree = " + (free ? "true" : "false") + "\ntldr = \"" + tldr +
           "\"\nupdated = 2026-11-30\n+++\n\n## Answer\n\n"
           "```calc id=kv\nfit model=llama-3.1-70b gpu=h100-sxm gpus=8 context=32768\n```\n\n"
           "```calc id=more\nfit model=llama-3.1-70b gpu=h100-sxm gpus=4 context=8192" + extra + "\n```\n\n"
           "It holds {{kv.max_sequences}} sequences.\n\n## Signals\n\nMemory.\n\n## Follow-ups\n\n### One?\n\nYes.\n\n"
           "### Two?\n\nNo.\n\n## Sources\n\n[^a]: A datasheet, 2023.\n\nCited[^a].\n";
  }

  fs::path root_;
};

TEST_F(BrokenBody, TheLoadSucceedsAndTheBodyIsRefusedOnFirstRequestNamingTheFile) {
  bank::LoadResult lazy = load(root_, false);
  std::string all;
  for (const auto& d : lazy.errors) all += d.to_string() + "\n";
  ASSERT_TRUE(lazy.errors.empty()) << all;  // what `ridge serve` checks before listening
  ASSERT_EQ(lazy.bank.questions.size(), 3u);
  const bank::Question* broken = lazy.bank.find("broken");
  const bank::Question* fine = lazy.bank.find("fine");
  const bank::Question* quoted = lazy.bank.find("quoted");
  ASSERT_NE(broken, nullptr);
  ASSERT_NE(fine, nullptr);
  ASSERT_NE(quoted, nullptr);
  EXPECT_TRUE(fine->body_errors.empty());
  // Nothing start-up reads quotes the broken block (the TL;DR quotes nothing, the prose only
  // `kv`), so start-up does not evaluate it (issue 30): its first request does.
  EXPECT_TRUE(broken->body_errors.empty());
  // Quoted by the TL;DR, it is evaluated at start-up and the body is refused from then on.
  ASSERT_FALSE(quoted->body_errors.empty());
  // The second block's call is on line 19: front matter lines 1 to 10, a blank, ## Answer, a
  // blank, the first block on 14 to 16, a blank, the second block's fence on 18.
  EXPECT_EQ(quoted->body_errors.front().file, "content/questions/napkin-math/quoted.md");  // from the root's parent
  EXPECT_EQ(quoted->body_errors.front().line, 19);
  EXPECT_NE(quoted->body_errors.front().message.find("--warp-factor"), std::string::npos) << quoted->body_errors.front().message;
  EXPECT_THROW(bank::answer_html(*quoted, calc::testing::registry(), calc::testing::real_catalog()), bank::BrokenBody);
  std::string refused;
  try {
    bank::answer_html(*broken, calc::testing::registry(), calc::testing::real_catalog());
    ADD_FAILURE() << "a broken body rendered";
  } catch (const bank::BrokenBody& e) {
    refused = e.what();
  }
  EXPECT_NE(refused.find("content/questions/napkin-math/broken.md:19: calc more"), std::string::npos) << refused;
  // The eager load, as `ridge serve --strict-bank` and `ridge check` run it, refuses both,
  // with the words the first request used.
  bank::LoadResult eager = load(root_, true);
  ASSERT_EQ(eager.errors.size(), 2u);
  EXPECT_EQ(eager.errors[0].to_string(), refused);
  EXPECT_EQ(eager.errors[1].to_string(), quoted->body_errors.front().to_string());
}

TEST_F(BrokenBody, ThePageAnswers500NamingNoInternalsAndTheLogNamesTheFile) {
  std::ostringstream log_lines;
  log::configure({log::Format::kText, /*access=*/false, /*async=*/false},
                 std::make_shared<spdlog::sinks::ostream_sink_mt>(log_lines));
  bank::LoadResult lazy = load(root_, false);
  ASSERT_TRUE(lazy.errors.empty());
  App app(std::move(lazy.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
          Assets(std::string(ridge::source_dir()) + "/web/static"));
  EXPECT_EQ(get(app, "/q/fine").status, 200);
  for (int attempt = 0; attempt < 2; ++attempt) {  // refused again, never kept as a page
    Response r = get(app, "/q/broken");
    EXPECT_EQ(r.status, 500);
    std::string body(r.view());
    EXPECT_EQ(body.find("warp"), std::string::npos);
    EXPECT_EQ(body.find("broken.md"), std::string::npos);
    EXPECT_EQ(body.find("calc more"), std::string::npos);
  }
  log::flush();
  std::string logged = log_lines.str();
  EXPECT_NE(logged.find("content/questions/napkin-math/broken.md:19: calc more"), std::string::npos) << logged;
  EXPECT_NE(logged.find("--warp-factor"), std::string::npos) << logged;
  log::configure({log::Format::kText, /*access=*/false, /*async=*/false});
}

// Issue 30: a paid question's TL;DR is made on its first read, not at start-up. Two paid
// questions beside the fixture's: "paid-fine" quotes `kv` (fine), "paid-broken" quotes
// `more` (the broken block). The load evaluates neither, so it finds nothing; the broken
// TL;DR is refused on every read with the words an eager load uses, and its paywall page
// (anonymous: the TL;DR and no answer) answers 500 with the file in the log.
class DeferredTldr : public BrokenBody {
 protected:
  void SetUp() override {
    BrokenBody::SetUp();
    std::ofstream(root_ / "questions" / "napkin-math" / "paid-fine.md")
        << question("paid-fine", "", "About {{kv.max_sequences}} sequences fit.", /*free=*/false);
    std::ofstream(root_ / "questions" / "napkin-math" / "paid-broken.md")
        << question("paid-broken", " warp_factor=9", "Fits {{more.max_sequences}}.", /*free=*/false);
  }
};

TEST_F(DeferredTldr, APaidTldrIsMadeOnFirstReadAsTheEagerLoadMakesIt) {
  bank::LoadResult lazy = load(root_, false), eager = load(root_, true);
  ASSERT_TRUE(lazy.errors.empty());
  const bank::Question *fine = lazy.bank.find("paid-fine"), *broken = lazy.bank.find("paid-broken");
  const bank::Question* eager_fine = eager.bank.find("paid-fine");
  ASSERT_TRUE(fine != nullptr && broken != nullptr && eager_fine != nullptr);
  // Not evaluated at load: had it been, the broken block would be among the body's errors.
  EXPECT_TRUE(broken->body_errors.empty());
  // The eager load's text (references substituted at load) is the reference.
  EXPECT_NE(eager_fine->tldr().find(" sequences fit."), std::string::npos) << eager_fine->tldr();
  EXPECT_EQ(eager_fine->tldr().find("{{"), std::string::npos) << eager_fine->tldr();
  // Read from eight threads at once: made once, every reader gets the same string.
  std::vector<const std::string*> seen(8, nullptr);
  {
    std::vector<std::thread> readers;
    for (size_t t = 0; t < seen.size(); ++t) readers.emplace_back([&, t] { seen[t] = &fine->tldr(); });
    for (auto& r : readers) r.join();
  }
  for (const std::string* s : seen) {
    ASSERT_EQ(s, seen.front());
  }
  EXPECT_EQ(*seen.front(), eager_fine->tldr());
  // The eager load refuses the broken TL;DR's block at line 19; the lazy read names the same.
  std::string eager_words;
  for (const auto& d : eager.errors) {
    if (d.file.find("paid-broken.md") != std::string::npos && eager_words.empty()) eager_words = d.to_string();
  }
  ASSERT_FALSE(eager_words.empty());
  EXPECT_NE(eager_words.find("paid-broken.md:19: calc more"), std::string::npos) << eager_words;
  for (int attempt = 0; attempt < 2; ++attempt) {  // refused on every read, never kept as text
    try {
      (void)broken->tldr();
      ADD_FAILURE() << "a broken TL;DR was made";
    } catch (const bank::BrokenBody& e) {
      EXPECT_EQ(std::string(e.what()), eager_words);
    }
  }
  // What lists many questions reads the summary instead, and never throws.
  EXPECT_EQ(broken->listed_tldr(), broken->summary);
  EXPECT_EQ(&fine->listed_tldr(), &fine->tldr());
}

TEST_F(DeferredTldr, APaywallWithABrokenTldrAnswers500AndTheLogNamesTheFile) {
  std::ostringstream log_lines;
  log::configure({log::Format::kText, /*access=*/false, /*async=*/false},
                 std::make_shared<spdlog::sinks::ostream_sink_mt>(log_lines));
  // As `ridge serve` does: the registry and catalog the bank was loaded with are moved into
  // the App, which makes a deferred TL;DR with its own (Question::rebind_tldr).
  calc::Registry registry = calc::make_builtin_registry();
  calc::Catalog catalog = calc::testing::real_catalog();
  bank::LoadOptions load_options{/*lint=*/false};
  load_options.render_bodies = false;
  bank::LoadResult lazy = bank::load_bank(root_, registry, catalog, load_options);
  ASSERT_TRUE(lazy.errors.empty());
  const fs::path db = testing::fresh_database("deferred-tldr");
  auto opened = store::open_store("sqlite:" + db.string());
  ASSERT_TRUE(opened.ok()) << opened.error().detail;
  std::unique_ptr<store::Store> store = std::move(opened).value();
  AppOptions options;
  options.store = store.get();
  {
    App app(std::move(lazy.bank), std::move(catalog), std::move(registry), Assets(std::string(ridge::source_dir()) + "/web/static"),
            options);
    // Anonymous, a paid question's page is locked: no TL;DR on it, so none is made.
    EXPECT_EQ(get(app, "/q/paid-broken").status, 200);
    // Signed in without access: the paywall shows the TL;DR.
    Request signup;
    signup.method = "POST";
    signup.target = "/api/signup";
    ASSERT_TRUE(parse_target(signup.target, signup));
    signup.body = nlohmann::json{{"email", "t@example.com"}, {"password", "correct horse battery"}}.dump();
    signup.remote = "10.0.0.1";
    Response made = app.handle(signup);
    ASSERT_EQ(made.status, 201) << made.body;
    std::string cookie;
    for (const auto& [k, v] : made.headers) {
      if (k == "Set-Cookie") cookie = v.substr(0, v.find(';'));
    }
    ASSERT_FALSE(cookie.empty());
    auto get_signed_in = [&](const std::string& target) {
      Request req;
      req.method = "GET";
      req.target = target;
      EXPECT_TRUE(parse_target(target, req));
      req.headers["cookie"] = cookie;
      req.remote = "10.0.0.1";
      return app.handle(req);
    };
    Response fine = get_signed_in("/q/paid-fine");
    EXPECT_EQ(fine.status, 402);
    EXPECT_NE(std::string(fine.view()).find(" sequences fit."), std::string::npos);
    for (int attempt = 0; attempt < 2; ++attempt) {  // refused again, never kept as a page
      Response r = get_signed_in("/q/paid-broken");
      EXPECT_EQ(r.status, 500);
      EXPECT_EQ(std::string(r.view()).find("paid-broken.md"), std::string::npos);
      EXPECT_EQ(std::string(r.view()).find("warp"), std::string::npos);
    }
  }
  store.reset();
  testing::remove_database(db);
  log::flush();
  std::string logged = log_lines.str();
  EXPECT_NE(logged.find("content/questions/napkin-math/paid-broken.md:19: calc more"), std::string::npos) << logged;
  log::configure({log::Format::kText, /*access=*/false, /*async=*/false});
}

// The pages that list questions (52 MB at 10,000 questions) are rendered on first request
// too, into the question pages' cache: served inline only once kept, and still in the sitemap.
TEST(LazyListings, AListingPageIsRenderedOnItsFirstRequestAndKept) {
  bank::LoadResult lazy = load(std::string(ridge::source_dir()) + "/content", false);
  ASSERT_TRUE(lazy.errors.empty());
  App app(std::move(lazy.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
          Assets(std::string(ridge::source_dir()) + "/web/static"));
  ASSERT_FALSE(app.bank().concepts.empty());
  const std::string concept_path = "/concepts/" + app.bank().concepts.begin()->first;
  Request req;
  req.target = concept_path;
  ASSERT_TRUE(parse_target(concept_path, req));
  EXPECT_FALSE(app.runs_inline(req, app.route(req)));  // not kept yet: a worker renders it
  EXPECT_EQ(app.question_pages().renders(), 0u);
  Response first = get(app, concept_path);
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(app.question_pages().renders(), 1u);
  EXPECT_TRUE(app.runs_inline(req, app.route(req)));
  Response again = get(app, concept_path + "/");  // a trailing slash is the same page
  EXPECT_EQ(again.view(), first.view());
  EXPECT_EQ(app.question_pages().renders(), 1u);
  EXPECT_EQ(get(app, "/easy").status, 200);
  EXPECT_EQ(app.question_pages().renders(), 2u);
  EXPECT_EQ(get(app, "/topics/no-such-topic").status, 404);
  EXPECT_EQ(get(app, "/calc/no-such-calculator").status, 404);
  EXPECT_EQ(app.question_pages().entries(), 2u);  // nothing kept for a path that is no page
  std::string sitemap(get(app, "/sitemap.xml").view());
  for (const std::string& path : {concept_path, std::string("/easy"), "/topics/" + app.bank().topics.front().id,
                                  "/tracks/" + app.bank().tracks.front().id}) {
    EXPECT_NE(sitemap.find(path + "</loc>"), std::string::npos) << path;
  }
}

// A question's answer read outside its page (the API, a rehearsal, a course's print page) is
// rendered once into the same cache, not again on each request: the API's "html" is the
// eager load's bytes, and a second request renders nothing.
// The real bank loaded twice: eagerly (every answer rendered at load, the reference bytes) and
// as the server loads it (bodies on first request), with an App on the lazy one.
struct EagerAndLazy {
  bank::LoadResult eager = load(std::string(ridge::source_dir()) + "/content", true);
  bank::LoadResult lazy = load(std::string(ridge::source_dir()) + "/content", false);
  const bank::Question* free_q = first_free(eager.bank);
  std::unique_ptr<App> app;
  EagerAndLazy() {
    app = std::make_unique<App>(std::move(lazy.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
                                Assets(std::string(ridge::source_dir()) + "/web/static"));
  }
  ::testing::AssertionResult loaded() const {
    if (!eager.errors.empty() || !lazy.errors.empty()) return ::testing::AssertionFailure() << "the bank has errors";
    if (free_q == nullptr) return ::testing::AssertionFailure() << "no free question";
    return ::testing::AssertionSuccess();
  }
  static const bank::Question* first_free(const bank::Bank& b) {
    for (const auto& q : b.questions) {
      if (q.free) return &q;
    }
    return nullptr;
  }
};

TEST(LazyBodies, AnAnswerOutsideItsPageIsRenderedOnceAndKept) {
  EagerAndLazy both;
  ASSERT_TRUE(both.loaded());
  const bank::Question* free_q = both.free_q;
  App& app = *both.app;
  const std::string path = "/api/questions/" + free_q->slug;
  Response first = get(app, path);
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(nlohmann::json::parse(first.view())["html"], free_q->html);
  const size_t rendered = app.question_pages().renders();
  EXPECT_GE(rendered, 1u);
  EXPECT_EQ(get(app, path).view(), first.view());
  EXPECT_EQ(app.question_pages().renders(), rendered);  // the second request rendered nothing
  // The API's whole body is kept too (issue 30): a second request evaluates no calc block.
  EXPECT_NE(app.question_pages().peek(std::string(routes::kApiQuestionKey) + free_q->slug), nullptr);
  // Its calc results are the eager load's derivations'.
  nlohmann::json calcs = nlohmann::json::parse(first.view())["calcs"];
  size_t evaluated = 0;
  for (const auto& c : free_q->calcs) {
    if (!c.derivation) continue;
    ++evaluated;
    ASSERT_TRUE(calcs.contains(c.id)) << c.id;
    for (const auto& r : c.derivation->results()) EXPECT_EQ(calcs[c.id]["results"][r.key], r.value) << c.id << "." << r.key;
  }
  EXPECT_EQ(calcs.size(), evaluated);
}

// The web Anki export reads each answer through the same cache: a second export of the deck
// renders nothing, and the notes carry the eager load's answer bytes.
TEST(LazyBodies, AnAnkiExportReadsAnswersFromThePageCache) {
  EagerAndLazy both;
  ASSERT_TRUE(both.loaded());
  const bank::Question* free_q = both.free_q;
  App& app = *both.app;
  const std::string path = "/export/anki?deck=topic:" + free_q->topic;
  Response first = get(app, path);
  ASSERT_EQ(first.status, 200);
  const size_t rendered = app.question_pages().renders();
  EXPECT_GE(rendered, 1u);
  // The answer as a note field: Anki's quoting doubles the quotes.
  std::string quoted;
  for (char c : free_q->html) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  EXPECT_NE(std::string(first.view()).find(quoted), std::string::npos);
  Response again = get(app, path);
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(again.view(), first.view());
  EXPECT_EQ(app.question_pages().renders(), rendered);  // the second export rendered nothing
}

}  // namespace
}  // namespace ridge::web
