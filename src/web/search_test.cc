// Search through App::handle: whole identifiers, the shared cache of result pages, paging and
// true counts.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "calc/source_dir.h"
#include "calc/test_catalog.h"

#include "web/app_test_util.h"
#include "web/metered_store.h"
#include "web/test_app.h"

namespace ridge::web {
namespace {

using namespace app_testing;

// Issue 20: search that finds. Fixed queries and what their results must (not) hold.
std::vector<std::string> result_titles(const std::string& body) {
  std::vector<std::string> titles;
  for (size_t pos = 0; (pos = body.find("<li><a href=\"/", pos)) != std::string::npos;) {
    size_t start = body.find('>', pos + 5) + 1;
    titles.push_back(body.substr(start, body.find('<', start) - start));
    pos = start;
  }
  return titles;
}

TEST(Search, IdentifiersAreWholeAndShortWordsAreNotPrefixes) {
  auto zero = result_titles(std::string(get("/search?q=zero-3").view()));
  ASSERT_FALSE(zero.empty());
  EXPECT_NE(zero[0].find("ZeRO"), std::string::npos) << zero[0];
  for (const auto& t : zero) EXPECT_EQ(t.find("emperature"), std::string::npos) << t;
  auto mig = result_titles(std::string(get("/search?q=MIG").view()));
  ASSERT_FALSE(mig.empty());
  for (const auto& t : mig) EXPECT_EQ(t.find("igration"), std::string::npos) << t;
  EXPECT_EQ(fts_query("zero-3"), "\"zero 3\"");
  EXPECT_EQ(fts_query("NCCL_ALGO ring"), "\"nccl algo\" AND \"ring\"*");
  EXPECT_EQ(fts_query("a a a a a"), "\"a\"");  // deduplicated
  std::string many;
  for (int i = 0; i < 100; ++i) many += "w" + std::to_string(i) + " ";
  std::string capped = fts_query(many);
  EXPECT_EQ(std::count(capped.begin(), capped.end(), '"') / 2, SearchIndex::kMaxTerms);
}

// Issue 22: a search page is rendered once per decoded query, filters and page number.
TEST(Search, EquivalentQueriesShareOneCachedPage) {
  size_t before = app().search_cache().size();
  Response first = get("/search?q=tensor+parallel+cache");
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(app().search_cache().size(), before + 1);
  Response same = get("/search?utm_source=x&q=tensor%20parallel%20cache&page=01");
  EXPECT_EQ(same.view(), first.view());
  EXPECT_EQ(app().search_cache().size(), before + 1);
  // The page echoes the query as typed, so case is part of the key; so are filters and pages.
  Response upper = get("/search?q=Tensor+parallel+cache");
  EXPECT_NE(upper.view(), first.view());
  EXPECT_NE(std::string(upper.view()).find("value=\"Tensor parallel cache\""), std::string::npos);
  get("/search?q=tensor+parallel+cache&difficulty=hard");
  get("/search?q=tensor+parallel+cache&page=2");
  EXPECT_EQ(app().search_cache().size(), before + 4);
  // Refused parameters are answered 400 and kept nowhere.
  EXPECT_EQ(get("/search?q=tensor&page=1001").status, 400);
  EXPECT_EQ(get("/search?q=" + std::string(201, 'a')).status, 400);
  EXPECT_EQ(app().search_cache().size(), before + 4);
}

TEST(Search, PagesAndTheTrueCount) {
  Response first = get("/search?q=kv+cache");
  ASSERT_EQ(first.status, 200);
  std::string first_body(first.view());
  size_t at = first_body.find("id=\"result-count\">");
  ASSERT_NE(at, std::string::npos);
  int total = std::stoi(first_body.substr(at + 18));
  EXPECT_GT(total, 20);  // more than one page: the count is not capped at the page size
  EXPECT_EQ(result_titles(first_body).size(), 20u);
  EXPECT_NE(first_body.find("rel=\"next\""), std::string::npos);
  Response last = get("/search?q=kv+cache&page=" + std::to_string((total + 19) / 20));
  EXPECT_EQ(result_titles(std::string(last.view())).size(), static_cast<size_t>(total - 20 * ((total + 19) / 20 - 1)));
  EXPECT_EQ(get("/search?q=kv&page=0").status, 400);
  EXPECT_EQ(get("/search?q=kv&page=x").status, 400);
  // Snippets carry no footnote markup and no raw URL.
  EXPECT_EQ(first_body.find("[^"), std::string::npos);
  EXPECT_EQ(first_body.find("<span class=\"muted\">https://"), std::string::npos);
}

// Issue 30 (start-up): the index builds on a thread of its own. A search that comes before
// the build is done waits for it and gets the full result, never a partial or empty one.
TEST(Search, ASearchBeforeTheBackgroundBuildIsDoneWaitsAndGetsTheFullResult) {
  bank::LoadOptions options{/*lint=*/false};
  options.render_bodies = false;  // as `ridge serve` loads it
  auto loaded = bank::load_bank(std::string(ridge::source_dir()) + "/content", calc::testing::registry(),
                                calc::testing::real_catalog(), options);
  ASSERT_TRUE(loaded.errors.empty());
  const SearchIndex now(loaded.bank);  // built on this thread: the reference
  int expected_total = 0;
  auto expected = now.search_page("kv cache", "", "", 50, 0, &expected_total);
  ASSERT_GT(expected_total, 20);  // the real bank: "kv cache" is in dozens of answers

  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  const SearchIndex later(loaded.bank, SearchIndex::Background{}, [open] { open.wait(); });
  EXPECT_FALSE(later.ready());  // the builder waits on the gate before it says it is done
  auto pending = std::async(std::launch::async, [&later] {
    int total = 0;
    bool timed_out = true;
    auto hits = later.search_page("kv cache", "", "", 50, 0, &total, &timed_out);
    return std::make_tuple(hits, total, timed_out);
  });
  // Not answered while the build is not done (it would be answered within microseconds).
  EXPECT_EQ(pending.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  gate.set_value();
  auto [hits, total, timed_out] = pending.get();
  EXPECT_TRUE(later.ready());
  EXPECT_FALSE(timed_out);
  EXPECT_EQ(total, expected_total);
  ASSERT_EQ(hits.size(), expected.size());
  for (size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i].id, expected[i].id);
    EXPECT_EQ(hits[i].snippet_html, expected[i].snippet_html);
  }
}

// The server's App: a search right after start-up (the index may still be building) finds
// what an index built before listening found.
TEST(Search, ASearchRightAfterStartUpGetsTheFullResult) {
  bank::LoadOptions options{/*lint=*/false};
  options.render_bodies = false;
  auto load = [&] {
    return bank::load_bank(std::string(ridge::source_dir()) + "/content", calc::testing::registry(),
                           calc::testing::real_catalog(), options);
  };
  auto reference = load();
  const SearchIndex now(reference.bank);
  int expected_total = 0;
  auto expected = now.search_page("tensor parallel", "", "", 20, 0, &expected_total);
  ASSERT_GT(expected_total, 5);
  App app(load().bank, calc::testing::real_catalog(), calc::make_builtin_registry(),
          Assets(std::string(ridge::source_dir()) + "/web/static"));
  Request req;
  req.method = "GET";
  req.target = "/api/search?q=tensor+parallel&limit=20";
  ASSERT_TRUE(parse_target(req.target, req));
  Response r = app.handle(req);
  ASSERT_EQ(r.status, 200);
  std::string body(r.view());
  EXPECT_NE(body.find("\"total\":" + std::to_string(expected_total) + ","), std::string::npos) << body.substr(0, 200);
  EXPECT_NE(body.find("\"timed_out\":false"), std::string::npos);
  for (const auto& hit : expected) EXPECT_NE(body.find("\"" + hit.id + "\""), std::string::npos) << hit.id;
}

// Issue 30: when the background build cannot make the index (here SQLite runs out of the memory
// it may use), search says it is unavailable (503, the field named in the API) instead of
// answering "no results", and the index is absent rather than partial.
TEST(Search, AnIndexThatCouldNotBeBuiltAnswers503NotNothing) {
  ASSERT_EQ(get("/search?q=kv+cache").status, 200);  // the shared app's own index is built: the limit below spares it
  bank::LoadOptions options{/*lint=*/false};
  options.render_bodies = false;
  auto loaded = bank::load_bank(std::string(ridge::source_dir()) + "/content", calc::testing::registry(),
                                calc::testing::real_catalog(), options);
  ASSERT_TRUE(loaded.errors.empty());
  // The real bank's index takes megabytes; 256 KB above what SQLite holds now fails its inserts.
  const sqlite3_int64 previous = sqlite3_hard_heap_limit64(-1);
  sqlite3_hard_heap_limit64(sqlite3_memory_used() + 256 * 1024);
  App broken(std::move(loaded.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
             Assets(std::string(ridge::source_dir()) + "/web/static"));
  while (!broken.search_index().ready()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  sqlite3_hard_heap_limit64(previous);
  EXPECT_FALSE(broken.search_index().available());
  auto ask = [&broken](const std::string& target) {
    Request req;
    req.method = "GET";
    req.target = target;
    EXPECT_TRUE(parse_target(req.target, req));
    return broken.handle(req);
  };
  Response page = ask("/search?q=kv+cache");
  EXPECT_EQ(page.status, 503);
  EXPECT_NE(std::string(page.view()).find("Search is unavailable"), std::string::npos);
  Response api = ask("/api/search?q=kv+cache");
  EXPECT_EQ(api.status, 503);
  EXPECT_NE(std::string(api.view()).find("\"field\": \"q\""), std::string::npos) << api.view();
  EXPECT_EQ(broken.search_cache().size(), 0u);  // nothing kept: a restart with memory answers again
  // The same bank indexed with memory to spare answers as before.
  EXPECT_TRUE(app().search_index().available());
  EXPECT_EQ(get("/api/search?q=kv+cache").status, 200);
}

}  // namespace
}  // namespace ridge::web
