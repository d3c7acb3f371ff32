// /metrics through App::handle: the Prometheus text, who may read it, and the store series.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "web/app_test_util.h"
#include "web/metered_store.h"
#include "web/test_app.h"

namespace ridge::web {
namespace {

using namespace app_testing;

// Issue 22: /metrics in the Prometheus text format; a counter moves with a request.
TEST(Metrics, ScrapeShowsRequestsByRoutePatternAndMoves) {
  auto count_for = [](const std::string& text, const std::string& series) {
    size_t at = text.find(series);
    return at == std::string::npos ? 0.0 : std::stod(text.substr(at + series.size()));
  };
  Request scrape;
  scrape.target = scrape.path = "/metrics";
  scrape.remote = "127.0.0.1";
  std::string before = app().handle(scrape).body;
  get("/q/prefill-vs-decode");
  get("/q/no-such-question-at-all");
  Response r = app().handle(scrape);
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.content_type.find("version=0.0.4"), std::string::npos);
  std::string ok = "ridge_http_requests_total{route=\"/q/{slug}\",status=\"200\"} ";
  EXPECT_EQ(count_for(r.body, ok), count_for(before, ok) + 1);
  EXPECT_NE(r.body.find("status=\"404\""), std::string::npos);
  EXPECT_EQ(r.body.find("no-such-question"), std::string::npos);  // the route pattern, never the raw path
  EXPECT_NE(r.body.find("ridge_http_request_duration_seconds_bucket"), std::string::npos);
  EXPECT_NE(r.body.find("ridge_worker_queue_depth"), std::string::npos);
  // Not for the public internet.
  scrape.remote = "203.0.113.9";
  EXPECT_EQ(app().handle(scrape).status, 404);
}

// Issue 28: /metrics checked the socket peer, so through a trusted proxy anyone read it. The
// resolved client decides: a public address behind the proxy gets 404, a private one 200.
TEST(Metrics, Finding28_BehindATrustedProxyTheResolvedClientDecides) {
  AppOptions options;
  options.trusted_proxies = {"127.0.0.1/32"};
  auto proxied = testing::real_app(options);
  auto scrape = [&](const std::string& forwarded_for) {
    Request req;
    req.target = req.path = "/metrics";
    req.remote = "127.0.0.1";
    if (!forwarded_for.empty()) req.headers["x-forwarded-for"] = forwarded_for;
    return proxied->handle(req).status;
  };
  EXPECT_EQ(scrape("8.8.8.8"), 404);
  EXPECT_EQ(scrape("2001:4860::8888"), 404);
  EXPECT_EQ(scrape("10.1.2.3"), 200);
  EXPECT_EQ(scrape(""), 200) << "the proxy itself, scraping";
  EXPECT_EQ(scrape("8.8.8.8, 10.1.2.3"), 200) << "the hop before the trusted proxy is a private address";
}

// Issue 33: every store series exists at zero from start-up (a scrape before the first store
// call used to lack ridge_store_call_duration_seconds, and the scale-out test failed on a
// fresh machine when it scraped first).
TEST(Metrics, Finding33_StoreSeriesRegisteredBeforeTheFirstCall) {
  auto path = testing::fresh_database("metrics-series");
  auto opened = store::open_store("sqlite:" + path.string());
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<store::Store> inner = std::move(opened).value();
  MeteredStore metered(*inner);
  Metrics metrics;
  metered.observe(metrics);
  std::string text = metrics.text();
  for (const char* operation : kStoreOpNames) {
    for (const char* outcome : {"ok", "error"}) {
      std::string series = std::string("ridge_store_call_duration_seconds_count{operation=\"") + operation +
                           "\",outcome=\"" + outcome + "\"} 0";
      EXPECT_NE(text.find(series), std::string::npos) << series;
    }
  }
  // A call moves its own series and no other.
  ASSERT_TRUE(metered.find_user_by_email("nobody@example.com").ok());
  text = metrics.text();
  EXPECT_NE(text.find("ridge_store_call_duration_seconds_count{operation=\"find_user_by_email\",outcome=\"ok\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("ridge_store_call_duration_seconds_count{operation=\"take_token\",outcome=\"ok\"} 0"),
            std::string::npos);
  inner.reset();
  testing::remove_database(path);
}

}  // namespace
}  // namespace ridge::web
