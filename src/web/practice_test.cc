// Accounts and practice through App::handle, on a real SQLite store and a fake clock.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "account/clock.h"
#include "bank/loader.h"
#include "calc/test_catalog.h"
#include "practice/drills.h"
#include "web/app.h"

namespace ridge::web {
namespace {

using nlohmann::json;

class Practice : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("ridge-practice-" + std::to_string(::getpid()) + ".db");
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + s);
    auto opened = store::open_store("sqlite:" + path_.string());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(const_cast<std::unique_ptr<store::Store>&>(opened.value()));
    auto loaded = bank::load_bank(std::string(RIDGE_SOURCE_DIR) + "/content", calc::testing::registry(),
                                  calc::testing::real_catalog(), {false});
    AppOptions options;
    options.store = store_.get();
    options.clock = &clock_;
    app_ = std::make_unique<App>(std::move(loaded.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
                                 Assets(std::string(RIDGE_SOURCE_DIR) + "/web/static"), options);
  }
  void TearDown() override {
    app_.reset();
    store_.reset();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + s);
  }

  struct Client {
    std::string cookie, csrf;
  };

  Response call(const std::string& method, const std::string& target, const std::string& body = "", const Client* c = nullptr,
                bool with_csrf = true, const std::string& remote = "10.0.0.1") {
    Request req;
    req.method = method;
    req.target = target;
    EXPECT_TRUE(parse_target(target, req));
    req.body = body;
    req.remote = remote;
    if (c && !c->cookie.empty()) req.headers["cookie"] = c->cookie;
    if (c && with_csrf && !c->csrf.empty()) req.headers["x-csrf-token"] = c->csrf;
    return app_->handle(req);
  }

  static std::string header(const Response& r, const std::string& name) {
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return "";
  }

  Client signup(const std::string& email) {
    Response r = call("POST", "/api/signup", json{{"email", email}, {"password", "correct horse battery"}}.dump());
    EXPECT_EQ(r.status, 201) << r.body;
    std::string cookie = header(r, "Set-Cookie");
    return {cookie.substr(0, cookie.find(';')), json::parse(r.body)["csrf_token"]};
  }

  std::filesystem::path path_;
  account::FakeClock clock_{1'800'000'000};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<App> app_;
};

TEST_F(Practice, SignupSetsAHardenedCookieAndACsrfToken) {
  Response r = call("POST", "/api/signup", json{{"email", "A@Example.com"}, {"password", "correct horse battery"}}.dump());
  ASSERT_EQ(r.status, 201);
  std::string cookie = header(r, "Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Lax"), std::string::npos);
  EXPECT_EQ(json::parse(r.body)["csrf_token"].get<std::string>().size(), 64u);
  // The stored session is the token's hash, not the token.
  std::string token = cookie.substr(cookie.find('=') + 1, 64);
  EXPECT_FALSE(store_->find_session(token)->has_value());
  // Bad input names the field.
  Response bad = call("POST", "/api/signup", json{{"email", "nope"}, {"password", "correct horse battery"}}.dump());
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["errors"][0]["field"], "email");
  Response weak = call("POST", "/api/signup", json{{"email", "b@example.com"}, {"password", "short"}}.dump());
  EXPECT_EQ(json::parse(weak.body)["errors"][0]["field"], "password");
}

TEST_F(Practice, ReviewsNeedASessionAndAValidCsrfToken) {
  Client a = signup("a@example.com");
  std::string body = json{{"slug", "prefill-vs-decode"}, {"grade", 3}}.dump();
  EXPECT_EQ(call("POST", "/api/reviews", body).status, 401);
  EXPECT_EQ(call("POST", "/api/reviews", body, &a, /*with_csrf=*/false).status, 403);
  Client forged = a;
  forged.csrf = std::string(64, '0');
  EXPECT_EQ(call("POST", "/api/reviews", body, &forged).status, 403);
  Response ok = call("POST", "/api/reviews", body, &a);
  ASSERT_EQ(ok.status, 200) << ok.body;
  json s = json::parse(ok.body);
  // FSRS-6, new card rated Good: stability 2.3065, difficulty 2.1181, due in 2 days.
  EXPECT_NEAR(s["stability"].get<double>(), 2.3065, 1e-4);
  EXPECT_NEAR(s["difficulty"].get<double>(), 2.1181, 1e-4);
  EXPECT_EQ(s["due"].get<int64_t>(), clock_.now() + 2 * 86400);
  // Two days later it is due; Good again gives 10.96 days of stability, due in 11.
  clock_.advance(2 * 86400);
  EXPECT_NE(call("GET", "/api/reviews/due", "", &a).body.find("prefill-vs-decode"), std::string::npos);
  json again = json::parse(call("POST", "/api/reviews", body, &a).body);
  EXPECT_NEAR(again["stability"].get<double>(), 10.9643, 1e-3);
  EXPECT_EQ(again["interval_days"], 11);
  EXPECT_EQ(call("POST", "/api/reviews", json{{"slug", "prefill-vs-decode"}, {"grade", 5}}.dump(), &a).status, 400);
  EXPECT_EQ(call("POST", "/api/reviews", json{{"slug", "no-such-question"}, {"grade", 3}}.dump(), &a).status, 400);
}

TEST_F(Practice, WrongPasswordsAreRateLimitedAndNeverSayWhichIsWrong) {
  signup("c@example.com");
  std::string wrong = json{{"email", "c@example.com"}, {"password", "not the password"}}.dump();
  std::string unknown = json{{"email", "nobody@example.com"}, {"password", "not the password"}}.dump();
  Response r1 = call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2");
  Response r2 = call("POST", "/api/signin", unknown, nullptr, true, "10.0.0.3");
  EXPECT_EQ(r1.status, 401);
  EXPECT_EQ(r1.body, r2.body);  // the same answer for a registered and an unknown email
  for (int i = 0; i < 4; ++i) call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2");
  Response limited = call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.9");  // another address, same account
  EXPECT_EQ(limited.status, 429);
  EXPECT_FALSE(header(limited, "Retry-After").empty());
  // Even the right password waits for the bucket to refill.
  std::string right = json{{"email", "c@example.com"}, {"password", "correct horse battery"}}.dump();
  EXPECT_EQ(call("POST", "/api/signin", right, nullptr, true, "10.0.0.9").status, 429);
  clock_.advance(60);
  EXPECT_EQ(call("POST", "/api/signin", right, nullptr, true, "10.0.0.9").status, 200);
}

TEST_F(Practice, ExpiredSessionsAreRefused) {
  Client a = signup("d@example.com");
  EXPECT_EQ(call("GET", "/api/progress", "", &a).status, 200);
  clock_.advance(31 * 86400);
  EXPECT_EQ(call("GET", "/api/progress", "", &a).status, 401);
}

TEST_F(Practice, OneUserCannotReadOrChangeAnothers) {
  Client a = signup("e@example.com"), b = signup("f@example.com");
  ASSERT_EQ(call("PUT", "/api/notes/prefill-vs-decode", json{{"body", "A's secret"}}.dump(), &a).status, 200);
  ASSERT_EQ(call("POST", "/api/bookmarks", json{{"slug", "prefill-vs-decode"}, {"on", true}}.dump(), &a).status, 200);
  ASSERT_EQ(call("POST", "/api/reviews", json{{"slug", "prefill-vs-decode"}, {"grade", 1}}.dump(), &a).status, 200);
  // B reads the same note URL and gets B's own (empty) note; A's stays.
  EXPECT_EQ(json::parse(call("GET", "/api/notes/prefill-vs-decode", "", &b).body)["body"], "");
  // B's token cannot write as A: a state change with A's cookie and B's CSRF token is refused.
  Client mixed{a.cookie, b.csrf};
  EXPECT_EQ(call("PUT", "/api/notes/prefill-vs-decode", json{{"body", "overwritten"}}.dump(), &mixed).status, 403);
  EXPECT_EQ(json::parse(call("GET", "/api/notes/prefill-vs-decode", "", &a).body)["body"], "A's secret");
  clock_.advance(86400);
  EXPECT_EQ(call("GET", "/api/reviews/due", "", &b).body.find("prefill-vs-decode"), std::string::npos);
  EXPECT_NE(call("GET", "/api/reviews/due", "", &a).body.find("prefill-vs-decode"), std::string::npos);
  EXPECT_EQ(json::parse(call("GET", "/api/progress", "", &b).body)["topics"]["inference-serving"]["seen"], 0);
  EXPECT_EQ(json::parse(call("GET", "/api/progress", "", &a).body)["topics"]["inference-serving"]["seen"], 1);
}

TEST_F(Practice, PaidQuestionsNeedAnAccount) {
  const bank::Question* paid = nullptr;
  for (const auto& q : app_->bank().questions) {
    if (!q.free) {
      paid = &q;
      break;
    }
  }
  ASSERT_NE(paid, nullptr);
  EXPECT_NE(call("GET", "/q/" + paid->slug).view().find("id=\"locked\""), std::string::npos);
  EXPECT_EQ(call("GET", "/api/questions/" + paid->slug).status, 401);
  Client a = signup("g@example.com");
  EXPECT_NE(call("GET", "/q/" + paid->slug, "", &a).view().find("Reveal the answer"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/questions/" + paid->slug, "", &a).status, 200);
}

TEST_F(Practice, SignoutAndAccountDeletion) {
  Client a = signup("h@example.com");
  EXPECT_EQ(call("POST", "/api/signout", "", &a, false).status, 403);
  EXPECT_EQ(call("POST", "/api/signout", "", &a).status, 200);
  EXPECT_EQ(call("GET", "/api/progress", "", &a).status, 401);
  Client b = signup("i@example.com");
  call("POST", "/api/reviews", json{{"slug", "prefill-vs-decode"}, {"grade", 3}}.dump(), &b);
  Response del = call("POST", "/settings", "action=delete&current=correct+horse+battery&csrf=" + b.csrf, &b, false);
  EXPECT_EQ(del.status, 303);
  EXPECT_FALSE(store_->find_user_by_email("i@example.com")->has_value());
}

TEST_F(Practice, DrillsForVisitorsAndUsers) {
  // The engine's own answer to drill 3, written as a plain number in base units.
  auto drill = practice::make_drill(3, "", calc::testing::registry(), calc::testing::real_catalog());
  ASSERT_TRUE(drill.has_value());
  std::string answer = calc::format_significant(drill->expected, 8, true);
  Response visitor = call("GET", "/drill?seed=3&answer=" + url_encode(answer));
  EXPECT_NE(visitor.view().find("drill-verdict"), std::string::npos);
  EXPECT_NE(visitor.view().find("Create an account"), std::string::npos);
  Client a = signup("j@example.com");
  Response user = call("POST", "/drill", "seed=3&answer=" + url_encode(answer) + "&csrf=" + a.csrf, &a, false);
  EXPECT_NE(user.view().find("<strong>Correct</strong>"), std::string::npos);
  int64_t id = (*store_->find_user_by_email("j@example.com"))->id;
  ASSERT_EQ(store_->drills(id)->size(), 1u);
  EXPECT_TRUE((*store_->drills(id))[0].correct);
  EXPECT_EQ(call("POST", "/drill", "seed=3&answer=1", &a, false).status, 403);  // no CSRF token
}

TEST_F(Practice, ReadinessCheckCannotBeForged) {
  Client a = signup("k@example.com");
  Response start = call("POST", "/readiness", "action=start&track=serving&csrf=" + a.csrf, &a, false);
  ASSERT_EQ(start.status, 200);
  std::string page(start.view());
  size_t p = page.find("name=\"payload\" value=\"");
  ASSERT_NE(p, std::string::npos);
  Response forged = call("POST", "/readiness", "action=finish&payload=serving|1|&mac=00&csrf=" + a.csrf, &a, false);
  EXPECT_EQ(forged.status, 400);
}

}  // namespace
}  // namespace ridge::web
