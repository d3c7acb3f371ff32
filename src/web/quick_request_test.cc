// The server's quick path (issue 30, item 2): which heads quick_parse takes (only a bodyless
// anonymous GET over HTTP/1.1 that depends on nothing but its target and gzip), and which
// answers the App prepares for it (only those that are the same for every anonymous visitor).
// fuzz/fuzz_quick.cc checks every head it takes against Beast's reading.
#include "web/quick_request.h"

#include <gtest/gtest.h>

#include <string>

#include "web/app.h"
#include "web/test_app.h"

namespace ridge::web {
namespace {

constexpr size_t kLimit = 16 * 1024;

bool takes(const std::string& head) {
  QuickRequest q;
  return quick_parse(head, kLimit, q);
}

TEST(QuickRequest, TakesWhatWrkAndBrowsersSendWithoutACookie) {
  QuickRequest q;
  const std::string wrk = "GET /q/kv-cache-size HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
  const std::string pipelined = wrk + "GET /next";  // a pipelined request after it stays in the buffer
  ASSERT_TRUE(quick_parse(pipelined, kLimit, q));
  EXPECT_EQ(q.target, "/q/kv-cache-size");
  EXPECT_EQ(q.path, "/q/kv-cache-size");
  EXPECT_EQ(q.length, wrk.size());
  EXPECT_FALSE(q.accepts_gzip);
  EXPECT_FALSE(q.close);

  const std::string browser =
      "GET /search?q=kv%20cache&page=2 HTTP/1.1\r\nhost: ridge.dev\r\nUser-Agent: Mozilla/5.0 (X11; Linux)\r\n"
      "Accept: text/html,*/*;q=0.8\r\nAccept-Encoding: gzip, deflate, br\r\nCONNECTION: Close\r\nX-Empty:\r\n\r\n";
  ASSERT_TRUE(quick_parse(browser, kLimit, q));
  EXPECT_EQ(q.target, "/search?q=kv%20cache&page=2");
  EXPECT_EQ(q.path, "/search");
  EXPECT_TRUE(q.accepts_gzip);
  EXPECT_TRUE(q.close);
  EXPECT_EQ(q.length, browser.size());

  const std::string refused = "GET / HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip;q=0\r\nConnection: keep-alive\r\n\r\n";
  ASSERT_TRUE(quick_parse(refused, kLimit, q));
  EXPECT_FALSE(q.accepts_gzip);  // q=0 refuses gzip, as the full path reads it
  EXPECT_FALSE(q.close);
}

TEST(QuickRequest, LeavesEverythingElseToTheFullPath) {
  const std::string host = "Host: a\r\n";
  for (const std::string& head : {
           std::string("HEAD / HTTP/1.1\r\n") + host + "\r\n",
           std::string("POST / HTTP/1.1\r\n") + host + "Content-Length: 0\r\n\r\n",
           std::string("get / HTTP/1.1\r\n") + host + "\r\n",
           std::string("GET / HTTP/1.0\r\n") + host + "\r\n",
           std::string("GET / HTTP/1.1 \r\n") + host + "\r\n",
           std::string("GET  / HTTP/1.1\r\n") + host + "\r\n",
           std::string("GET http://a/ HTTP/1.1\r\n") + host + "\r\n",  // absolute form
           std::string("GET /%2e%2e/etc HTTP/1.1\r\n") + host + "\r\n",  // a path to decode
           std::string("GET /caf\xc3\xa9 HTTP/1.1\r\n") + host + "\r\n",
           std::string("GET / HTTP/1.1\r\n\r\n"),                                   // no Host
           std::string("GET / HTTP/1.1\r\n") + host + host + "\r\n",               // two
           std::string("GET / HTTP/1.1\nHost: a\n\n"),                              // bare LF
           std::string("GET / HTTP/1.1\r\n") + host + " folded\r\n\r\n",           // obs-fold
           std::string("GET / HTTP/1.1\r\n") + host + "Cookie: ridge_session=x\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "cookie: theme=dark\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "If-None-Match: \"abc\"\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "Content-Length: 5\r\n\r\nhello",
           std::string("GET / HTTP/1.1\r\n") + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "Expect: 100-continue\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "Upgrade: websocket\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "Connection: upgrade\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "Connection: close\r\nConnection: close\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "Accept-Encoding: gzip\r\nAccept-Encoding: br\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "Bad Name: x\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + ": x\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "X-Bin: a\x01b\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host + "X-Obs: caf\xc3\xa9\r\n\r\n",
           std::string("GET / HTTP/1.1\r\n") + host,  // incomplete: the full path reads the rest
       }) {
    EXPECT_FALSE(takes(head)) << head;
  }
  // Over the header limit: the full path answers 431.
  QuickRequest q;
  std::string big = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: " + std::string(kLimit, 'x') + "\r\n\r\n";
  EXPECT_FALSE(quick_parse(big, kLimit, q));
  EXPECT_TRUE(quick_parse(big, 2 * kLimit, q));
}

class QuickAnswers : public ::testing::Test {
 protected:
  void SetUp() override { app_ = testing::real_app({}); }
  static Request get(const std::string& target, std::vector<std::pair<std::string, std::string>> headers = {}) {
    Request r;
    r.target = target;
    EXPECT_TRUE(parse_target(target, r));
    for (auto& [k, v] : headers) r.headers.emplace(k, v);
    return r;
  }
  std::unique_ptr<App> app_;
};

TEST_F(QuickAnswers, TheFullPathPreparesOnlyWhatIsTheSameForEveryAnonymousVisitor) {
  // A free question's page, a paid question's locked copy, the calculator index, a kept
  // calculator answer (its second request: the first computes it), a kept search.
  const auto [free_q, paid_q] = testing::free_and_paid(app_->bank());
  ASSERT_NE(free_q, nullptr);
  ASSERT_NE(paid_q, nullptr);
  const std::string calc = "/api/calc/roofline?gpu=h100-sxm&dtype=bf16";
  for (const std::string& target : {"/q/" + free_q->slug, "/q/" + paid_q->slug, std::string("/calc"), calc, calc,
                                    std::string("/search?q=kv+cache"), std::string("/search?q=kv+cache")}) {
    EXPECT_EQ(app_->handle(get(target)).status, 200) << target;
  }
  for (const std::string& target : {"/q/" + free_q->slug, "/q/" + paid_q->slug, std::string("/calc"), calc,
                                    std::string("/search?q=kv+cache")}) {
    auto hit = app_->hot_answer(target);
    ASSERT_NE(hit.answer, nullptr) << target;
    Response full = app_->handle(get(target));
    EXPECT_EQ(std::string(*hit.answer->body), std::string(full.view())) << target;
  }
  // The gzip'd copy goes with the page, for a client that accepts it.
  EXPECT_NE(app_->hot_answer("/q/" + free_q->slug).answer->gzip_body, nullptr);
  // A kept calculator answer carries its request id line, filled per request.
  EXPECT_TRUE(app_->hot_answer(calc).answer->request_id);

  // Not prepared: what a cookie or a condition asked for, a HEAD, a 404, a page made per request.
  const size_t before = app_->hot_answers();
  app_->handle(get("/q/" + free_q->slug + "?from=cookie", {{"cookie", "theme=dark"}}));
  app_->handle(get("/q/" + free_q->slug + "?from=inm", {{"if-none-match", "\"x\""}}));
  Request head = get("/q/" + free_q->slug + "?from=head");
  head.method = "HEAD";
  app_->handle(head);
  app_->handle(get("/q/no-such-question"));
  app_->handle(get("/calc/roofline?gpu=h100-sxm"));  // a calculator page with inputs: rendered per request
  app_->handle(get("/healthz"));
  const std::string long_target = "/q/" + free_q->slug + "?pad=" + std::string(1100, 'x');  // over app_quick.cc's 1,024
  EXPECT_EQ(app_->handle(get(long_target)).status, 200);  // answered, not kept
  EXPECT_EQ(app_->hot_answers(), before);
  EXPECT_EQ(app_->hot_answer("/q/" + free_q->slug + "?from=cookie").answer, nullptr);
  EXPECT_EQ(app_->hot_answer("/calc/roofline?gpu=h100-sxm").answer, nullptr);
}

TEST_F(QuickAnswers, AnEvictedPageIsAMissAndThenPreparedAgain) {
  // A page the bounded cache let go is never served from the quick path's table.
  AppOptions small;
  small.page_cache_bytes = 1;  // every page evicts the one before
  auto app = testing::real_app(small);
  std::vector<const bank::Question*> free;
  for (const auto& q : app->bank().questions) {
    if (q.free) free.push_back(&q);
    if (free.size() == 2) break;
  }
  ASSERT_EQ(free.size(), 2u);
  const std::string first = "/q/" + free[0]->slug, second = "/q/" + free[1]->slug;
  ASSERT_EQ(app->handle(get(first)).status, 200);
  ASSERT_NE(app->hot_answer(first).answer, nullptr);
  ASSERT_EQ(app->handle(get(second)).status, 200);  // evicts the first page
  EXPECT_EQ(app->hot_answer(first).answer, nullptr);
  ASSERT_EQ(app->handle(get(first)).status, 200);
  EXPECT_NE(app->hot_answer(first).answer, nullptr);
}

}  // namespace
}  // namespace ridge::web
