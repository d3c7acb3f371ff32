// The question pages' cache (issue 30, item 3): rendered on first request, once even when
// requests arrive together, bounded by bytes with the least recently used out first.
#include "web/routes/lazy_pages.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "web/app.h"
#include "web/test_app.h"

namespace ridge::web::routes {
namespace {

// A renderer of "/pN" pages with a body of `size` bytes; other paths are not pages.
LazyPages::Render pages_of(size_t size, std::atomic<int>& calls) {
  return [size, &calls](const std::string& path) -> std::optional<CachedPage> {
    ++calls;
    if (path.rfind("/p", 0) != 0) return std::nullopt;
    return CachedPage{std::string(size, 'x'), "\"" + path + "\"", "", ""};
  };
}

TEST(LazyPages, RendersAPageOnceAndKeepsNothingForAPathThatIsNoPage) {
  std::atomic<int> calls{0};
  LazyPages pages(1 << 20, pages_of(10, calls));
  EXPECT_EQ(pages.peek("/p1"), nullptr);  // peek never renders
  EXPECT_EQ(calls, 0);
  auto first = pages.get("/p1");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->body, std::string(10, 'x'));
  EXPECT_EQ(pages.get("/p1"), first);  // the same page, not a second render
  EXPECT_EQ(pages.peek("/p1"), first);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(pages.renders(), 1u);
  EXPECT_EQ(pages.get("/nothing"), nullptr);
  EXPECT_EQ(pages.get("/nothing"), nullptr);  // asked again: rendered again, never kept
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(pages.entries(), 1u);
}

TEST(LazyPages, BytesAreBoundedAndTheLeastRecentlyUsedGoesFirst) {
  std::atomic<int> calls{0};
  // A kept page counts its body, header blocks, ETag and path: 90 + 0 + 0 + 5 ("/pN" quoted)
  // + 3 ("/pN") = 98 bytes, so a bound of 300 keeps three and not four (392).
  LazyPages pages(300, pages_of(90, calls));
  auto p1 = pages.get("/p1");
  pages.get("/p2");
  pages.get("/p3");
  EXPECT_EQ(pages.bytes(), 294u);
  pages.get("/p1");  // p1 is now the most recent; p2 the least
  pages.get("/p4");
  EXPECT_EQ(pages.entries(), 3u);
  EXPECT_EQ(pages.bytes(), 294u);
  EXPECT_EQ(pages.peek("/p2"), nullptr);
  EXPECT_NE(pages.peek("/p1"), nullptr);
  EXPECT_NE(pages.peek("/p3"), nullptr);
  EXPECT_NE(pages.peek("/p4"), nullptr);
  EXPECT_EQ(calls, 4);
  // An evicted page a response still holds stays readable.
  pages.get("/p5");
  pages.get("/p6");
  pages.get("/p7");
  EXPECT_EQ(pages.peek("/p1"), nullptr);
  EXPECT_EQ(p1->body.size(), 90u);
  // A page over the bound alone is served and kept alone.
  std::atomic<int> big_calls{0};
  LazyPages small(50, pages_of(90, big_calls));
  small.get("/p1");
  auto p2 = small.get("/p2");
  ASSERT_NE(p2, nullptr);
  EXPECT_EQ(small.entries(), 1u);
  EXPECT_EQ(small.peek("/p2"), p2);
}

TEST(LazyPages, ConcurrentFirstRequestsRenderThePageOnce) {
  constexpr int kThreads = 8;
  std::atomic<int> calls{0}, started{0};
  // The render waits until every thread has started asking, so the others ask while it runs
  // (they either wait for it or, if they are late, find it kept: one render either way).
  LazyPages pages(1 << 20, [&](const std::string& path) -> std::optional<CachedPage> {
    ++calls;
    while (started.load() < kThreads) std::this_thread::yield();
    return CachedPage{"body of " + path, "\"e\"", "", ""};
  });
  std::vector<std::shared_ptr<const CachedPage>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ++started;
      got[t] = pages.get("/q/cold");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(calls, 1);
  for (const auto& g : got) {
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g, got[0]);  // one page: the same bytes and ETag for everyone
  }
}

TEST(LazyPages, AFailedRenderReachesItsCallerAndIsTriedAgain) {
  int calls = 0;
  LazyPages pages(1 << 20, [&](const std::string&) -> std::optional<CachedPage> {
    if (++calls == 1) throw std::runtime_error("the renderer failed");
    return CachedPage{"ok", "\"e\"", "", ""};
  });
  EXPECT_THROW(pages.get("/p1"), std::runtime_error);
  EXPECT_EQ(pages.entries(), 0u);
  auto page = pages.get("/p1");
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(page->body, "ok");
  EXPECT_EQ(calls, 2);
}

// Through the App: no question page is rendered at start-up; the first request renders it
// (and its locked copy for a paid question), the next ones are served from the cache.
TEST(LazyPages, TheAppRendersAQuestionPageOnItsFirstRequest) {
  AppOptions options;
  auto app = testing::real_app(options);
  EXPECT_EQ(app->question_pages().renders(), 0u);
  const bank::Question* free_q = nullptr;
  const bank::Question* paid_q = nullptr;
  for (const auto& q : app->bank().questions) {
    if (q.free && free_q == nullptr) free_q = &q;
    if (!q.free && paid_q == nullptr) paid_q = &q;
  }
  ASSERT_NE(free_q, nullptr);
  ASSERT_NE(paid_q, nullptr);
  auto get = [&](const std::string& target) {
    Request req;
    req.method = "GET";
    req.target = target;
    EXPECT_TRUE(parse_target(target, req));
    return app->handle(req);
  };
  Response first = get("/q/" + free_q->slug);
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(app->question_pages().renders(), 1u);
  Response again = get("/q/" + free_q->slug);
  EXPECT_EQ(app->question_pages().renders(), 1u);
  EXPECT_EQ(again.view(), first.view());
  EXPECT_NE(first.view().find(free_q->title.substr(0, 10)), std::string_view::npos);
  Response locked = get("/q/" + paid_q->slug);  // anonymous: the locked copy, personal
  EXPECT_EQ(locked.status, 200);
  EXPECT_EQ(app->question_pages().renders(), 2u);
  EXPECT_EQ(app->question_pages().entries(), 2u);
  EXPECT_EQ(get("/q/no-such-question").status, 404);
  EXPECT_EQ(app->question_pages().entries(), 2u);
}

}  // namespace
}  // namespace ridge::web::routes
