// Issue 37: the Anki deck parsed back by the manual's rules (and re-imported as updates), the
// OpenAPI document against the route table and every JSON answer, the print page and the
// offline copy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "account/clock.h"
#include "calc/derivation.h"
#include "calc/source_dir.h"
#include "store/store.h"
#include "web/app_test_util.h"
#include "web/export/anki.h"
#include "web/export/openapi.h"
#include "web/export/site_export.h"
#include "web/routes/export_routes.h"
#include "web/test_app.h"

namespace ridge::web {
namespace {

using namespace app_testing;
using exports::parse_anki;
using nlohmann::json;

std::string export_deck(const bank::Bank& bank, const std::string& name, bool paid, exports::AnkiWritten* written = nullptr) {
  auto deck = exports::parse_deck(name, bank);
  EXPECT_TRUE(deck.ok()) << name;
  std::string out;
  auto w = exports::write_anki(
      exports::deck_questions(*deck, bank), exports::deck_title(*deck, bank), paid,
      [](const bank::Question& q) { return bank::answer_html(q, calc::testing::registry(), calc::testing::real_catalog()); },
      [&out](std::string_view s) { out.append(s); });
  if (written) *written = w;
  return out;
}

// The notes by GUID, as Anki's import keeps them: a note whose GUID is already there replaces
// it ("Duplicates and Updating" in the manual's text-import chapter).
void import_into(std::map<std::string, std::vector<std::string>>& collection, const exports::ParsedAnki& file) {
  size_t guid = std::stoul(file.header("guid column")) - 1;
  for (const auto& row : file.rows) collection[row.at(guid)] = row;
}

TEST(Anki, FileParsesBackByTheManualsRules) {
  const bank::Bank& bank = app().bank();
  exports::AnkiWritten written;
  std::string text = export_deck(bank, "topic:behavioral", false, &written);
  auto parsed = parse_anki(text);
  ASSERT_TRUE(parsed.ok()) << calc::to_string(parsed.errors());
  EXPECT_EQ(parsed->header("separator"), "Tab");
  EXPECT_EQ(parsed->header("html"), "true");
  EXPECT_EQ(parsed->header("guid column"), "1");
  EXPECT_EQ(parsed->header("deck column"), "4");
  EXPECT_EQ(parsed->header("tags column"), "5");
  // The free behavioral questions, counted from the bank: one note each.
  size_t free_count = 0, paid_count = 0;
  for (size_t i : bank.by_topic("behavioral")) (bank.questions[i].free ? free_count : paid_count) += 1;
  ASSERT_GT(free_count, 0u);
  EXPECT_EQ(parsed->rows.size(), free_count);
  EXPECT_EQ(written.left_out, static_cast<int>(paid_count));
  std::set<std::string> guids;
  for (const auto& row : parsed->rows) {
    ASSERT_EQ(row.size(), 5u);  // every note has the five columns #columns names
    EXPECT_TRUE(guids.insert(row[0]).second) << "duplicate GUID " << row[0];
    EXPECT_EQ(row[3], "ridge::" + bank.find_topic("behavioral")->name) << row[0];
    EXPECT_NE(row[4].find("ridge::topic::behavioral"), std::string::npos);
    EXPECT_NE(row[4].find("ridge::difficulty::"), std::string::npos);
    EXPECT_EQ(row[4].find('\t'), std::string::npos);
  }
  // The worked story of a-mistake-you-made, as the engine rendered it: 1,024 GPUs x 5 days x
  // 24 h x 12% = 14,745.6 GPU-hours, shown rounded to 14,746.
  auto it = std::find_if(parsed->rows.begin(), parsed->rows.end(), [](const auto& r) { return r[0] == "ridge-a-mistake-you-made"; });
  ASSERT_NE(it, parsed->rows.end());
  EXPECT_NE((*it)[2].find("14,746"), std::string::npos);
  EXPECT_NE((*it)[2].find("<b>TL;DR</b>"), std::string::npos);
  EXPECT_NE((*it)[4].find("ridge::concept::goodput"), std::string::npos);
  EXPECT_NE((*it)[4].find("ridge::track::platform"), std::string::npos);
}

TEST(Anki, DiagramsAreInlineSvgAndPaidAnswersNeedAccess) {
  const bank::Bank& bank = app().bank();
  const bank::Question* drawn = nullptr;
  const bank::Question* paid = nullptr;
  for (const auto& q : bank.questions) {
    if (!drawn && q.free && !q.diagrams.empty()) drawn = &q;
    if (!paid && !q.free) paid = &q;
  }
  ASSERT_NE(drawn, nullptr);
  ASSERT_NE(paid, nullptr);
  EXPECT_NE(exports::note_back(*drawn, bank::answer_html(*drawn, calc::testing::registry(), calc::testing::real_catalog())).find("<svg"), std::string::npos);
  for (bool access : {false, true}) {
    std::string text = export_deck(bank, "topic:" + paid->topic, access);
    auto parsed = parse_anki(text);
    ASSERT_TRUE(parsed.ok());
    bool found = std::any_of(parsed->rows.begin(), parsed->rows.end(), [&](const auto& r) { return r[0] == "ridge-" + paid->slug; });
    EXPECT_EQ(found, access) << paid->slug;
  }
}

TEST(Anki, ASecondExportAfterAContentChangeImportsAsUpdates) {
  bank::Bank changed = app().bank();
  std::string first = export_deck(app().bank(), "track:platform", false);
  // Change one free platform question's TL;DR, as an edit to its file would.
  bank::Question* edited = nullptr;
  for (size_t i : changed.by_track("platform")) {
    if (changed.questions[i].free) {
      edited = &changed.questions[i];
      break;
    }
  }
  ASSERT_NE(edited, nullptr);
  edited->set_tldr("Rewritten: " + edited->tldr());
  std::string second = export_deck(changed, "track:platform", false);
  auto a = parse_anki(first), b = parse_anki(second);
  ASSERT_TRUE(a.ok() && b.ok());
  std::map<std::string, std::vector<std::string>> collection;
  import_into(collection, *a);
  size_t notes = collection.size();
  import_into(collection, *b);
  EXPECT_EQ(collection.size(), notes);  // updated in place, nothing duplicated
  EXPECT_NE(collection.at("ridge-" + edited->slug)[2].find("Rewritten: "), std::string::npos);
  ASSERT_EQ(a->rows.size(), b->rows.size());
  int differing = 0;
  for (size_t i = 0; i < a->rows.size(); ++i) {
    EXPECT_EQ(a->rows[i][0], b->rows[i][0]);
    differing += a->rows[i] != b->rows[i];
  }
  EXPECT_EQ(differing, 1);
}

TEST(Anki, FieldsAreQuotedAsTheManualSays) {
  EXPECT_EQ(exports::anki_field("plain"), "plain");
  EXPECT_EQ(exports::anki_field("a\"b\tc\nd"), "\"a\"\"b\tc\nd\"");
  auto parsed = parse_anki("#separator:Tab\n#html:true\n\"a\"\"b\tc\nd\"\tsecond\n");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->rows.size(), 1u);
  EXPECT_EQ(parsed->rows[0][0], "a\"b\tc\nd");
  EXPECT_EQ(parsed->rows[0][1], "second");
  EXPECT_FALSE(parse_anki("#separator:Tab\n\"never closed\n").ok());
}

TEST(Anki, UnknownDeckIsRefusedWithEveryAcceptedName) {
  auto d = exports::parse_deck("topic:nope", app().bank());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.errors()[0].field, "deck");
  EXPECT_EQ(d.errors()[0].value, "topic:nope");
  for (const auto& t : app().bank().topics) EXPECT_NE(d.errors()[0].accepted.find("topic:" + t.id), std::string::npos);
  EXPECT_NE(d.errors()[0].accepted.find("bookmarks"), std::string::npos);
  Response r = get("/export/anki?deck=track:nope", "GET", {});
  EXPECT_EQ(r.status, 400);
  auto j = json::parse(r.view());
  EXPECT_EQ(j["errors"][0]["field"], "deck");
  EXPECT_NE(j["errors"][0]["accepted"].get<std::string>().find("course:"), std::string::npos);
  // Bookmarks are an account's: 401 without a session.
  EXPECT_EQ(get("/export/anki?deck=bookmarks").status, 401);
}

TEST(Anki, TheRouteServesTheDeckAndLimitsExportsPerClient) {
  auto fetch = [](const std::string& address) {
    Request req;
    req.target = "/export/anki?deck=topic:behavioral";
    parse_target(req.target, req);
    req.remote = address;
    return app().handle(req);
  };
  Response r = fetch("192.0.2.77");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_TRUE(parse_anki(std::string(r.view())).ok());
  EXPECT_NE(header(r, "Content-Disposition").find("ridge-topic-behavioral.txt"), std::string::npos);
  for (int i = 1; i < routes::kExportsPerMinute; ++i) EXPECT_EQ(fetch("192.0.2.77").status, 200) << i;
  Response refused = fetch("192.0.2.77");
  EXPECT_EQ(refused.status, 429);
  EXPECT_FALSE(header(refused, "Retry-After").empty());
  EXPECT_EQ(fetch("192.0.2.78").status, 200);  // another client is not held back
}

// Issue 37's gap: the budget was per process, so two servers behind a balancer gave a client
// twice the exports. With a store, servers sharing it share the budget.
TEST(Anki, ServersSharingAStoreShareTheExportBudget) {
  auto path = testing::fresh_database("export-budget");
  auto opened = store::open_store("sqlite:" + path.string());
  ASSERT_TRUE(opened.ok()) << opened.error().detail;
  std::unique_ptr<store::Store> db = std::move(opened).value();
  account::FakeClock clock{1'800'000'000};
  AppOptions options;
  options.store = db.get();
  options.clock = &clock;
  auto first = testing::real_app(options);
  auto second = testing::real_app(options);
  auto fetch = [](const App& server, const std::string& address) {
    Request req;
    req.target = "/export/anki?deck=topic:behavioral";
    parse_target(req.target, req);
    req.remote = address;
    return server.handle(req);
  };
  // Alternating servers: the budget of kExportsPerMinute is spent across both.
  for (int i = 0; i < routes::kExportsPerMinute; ++i) EXPECT_EQ(fetch(i % 2 ? *second : *first, "192.0.2.90").status, 200) << i;
  Response refused = fetch(*second, "192.0.2.90");
  EXPECT_EQ(refused.status, 429);
  EXPECT_FALSE(header(refused, "Retry-After").empty());
  EXPECT_EQ(fetch(*first, "192.0.2.91").status, 200);  // another client is not held back
  clock.advance(60);  // a minute later the bucket has refilled
  EXPECT_EQ(fetch(*first, "192.0.2.90").status, 200);
  first.reset();
  second.reset();
  db.reset();
  testing::remove_database(path);
}

json openapi_doc() {
  Response r = get("/api/openapi.json");
  EXPECT_EQ(r.status, 200);
  return json::parse(r.view());
}

TEST(OpenApi, EveryJsonRouteIsDescribedAndEveryDescriptionIsARoute) {
  json doc = openapi_doc();
  EXPECT_EQ(doc["openapi"], "3.1.0");
  EXPECT_FALSE(doc.contains("x-undescribed")) << doc["x-undescribed"].dump();
  int operations = 0;
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      ++operations;
      // The documented path, its {captures} filled in, reaches the route it names.
      std::string concrete = std::regex_replace(path, std::regex("\\{[a-z]+\\}"), "x");
      Request req;
      req.method.clear();
      for (char c : method) req.method += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      req.path = concrete;
      Router::Match m = app().route(req);
      ASSERT_NE(m.pattern, nullptr) << method << " " << path;
      EXPECT_EQ(*m.pattern, op["x-route"].get<std::string>()) << method << " " << path;
    }
  }
  // Every calculator is a path with each of its parameters.
  for (const auto& c : calc::testing::registry().all()) {
    ASSERT_TRUE(doc["paths"].contains("/api/calc/" + c.name)) << c.name;
    const json& params = doc["paths"]["/api/calc/" + c.name]["get"]["parameters"];
    size_t expected = std::count_if(c.params.begin(), c.params.end(), [](const calc::ParamSpec& s) { return s.type != calc::ParamType::kConfig; });
    EXPECT_EQ(params.size(), expected) << c.name;
  }
  EXPECT_GT(operations, 30);
}

TEST(OpenApi, EveryDocumentedExampleValidates) {
  json doc = openapi_doc();
  int examples = 0;
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      for (const auto& [status, response] : op["responses"].items()) {
        for (const auto& [type, media] : response["content"].items()) {
          if (!media.contains("example")) continue;
          ++examples;
          auto problems = exports::validate_json(media["example"], media["schema"], doc);
          EXPECT_TRUE(problems.empty()) << method << " " << path << " " << status << ": " << problems.front();
        }
      }
    }
  }
  EXPECT_GT(examples, 20);  // one per calculator at least
}

TEST(OpenApi, LiveAnswersMatchTheDescription) {
  json doc = openapi_doc();
  auto check = [&](const std::string& target, int status) {
    Response r = get(target);
    ASSERT_EQ(r.status, status) << target;
    Request req;
    parse_target(target, req);
    std::string path = exports::openapi_path_for(doc, req.path);
    ASSERT_FALSE(path.empty()) << target;
    const json& media = doc["paths"][path]["get"]["responses"][std::to_string(status)]["content"]["application/json"];
    ASSERT_TRUE(media.contains("schema")) << target << " " << status;
    auto problems = exports::validate_json(json::parse(r.view()), media["schema"], doc);
    EXPECT_TRUE(problems.empty()) << target << ": " << problems.front();
  };
  check("/api/calc", 200);
  check("/api/questions", 200);
  check("/api/questions?topic=nope", 400);
  check("/api/search?q=kv+cache", 200);
  check("/api/me", 200);
  check("/api/openapi.json", 200);
  for (const auto& q : app().bank().questions) {
    if (q.free) {
      check("/api/questions/" + q.slug, 200);
      break;
    }
  }
  for (const auto& c : calc::testing::registry().all()) {
    std::string target = "/api/calc/" + c.name + "?";
    for (const auto& [k, v] : example_values(c)) target += k + "=" + url_encode(v) + "&";
    check(target, 200);
  }
  check("/api/calc/fit?gpu=no-such-chip", 400);
}

TEST(OpenApi, TheValidatorCatchesAWrongShape) {
  json doc = openapi_doc();
  json schema = {{"$ref", "#/components/schemas/Derivation"}};
  json wrong = {{"calculator", "fit"}, {"results", {{"kv", "many"}}}};
  auto problems = exports::validate_json(wrong, schema, doc);
  EXPECT_FALSE(problems.empty());
  bool named = std::any_of(problems.begin(), problems.end(), [](const std::string& p) { return p.find("$.results.kv") != std::string::npos; });
  EXPECT_TRUE(named);
}

TEST(Print, ACourseIsOnePageWithEveryQuestionAndItsAnswer) {
  const bank::Bank& bank = app().bank();
  const auto& [id, course] = *bank.courses.begin();
  Response r = get("/courses/" + id + "/print");
  ASSERT_EQ(r.status, 200);
  std::string page(r.view());
  size_t questions = 0;
  for (const auto& m : course.modules) {
    EXPECT_NE(page.find(calc::html_escape(m.title)), std::string::npos) << m.title;
    for (const auto& slug : m.questions) {
      const bank::Question* q = bank.find(slug);
      ASSERT_NE(q, nullptr);
      ++questions;
      // Free answers shown, not behind a reveal; paid ones left out (no store: no access).
      EXPECT_EQ(page.find(q->html) != std::string::npos, q->free) << slug;
    }
  }
  size_t sections = 0;
  for (size_t at = page.find("class=\"print-question\""); at != std::string::npos; at = page.find("class=\"print-question\"", at + 1)) ++sections;
  EXPECT_EQ(sections, questions);
  EXPECT_EQ(get("/courses/nope/print").status, 404);
}

TEST(SiteExport, LinksAreRelativeAndResolveOnDisk) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ridge-site-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const bank::Bank& bank = app().bank();
  Assets assets(std::string(ridge::source_dir()) + "/web/static");
  Site site{bank, calc::testing::real_catalog(), calc::testing::registry(), assets};
  auto report = exports::export_site(site, AppOptions{}, std::string(ridge::source_dir()) + "/web/static", dir, false);
  ASSERT_TRUE(report.ok()) << calc::to_string(report.errors());
  // Pages: home, topics, questions, concepts, calculators, courses and their print pages, ...
  EXPECT_GT(report->pages, static_cast<int>(bank.questions.size() + bank.concepts.size()));
  EXPECT_GE(report->assets, 3);  // style.css, app.js, favicon.svg
  EXPECT_GT(report->diagrams, 0);
  const bank::Question* paid = nullptr;
  for (const auto& q : bank.questions) {
    if (!q.free) {
      paid = &q;
      break;
    }
  }
  ASSERT_NE(paid, nullptr);
  std::regex link(R"re((?:href|src|action)="([^"]*)")re");
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".html") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    std::string html = ss.str();
    for (auto m = std::sregex_iterator(html.begin(), html.end(), link); m != std::sregex_iterator(); ++m) {
      std::string url = (*m)[1];
      if (url.empty() || url[0] == '#' || url.rfind("http", 0) == 0 || url.rfind("mailto:", 0) == 0 || url.rfind("data:", 0) == 0) continue;
      ASSERT_NE(url[0], '/') << entry.path() << " links " << url;  // nothing absolute is left
      std::string file = url.substr(0, url.find_first_of("?#"));
      EXPECT_TRUE(fs::exists(entry.path().parent_path() / file)) << entry.path() << " links " << url;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
  // The paid answer is left out without the operator's flag.
  std::ifstream in(dir / "q" / (paid->slug + ".html"));
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty());
  EXPECT_EQ(ss.str().find(paid->html), std::string::npos);
  std::ifstream calc_page(dir / "calc" / "fit.html");
  std::stringstream cs;
  cs << calc_page.rdbuf();
  EXPECT_NE(cs.str().find("offline-note"), std::string::npos);
  EXPECT_EQ(cs.str().find("data-live="), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ridge::web
