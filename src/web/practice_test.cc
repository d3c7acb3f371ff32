// Accounts and practice through App::handle, on a real SQLite store and a fake clock.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sodium.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "account/clock.h"
#include "account/security.h"
#include "bank/loader.h"
#include "billing/billing.h"
#include "calc/derivation.h"
#include "calc/test_catalog.h"
#include "practice/drills.h"
#include "web/app.h"
#include "web/pages.h"
#include "web/test_app.h"

namespace ridge::web {
namespace {

using nlohmann::json;

constexpr const char* kWebhookSecret = "whsec_unit_test_secret";

class Practice : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::fresh_database("practice");
    auto opened = store::open_store("sqlite:" + path_.string());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(opened).value();
    AppOptions options;
    options.store = store_.get();
    options.clock = &clock_;
    options.billing.webhook_secret = kWebhookSecret;
    options.billing.stripe_secret_key = "sk_test_unused";
    mail_config_.base_url = "https://ridge.test";
    options.mail = &mail_config_;
    options.signer = &signer_;
    app_ = testing::real_app(options);
  }
  void TearDown() override {
    app_.reset();
    store_.reset();
    testing::remove_database(path_);
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

  // A header as the server would send it: from the prepared block of a cached page when the
  // response has one (the server then writes only that block), else from `headers`.
  static std::string header(const Response& r, const std::string& name) {
    if (r.prebuilt_headers != nullptr) {
      const std::string& block = *r.prebuilt_headers;
      const std::string key = name + ": ";
      for (size_t at = 0; at < block.size();) {
        size_t end = block.find("\r\n", at);
        if (end == std::string::npos) end = block.size();
        if (block.compare(at, key.size(), key) == 0) return block.substr(at + key.size(), end - at - key.size());
        at = end + 2;
      }
      return "";
    }
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

  // The decoded text parts of every queued message to `to` (and marks them sent, so each is read once).
  std::string queued_text(const std::string& to) {
    std::string out;
    auto batch = store_->claim_mail(clock_.now(), 60, 100);
    for (const auto& m : *batch) {
      EXPECT_TRUE(store_->mail_sent(m.id, clock_.now()).ok());
      if (m.recipient != to) continue;
      const std::string marker = "Content-Transfer-Encoding: base64\r\n\r\n";
      for (size_t at = m.message.find(marker); at != std::string::npos; at = m.message.find(marker, at + 1)) {
        size_t start = at + marker.size(), end = m.message.find("\r\n\r\n", start);
        end = std::min(end, m.message.find("--", start));
        std::string b64 = m.message.substr(start, end == std::string::npos ? std::string::npos : end - start);
        std::string bin(b64.size(), '\0');
        size_t len = 0;
        sodium_base642bin(reinterpret_cast<unsigned char*>(bin.data()), bin.size(), b64.data(), b64.size(), "\r\n", &len, nullptr,
                          sodium_base64_VARIANT_ORIGINAL);
        out += bin.substr(0, len);
      }
    }
    return out;
  }
  static std::string link(const std::string& text, const std::string& path) {
    size_t at = text.find("https://ridge.test" + path + "?");
    if (at == std::string::npos) return "";
    size_t end = text.find_first_of(" \n\"<", at);
    return text.substr(at + std::string("https://ridge.test").size(), end - at - std::string("https://ridge.test").size());
  }
  // A form with its pre-session token: GET, then POST with the cookie.
  Response post_with_pre(const std::string& path, const std::string& fields) {
    Response page = call("GET", path);
    std::string cookie = header(page, "Set-Cookie");
    cookie = cookie.substr(0, cookie.find(';'));
    std::string pre = cookie.substr(cookie.find('=') + 1);
    Client c{cookie, ""};
    return call("POST", path, "pre=" + pre + "&" + fields, &c);
  }

  mail::MailConfig mail_config_;
  mail::LinkSigner signer_{"unit test secret"};
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
  // A new card graded Good takes its 10-minute learning step (Anki's default), not 2 days.
  EXPECT_EQ(s["due"].get<int64_t>(), clock_.now() + 600);
  EXPECT_EQ(s["due_in_seconds"], 600);
  EXPECT_EQ(call("GET", "/api/reviews/due", "", &a).body.find("prefill-vs-decode"), std::string::npos);
  clock_.advance(600);
  EXPECT_NE(call("GET", "/api/reviews/due", "", &a).body.find("prefill-vs-decode"), std::string::npos);
  // Good on the step graduates it: FSRS gives the interval, in whole days.
  json graduated = json::parse(call("POST", "/api/reviews", body, &a).body);
  EXPECT_GE(graduated["due_in_seconds"].get<int64_t>(), 86400);
  EXPECT_EQ(graduated["due_in_seconds"].get<int64_t>() % 86400, 0);
  // Due again later: Good on a review card keeps it out of learning and grows the interval.
  clock_.advance(graduated["due_in_seconds"].get<int64_t>());
  json again = json::parse(call("POST", "/api/reviews", body, &a).body);
  EXPECT_GT(again["due_in_seconds"].get<int64_t>(), graduated["due_in_seconds"].get<int64_t>());
  // Again on a review card relearns in 10 minutes.
  clock_.advance(again["due_in_seconds"].get<int64_t>());
  json lapse = json::parse(call("POST", "/api/reviews", json{{"slug", "prefill-vs-decode"}, {"grade", 1}}.dump(), &a).body);
  EXPECT_EQ(lapse["due_in_seconds"], 600);
  // Measured retention: three passes and one Again.
  json progress = json::parse(call("GET", "/api/progress", "", &a).body);
  EXPECT_DOUBLE_EQ(progress["topics"]["inference-serving"]["retention"].get<double>(), 0.75);
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
  // A guesser at one address gets five failures on this account, then waits.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2").status, 401);
  Response limited = call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2");
  EXPECT_EQ(limited.status, 429);
  EXPECT_FALSE(header(limited, "Retry-After").empty());
  clock_.advance(60);
  EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2").status, 401);  // one more a minute
}

// Finding 6: five wrong passwords from five addresses locked the owner out; six correct
// sign-ins in a row hit 429.
TEST_F(Practice, Finding06_OthersFailuresNeverLockTheOwnerOut) {
  signup("owner@example.com");
  std::string wrong = json{{"email", "owner@example.com"}, {"password", "not the password"}}.dump();
  std::string right = json{{"email", "owner@example.com"}, {"password", "correct horse battery"}}.dump();
  for (int i = 0; i < 10; ++i) call("POST", "/api/signin", wrong, nullptr, true, "10.1.0." + std::to_string(i));
  EXPECT_EQ(call("POST", "/api/signin", right, nullptr, true, "10.0.0.50").status, 200);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(call("POST", "/api/signin", right, nullptr, true, "10.0.0.50").status, 200) << i;
}

// Finding 4: 32 users signing in from one address (a proxy, an office): 22 got 429.
TEST_F(Practice, Finding04_ManyUsersBehindOneAddressAllSignIn) {
  for (int i = 0; i < 32; ++i) {
    Response r = call("POST", "/api/signup", json{{"email", "user" + std::to_string(i) + "@example.com"},
                                                  {"password", "correct horse battery"}}.dump(), nullptr, true,
                      "10.2.0." + std::to_string(i));
    ASSERT_EQ(r.status, 201);
  }
  // Ten junk attempts from the shared address first.
  std::string junk = json{{"email", "nobody@example.com"}, {"password", "guess guess guess"}}.dump();
  for (int i = 0; i < 10; ++i) call("POST", "/api/signin", junk, nullptr, true, "192.0.2.1");
  for (int i = 0; i < 32; ++i) {
    std::string body = json{{"email", "user" + std::to_string(i) + "@example.com"}, {"password", "correct horse battery"}}.dump();
    EXPECT_EQ(call("POST", "/api/signin", body, nullptr, true, "192.0.2.1").status, 200) << i;
  }
}

// Finding 2: next= injected a Set-Cookie and redirected off-site; the sign-in form had no CSRF token.
TEST_F(Practice, Finding02_NextIsALocalPathAndTheFormNeedsItsToken) {
  signup("n@example.com");
  Response form = call("GET", "/signin?next=/x%0d%0aSet-Cookie:%20ridge_session=attacker");
  ASSERT_EQ(form.status, 200);
  std::string pre_cookie = header(form, "Set-Cookie");
  ASSERT_EQ(pre_cookie.rfind("ridge_pre=", 0), 0u) << pre_cookie;
  std::string pre = pre_cookie.substr(10, 64);
  EXPECT_EQ(form.body.find("attacker"), std::string::npos);  // the bad next is not kept in the form
  EXPECT_NE(form.body.find("name=\"pre\" value=\"" + pre + "\""), std::string::npos);
  EXPECT_NE(header(form, "Cache-Control").find("no-store"), std::string::npos);

  auto post = [&](const std::string& target, const std::string& body, const std::string& cookie) {
    Request req;
    req.method = "POST";
    req.target = target;
    EXPECT_TRUE(parse_target(target, req));
    req.body = body;
    req.remote = "10.0.0.1";
    if (!cookie.empty()) req.headers["cookie"] = cookie;
    return app_->handle(req);
  };
  std::string creds = "email=n%40example.com&password=correct+horse+battery";
  // Without the pre-session token (a cross-site form): refused, nobody signed in.
  Response csrf = post("/signin", creds, "");
  EXPECT_EQ(csrf.status, 403);
  EXPECT_EQ(header(csrf, "Location"), "");
  for (const char* bad : {"/x%0d%0aSet-Cookie:%20ridge_session=attacker;%20Path=/", "/%5Cevil.com", "/%09/evil",
                          "//evil.com", "https://evil.com", "/ok%00"}) {
    Response r = post(std::string("/signin?next=") + bad, creds + "&pre=" + pre, "ridge_pre=" + pre);
    ASSERT_EQ(r.status, 303) << bad << " " << r.body;
    EXPECT_EQ(header(r, "Location"), "/dashboard") << bad;
    int cookies = 0;
    for (const auto& [k, v] : r.headers) {
      if (k == "Set-Cookie" && v.find("attacker") != std::string::npos) ADD_FAILURE() << "injected cookie for " << bad;
      cookies += k == "Set-Cookie";
    }
    EXPECT_EQ(cookies, 2);  // the session, and the cleared pre-session token
  }
  Response ok = post("/signin?next=/review%3Ftopic%3Dkernels", creds + "&pre=" + pre, "ridge_pre=" + pre);
  EXPECT_EQ(header(ok, "Location"), "/review?topic=kernels");
}

TEST(SafeNext, OnlyLocalPathsPass) {
  EXPECT_EQ(safe_next("/q/kv-cache"), "/q/kv-cache");
  EXPECT_EQ(safe_next("/search?q=a&page=2"), "/search?q=a&page=2");
  for (const char* bad : {"", "x", "//evil", "/\\evil", "/\t/evil", "/a\r\nSet-Cookie: x", "/a b", "http://evil"}) {
    EXPECT_EQ(safe_next(bad), "/dashboard") << bad;
  }
  EXPECT_FALSE(valid_header_value("a\r\nb"));
  EXPECT_TRUE(valid_header_value("private, no-store"));
}

// Finding 3: a paid answer went out "public, max-age=300" without Vary: Cookie.
TEST_F(Practice, Finding03_SessionPagesAreNeverPubliclyCacheable) {
  Client a = signup("p@example.com");
  const bank::Question* paid = nullptr;
  const bank::Question* open = nullptr;
  for (const auto& q : app_->bank().questions) {
    if (!q.free && !paid) paid = &q;
    if (q.free && !open) open = &q;
  }
  ASSERT_TRUE(paid && open);
  ASSERT_TRUE(store_->grant((*store_->find_user_by_email("p@example.com"))->id, 6, clock_.now()).ok());
  Response r = call("GET", "/q/" + paid->slug, "", &a);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.prebuilt_headers, nullptr);
  EXPECT_EQ(header(r, "Cache-Control"), "private, no-store");
  EXPECT_EQ(header(r, "Vary"), "Cookie");
  int cache_controls = 0;
  for (const auto& [k, v] : r.headers) cache_controls += k == "Cache-Control";
  EXPECT_EQ(cache_controls, 1);
  EXPECT_EQ(header(r, "Content-Security-Policy").empty(), false);  // the cached page's other headers survive
  Response anonymous = call("GET", "/q/" + paid->slug);
  EXPECT_EQ(header(anonymous, "Cache-Control"), "private, no-store");
  EXPECT_EQ(header(anonymous, "Vary"), "Cookie");
  EXPECT_EQ(header(anonymous, "ETag"), "");  // a personal answer has no validator a shared cache could reuse
  EXPECT_EQ(header(anonymous, "Content-Length"), std::to_string(anonymous.view().size()));
  ASSERT_NE(anonymous.prebuilt_headers, nullptr);  // the prepared personal block: no per-request copy
  EXPECT_EQ(anonymous.prebuilt_headers->find("public"), std::string::npos);
  // A free page for a visitor with a session is private too; anonymous it stays public.
  EXPECT_EQ(header(call("GET", "/q/" + open->slug, "", &a), "Cache-Control"), "private, no-store");
  Response pub = call("GET", "/q/" + open->slug);
  ASSERT_NE(pub.prebuilt_headers, nullptr);
  EXPECT_NE(pub.prebuilt_headers->find("public"), std::string::npos);
}

// Finding 7: search snippets and /api/questions quoted paid answers.
TEST_F(Practice, Finding07_PaidTextNeverReachesAnonymousReaders) {
  Response list = call("GET", "/api/questions");
  ASSERT_EQ(list.status, 200);
  json j = json::parse(list.body);
  int paid = 0;
  for (const auto& q : j["questions"]) {
    if (!q["free"].get<bool>()) {
      ++paid;
      EXPECT_FALSE(q.contains("tldr")) << q["slug"];
    }
  }
  EXPECT_GT(paid, 0);
  // A word that only a paid answer's body holds finds nothing through search.
  auto lower = [](std::string t) {
    for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  std::string open_text;
  for (const auto& q : app_->bank().questions) {
    open_text += lower(q.title + " " + q.summary + " ");
    if (q.free) open_text += lower(q.tldr + " " + q.plain_text + " ");
  }
  for (const auto& [id, c] : app_->bank().concepts) open_text += lower(c.title + " ");
  std::string secret, paid_slug;
  for (const auto& q : app_->bank().questions) {
    if (q.free) continue;
    std::string word;
    for (char ch : lower(q.plain_text) + " ") {
      if (std::isalpha(static_cast<unsigned char>(ch))) {
        word += ch;
        continue;
      }
      if (word.size() >= 9 && open_text.find(word.substr(0, word.size() - 2)) == std::string::npos) {
        secret = word;
        paid_slug = q.slug;
        break;
      }
      word.clear();
    }
    if (!secret.empty()) break;
  }
  ASSERT_FALSE(secret.empty());
  Response s = call("GET", "/search?q=" + secret);
  EXPECT_EQ(std::string(s.view()).find("/q/" + paid_slug), std::string::npos) << secret << " found " << paid_slug;
}

// Issue 22: the calculator API and search answer from a cache shared by everyone; what a
// signed-in visitor is sent is marked private, and nothing of theirs reaches the next visitor.
TEST_F(Practice, CachedAnswersCarryNothingPersonal) {
  Client a = signup("cache-owner@example.com");
  for (std::string target : {"/search?q=kv+cache", "/api/calc/fit?model=llama-3.1-8b&gpu=h100-sxm&context=4096"}) {
    Response mine = call("GET", target, "", &a);
    ASSERT_EQ(mine.status, 200) << target;
    EXPECT_EQ(header(mine, "Cache-Control"), "private, no-store") << target;
    EXPECT_EQ(header(mine, "Vary"), "Cookie") << target;
    std::string mine_body(mine.view());
    EXPECT_EQ(mine_body.find("cache-owner"), std::string::npos) << target;
    Response theirs = call("GET", target, "", nullptr, true, "10.0.0.2");
    ASSERT_EQ(theirs.status, 200) << target;
    EXPECT_EQ(std::string(theirs.view()), mine_body) << target;
    EXPECT_EQ(std::string(theirs.view()).find("cache-owner"), std::string::npos) << target;
    EXPECT_EQ(std::string(theirs.view()).find(a.csrf), std::string::npos) << target;
    EXPECT_NE(header(theirs, "Cache-Control"), "private, no-store") << target;
    EXPECT_EQ(header(theirs, "Set-Cookie"), "") << target;
  }
}

// Issue 19: a course shows a signed-in user's progress and where to resume.
TEST_F(Practice, ACourseResumesWhereTheUserLeftIt) {
  auto it = app_->bank().courses.find("kernels");
  ASSERT_NE(it, app_->bank().courses.end());
  const bank::Course& course = it->second;
  ASSERT_GE(course.modules.size(), 2u);
  Response anonymous = call("GET", "/courses/kernels");
  EXPECT_EQ(anonymous.status, 200);
  EXPECT_EQ(anonymous.body.find("id=\"resume\""), std::string::npos);
  Client a = signup("course@example.com");
  Response fresh = call("GET", "/courses/kernels", "", &a);
  EXPECT_NE(fresh.body.find("Resume at " + calc::html_escape(course.modules[0].title)), std::string::npos);
  EXPECT_EQ(header(fresh, "Cache-Control"), "private, no-store");
  // Review every question of the first module as Easy: the course resumes at the second.
  for (const auto& slug : course.modules[0].questions) {
    ASSERT_EQ(call("POST", "/api/reviews", json{{"slug", slug}, {"grade", 4}}.dump(), &a).status, 200) << slug;
  }
  Response after = call("GET", "/courses/kernels", "", &a);
  EXPECT_NE(after.body.find("1 of " + std::to_string(course.modules.size()) + " modules done"), std::string::npos);
  EXPECT_NE(after.body.find("Resume at " + calc::html_escape(course.modules[1].title)), std::string::npos);
  EXPECT_EQ(call("GET", "/courses/nope").status, 404);
}

// Finding 12: a store failure was shown as "sign in to save reviews" (401) or raw driver text.
TEST_F(Practice, Finding12_AStoreFailureIs503WithARetryHint) {
  Client a = signup("down@example.com");
  // A real failure of the real store: its sessions table vanishes under it.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "DROP TABLE sessions", nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(other);
  sqlite3_close(other);
  Response review = call("POST", "/api/reviews", json{{"slug", "prefill-vs-decode"}, {"grade", 3}}.dump(), &a);
  EXPECT_EQ(review.status, 503) << review.body;
  EXPECT_EQ(header(review, "Retry-After"), "5");
  EXPECT_EQ(review.body.find("no such table"), std::string::npos);  // no driver text for the user
  EXPECT_EQ(call("GET", "/dashboard", "", &a).status, 503);
}

// Finding 14: a readiness check started by one user could be finished by another, and more
// than once.
TEST_F(Practice, Finding14_AReadinessCheckIsBoundToItsUserAndUsedOnce) {
  Client a = signup("ready-a@example.com"), b = signup("ready-b@example.com");
  auto post_form = [&](const Client& c, const std::string& body) {
    return call("POST", "/readiness", body + "&csrf=" + c.csrf, &c, /*with_csrf=*/false);
  };
  Response started = post_form(a, "action=start&track=serving");
  ASSERT_EQ(started.status, 200) << started.body.substr(0, 300);
  auto hidden = [&](const std::string& name) {
    size_t at = started.body.find("name=\"" + name + "\" value=\"");
    EXPECT_NE(at, std::string::npos) << name;
    size_t from = at + name.size() + 15;
    std::string v = started.body.substr(from, started.body.find('"', from) - from);
    for (size_t p; (p = v.find("&#124;")) != std::string::npos;) v.replace(p, 6, "|");
    return v;
  };
  std::string payload = hidden("payload"), mac = hidden("mac");
  // The drill seeds are not in the page: nothing to look up on /drill.
  EXPECT_EQ(payload.find("d:1"), std::string::npos);
  std::string finish = "action=finish&payload=" + url_encode(payload) + "&mac=" + mac + "&a1=1";
  EXPECT_EQ(post_form(b, finish).status, 403);  // another account
  Response done = post_form(a, finish);
  EXPECT_EQ(done.status, 200) << done.body.substr(0, 300);
  EXPECT_NE(done.body.find("readiness-score"), std::string::npos);
  EXPECT_NE(done.body.find("The worked chain"), std::string::npos);  // per-answer feedback
  EXPECT_EQ(post_form(a, finish).status, 409);  // the same check again
  EXPECT_EQ(store_->readiness_history(store_->find_user_by_email("ready-a@example.com")->value().id)->size(), 1u);
}

// Finding 13: weak passwords and malformed addresses were accepted.
TEST(AccountRules, Finding13_PasswordsAndEmails) {
  EXPECT_FALSE(account::check_password(std::string(10, ' ')).empty());
  EXPECT_FALSE(account::check_password(std::string(10, '\0')).empty());
  EXPECT_FALSE(account::check_password("1234567890").empty());
  EXPECT_FALSE(account::check_password("aaaaaaaaaaaa").empty());
  EXPECT_FALSE(account::check_password("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9x").empty());  // 6 characters, 11 bytes
  EXPECT_TRUE(account::check_password("correct horse battery").empty());
  EXPECT_TRUE(account::check_password("\xC3\xA9t\xC3\xA9 \xC3\xA0 Paris 2026").empty());
  for (const char* bad : {"a@b.", "x@y@z.com", "a@b", "@b.com", "a b@c.com", "a@-b.com", "a@b..com"}) {
    EXPECT_FALSE(account::check_email(bad).empty()) << bad;
  }
  for (const char* good : {"a@b.co", "first.last+tag@sub.example.org"}) EXPECT_TRUE(account::check_email(good).empty()) << good;
}

TEST_F(Practice, Finding13_SignupDoesNotRevealARegisteredAddress) {
  signup("taken@example.com");
  Response again = call("POST", "/api/signup", json{{"email", "taken@example.com"}, {"password", "another long pass"}}.dump());
  EXPECT_EQ(again.status, 201);
  EXPECT_TRUE(json::parse(again.body).contains("csrf_token"));
}

// Finding 15: 16 KB of unknown parameters produced a 705 KB error; 201 read "Unknown".
TEST_F(Practice, Finding15_ShortErrorsAndTrueReasons) {
  std::string target = "/api/calc/roofline?gpu=h100-sxm";
  for (int i = 0; target.size() < 16000; ++i) target += "&junk" + std::to_string(i) + "=" + std::string(40, 'x');
  Response r = call("GET", target);
  EXPECT_EQ(r.status, 400);
  EXPECT_LT(r.body.size(), 8000u) << r.body.size();
  EXPECT_EQ(status_reason(201), "Created");
  EXPECT_EQ(status_reason(402), "Payment Required");
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
  // Signed in without access: 402 naming the price; the page shows the TL;DR and the price.
  Response denied = call("GET", "/api/questions/" + paid->slug, "", &a);
  EXPECT_EQ(denied.status, 402);
  EXPECT_EQ(json::parse(denied.body)["price"]["display"], "USD 25.00");
  EXPECT_EQ(header(denied, "Cache-Control"), "private, no-store");
  Response wall = call("GET", "/q/" + paid->slug, "", &a);
  EXPECT_EQ(wall.status, 402);
  std::string wall_page(wall.view());
  EXPECT_NE(wall_page.find("id=\"paywall\""), std::string::npos);
  EXPECT_NE(wall_page.find(calc::html_escape(paid->tldr)), std::string::npos);
  EXPECT_NE(wall_page.find("USD 25.00"), std::string::npos);
  EXPECT_EQ(wall_page.find("Reveal the answer"), std::string::npos);
  ASSERT_TRUE(store_->grant((*store_->find_user_by_email("g@example.com"))->id, 6, clock_.now()).ok());
  EXPECT_NE(call("GET", "/q/" + paid->slug, "", &a).view().find("Reveal the answer"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/questions/" + paid->slug, "", &a).status, 200);
  // Revoked, the answer is closed again.
  ASSERT_TRUE(store_->revoke((*store_->find_user_by_email("g@example.com"))->id).ok());
  EXPECT_EQ(call("GET", "/api/questions/" + paid->slug, "", &a).status, 402);
}

TEST_F(Practice, MeShowsTheAccountIdAndTheEndOfAccess) {
  Client a = signup("me@example.com");
  json me = json::parse(call("GET", "/api/me", "", &a).body);
  auto user = *store_->find_user_by_email("me@example.com");
  EXPECT_EQ(me["account_id"], user->account_id);
  EXPECT_NE(me["account_id"], std::to_string(user->id));
  EXPECT_TRUE(me["access_until"].is_null());
  int64_t until = *store_->grant(user->id, 6, clock_.now());
  me = json::parse(call("GET", "/api/me", "", &a).body);
  EXPECT_EQ(me["access_until"], billing::rfc3339(until));
  EXPECT_EQ(me["access_until"].get<std::string>().back(), 'Z');
  EXPECT_NE(std::string(call("GET", "/settings", "", &a).view()).find(billing::rfc3339(until)), std::string::npos);
  EXPECT_NE(std::string(call("GET", "/pricing").view()).find("USD 25.00"), std::string::npos);
}

TEST_F(Practice, WebhookGrantsOncePerEventAndRefusesBadSignatures) {
  signup("pay@example.com");
  auto user = *store_->find_user_by_email("pay@example.com");
  auto event = [&](const std::string& id) {
    return json{{"id", id}, {"type", "checkout.session.completed"},
                {"data", {{"object", {{"client_reference_id", user->account_id}, {"payment_status", "paid"}, {"mode", "payment"},
                                     {"currency", "usd"}, {"amount_total", 2500}, {"payment_intent", "pi_" + id}}}}}}.dump();
  };
  auto post = [&](const std::string& body, const std::string& signature) {
    Request req;
    req.method = "POST";
    req.target = req.path = "/billing/webhook";
    req.body = body;
    req.headers["stripe-signature"] = signature;
    return app_->handle(req);
  };
  std::string good = event("evt_a");
  EXPECT_EQ(post(good, billing::stripe_signature_header(good, kWebhookSecret, clock_.now())).status, 200);
  int64_t after_one = *store_->access_until(user->id);
  EXPECT_EQ(after_one, store::add_months_utc(clock_.now(), 6));
  EXPECT_EQ(post(good, billing::stripe_signature_header(good, kWebhookSecret, clock_.now())).status, 200);  // replay
  EXPECT_EQ(*store_->access_until(user->id), after_one);
  std::string second = event("evt_b");
  EXPECT_EQ(post(second, billing::stripe_signature_header(second, kWebhookSecret, clock_.now())).status, 200);
  EXPECT_EQ(*store_->access_until(user->id), store::add_months_utc(after_one, 6));
  int64_t before = *store_->access_until(user->id);
  std::string third = event("evt_c");
  EXPECT_EQ(post(third, billing::stripe_signature_header(third, "whsec_wrong", clock_.now())).status, 400);
  EXPECT_EQ(post(third, billing::stripe_signature_header(third, kWebhookSecret, clock_.now() - 301)).status, 400);
  std::string tampered = third;
  tampered.replace(tampered.find("evt_c"), 5, "evt_d");
  EXPECT_EQ(post(tampered, billing::stripe_signature_header(third, kWebhookSecret, clock_.now())).status, 400);
  EXPECT_EQ(post(third, "").status, 400);
  EXPECT_EQ(post(third, "t=abc,v1=00").status, 400);
  EXPECT_EQ(*store_->access_until(user->id), before);
  // Several v1 values (a secret rotation): any one matching is enough.
  std::string header_value = billing::stripe_signature_header(third, kWebhookSecret, clock_.now());
  std::string rotated = "t=" + std::to_string(clock_.now()) + ",v1=" + std::string(64, '0') + "," + header_value.substr(header_value.find("v1="));
  EXPECT_EQ(post(third, rotated).status, 200);
  EXPECT_GT(*store_->access_until(user->id), before);
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

namespace ridge::web {
namespace {

TEST_F(Practice, ResetLinksWorkOnceForThirtyMinutes) {
  Client a = signup("reset-unit@example.com");
  queued_text("reset-unit@example.com");  // the verification mail
  Response asked = post_with_pre("/reset", "email=reset-unit%40example.com");
  EXPECT_EQ(asked.status, 200);
  std::string path = link(queued_text("reset-unit@example.com"), "/reset/confirm");
  ASSERT_FALSE(path.empty());
  Request parsed;
  ASSERT_TRUE(parse_target(path, parsed));
  std::string fields = "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig") + "&password=a+brand+new+passphrase";
  clock_.advance(31 * 60);
  Response late = call("POST", "/reset/confirm", fields);
  EXPECT_EQ(late.status, 400);
  EXPECT_NE(late.body.find("expired"), std::string::npos);
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &a).body)["signed_in"], true);  // nothing changed
  // A fresh link within the 30 minutes works, once.
  clock_.advance(120);  // the recipient's mail budget refills
  post_with_pre("/reset", "email=reset-unit%40example.com");
  path = link(queued_text("reset-unit@example.com"), "/reset/confirm");
  ASSERT_FALSE(path.empty());
  ASSERT_TRUE(parse_target(path, parsed = Request{}));
  fields = "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig") + "&password=a+brand+new+passphrase";
  clock_.advance(29 * 60);
  EXPECT_EQ(call("POST", "/reset/confirm", fields).status, 303);
  EXPECT_EQ(call("POST", "/reset/confirm", fields).status, 400);
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &a).body)["signed_in"], false);  // the old session ended
}

TEST_F(Practice, SettingsSendANewVerificationLinkThatVerifies) {
  Client a = signup("again@example.com");
  queued_text("again@example.com");  // the first link, let lapse
  clock_.advance(31 * 60);
  EXPECT_NE(std::string(call("GET", "/settings", "", &a).view()).find("resend-verification"), std::string::npos);
  EXPECT_EQ(call("POST", "/settings", "action=verify", &a, false).status, 403);  // no CSRF token
  EXPECT_EQ(call("POST", "/settings", "action=verify&csrf=" + a.csrf, &a).status, 200);
  std::string path = link(queued_text("again@example.com"), "/verify");
  ASSERT_FALSE(path.empty());
  Request parsed;
  ASSERT_TRUE(parse_target(path, parsed));
  EXPECT_EQ(call("POST", "/verify", "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig")).status, 200);
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &a).body)["email_verified"], true);
}

TEST_F(Practice, SubscribeAnswersAlikeAndLinksAreSigned) {
  auto sub = [&](const std::string& email) {
    Request req;
    req.method = "POST";
    req.target = req.path = "/api/subscribe";
    req.headers["content-type"] = "application/json";
    req.body = json{{"email", email}}.dump();
    req.remote = "10.1.1." + std::to_string(email.size());
    return app_->handle(req);
  };
  Response first = sub("s1@example.com");
  EXPECT_EQ(first.status, 202);
  std::string text = queued_text("s1@example.com");
  std::string confirm = link(text, "/subscribe/confirm");
  ASSERT_FALSE(confirm.empty());
  Request parsed;
  ASSERT_TRUE(parse_target(confirm, parsed));
  std::string form = "email=s1%40example.com&expires=" + *parsed.param("expires") + "&sig=" + *parsed.param("sig");
  EXPECT_EQ(call("POST", "/subscribe/confirm", form).status, 200);
  EXPECT_EQ((*store_->find_subscription("s1@example.com"))->status, "confirmed");
  EXPECT_EQ(sub("s1@example.com").body, first.body);  // confirmed: the same answer
  EXPECT_EQ(sub("bad").status, 400);
  std::string unsub = mail::unsubscribe_url(mail_config_, signer_, "s1@example.com").substr(std::string("https://ridge.test").size());
  EXPECT_EQ(call("POST", unsub.substr(0, unsub.size() - 1) + "0", "List-Unsubscribe=One-Click").status, 400);
  EXPECT_EQ(call("POST", unsub, "List-Unsubscribe=One-Click").status, 200);
  EXPECT_EQ((*store_->find_subscription("s1@example.com"))->status, "unsubscribed");
  // An expired confirmation link is refused.
  sub("s2@example.com");
  confirm = link(queued_text("s2@example.com"), "/subscribe/confirm");
  ASSERT_TRUE(parse_target(confirm, parsed = Request{}));
  clock_.advance(8 * 86400);
  EXPECT_EQ(call("POST", "/subscribe/confirm", "email=s2%40example.com&expires=" + *parsed.param("expires") + "&sig=" + *parsed.param("sig")).status, 400);
}

}  // namespace
}  // namespace ridge::web

namespace ridge::web {
namespace {

class PracticeIssue20 : public Practice {
 protected:
  const bank::Question& first_free() {
    for (const auto& q : app_->bank().questions) {
      if (q.free) return q;
    }
    throw std::runtime_error("no free question");
  }
  json review(const Client& c, const std::string& slug, int grade) {
    Response r = call("POST", "/api/reviews", json{{"slug", slug}, {"grade", grade}}.dump(), &c);
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body);
  }
  std::string state_of(const Client& c, const std::string& slug) {
    json all = json::parse(call("GET", "/api/reviews/due?all=1", "", &c).body);
    for (const auto& card : all["due"]) {
      if (card["slug"] == slug) return card["state"];
    }
    return "new";
  }
  static size_t count(std::string_view text, std::string_view what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }
};

TEST_F(PracticeIssue20, TheNavIsRenderedFromTheSession) {
  Client a = signup("nav@example.com");
  for (const std::string& path : std::vector<std::string>{"/", "/topics/kernels", "/q/" + first_free().slug, "/dashboard", "/drill"}) {
    Response mine = call("GET", path, "", &a);
    ASSERT_EQ(mine.status, 200) << path;
    EXPECT_NE(mine.view().find(kNavSignedIn), std::string::npos) << path;
    EXPECT_EQ(mine.view().find(kNavSignedOut), std::string::npos) << path;
    EXPECT_EQ(header(mine, "Cache-Control"), "private, no-store") << path;
    Response anonymous = call("GET", path);
    if (anonymous.status == 200) {
      EXPECT_NE(anonymous.view().find(kNavSignedOut), std::string::npos) << path;
    }
  }
  // A cookie that names no session is an anonymous visitor: "Sign in", as before.
  Client stale{"ridge_session=" + std::string(64, 'a'), ""};
  EXPECT_NE(call("GET", "/", "", &stale).view().find(kNavSignedOut), std::string::npos);
}

TEST_F(PracticeIssue20, ListsGetEachQuestionsStateAndBookmark) {
  EXPECT_EQ(call("GET", "/api/reviews/due?all=1").status, 401);
  Client a = signup("states@example.com");
  const std::string slug = first_free().slug;
  EXPECT_EQ(state_of(a, slug), "new");
  review(a, slug, 3);
  EXPECT_EQ(state_of(a, slug), "seen");  // in its 10-minute learning step
  clock_.advance(600);
  EXPECT_EQ(state_of(a, slug), "due");
  // Easy until FSRS's stability passes 21 days: mastered (and not due).
  // (Sessions last 30 days, so the user signs in again after each wait.)
  for (int i = 0; i < 10 && state_of(a, slug) != "mastered"; ++i) {
    json r = review(a, slug, 4);
    clock_.advance(r["due_in_seconds"].get<int64_t>() - 1);
    Response in = call("POST", "/api/signin", json{{"email", "states@example.com"}, {"password", "correct horse battery"}}.dump());
    ASSERT_EQ(in.status, 200) << in.body;
    std::string cookie = header(in, "Set-Cookie");
    a = {cookie.substr(0, cookie.find(';')), json::parse(in.body)["csrf_token"]};
  }
  EXPECT_EQ(state_of(a, slug), "mastered");
  json all = json::parse(call("GET", "/api/reviews/due?all=1", "", &a).body);
  EXPECT_DOUBLE_EQ(all["mastered_stability_days"].get<double>(), 21);
  EXPECT_GE(all["due"][0]["stability"].get<double>(), 21);
  EXPECT_TRUE(all["bookmarks"].empty());
  ASSERT_EQ(call("POST", "/api/bookmarks", json{{"slug", slug}, {"on", true}}.dump(), &a).status, 200);
  all = json::parse(call("GET", "/api/reviews/due?all=1", "", &a).body);
  EXPECT_EQ(all["bookmarks"], json::array({slug}));
  // The lists carry the state filter and say what mastered means.
  Response topic = call("GET", "/topics/" + first_free().topic);
  EXPECT_NE(topic.view().find("<option value=\"mastered\">mastered</option>"), std::string::npos);
  EXPECT_NE(topic.view().find("Mastered: 21 days of stability or more"), std::string::npos);
  EXPECT_NE(topic.view().find("name=\"bookmarked\""), std::string::npos);
  // Track and concept lists have the filters too.
  EXPECT_NE(call("GET", "/tracks/serving").view().find("data-filter-list"), std::string::npos);
  EXPECT_NE(call("GET", "/concepts/kv-cache").view().find("data-filter-list"), std::string::npos);
}

TEST_F(PracticeIssue20, ANewCardComesBackAfterItsLearningStep) {
  Client a = signup("steps@example.com");
  const std::string slug = first_free().slug;
  json r = review(a, slug, 3);
  EXPECT_EQ(r["due_in_seconds"], 600);
  EXPECT_TRUE(json::parse(call("GET", "/api/reviews/due", "", &a).body)["due"].empty());
  clock_.advance(599);
  EXPECT_TRUE(json::parse(call("GET", "/api/reviews/due", "", &a).body)["due"].empty());
  clock_.advance(1);
  json due = json::parse(call("GET", "/api/reviews/due", "", &a).body)["due"];
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0]["slug"], slug);
  Response page = call("GET", "/review", "", &a);
  EXPECT_NE(page.view().find("class=\"card review-item\" data-slug=\"" + slug + "\""), std::string::npos);
}

TEST_F(PracticeIssue20, TheDailyNewCardLimitIsASettingAndCountsFromMidnightUtc) {
  Client a = signup("limit@example.com");
  std::string page(call("GET", "/review", "", &a).view());
  EXPECT_EQ(count(page, "review-item new-item"), 20u);  // the default
  EXPECT_NE(page.find("0 of 20 new questions started today"), std::string::npos);
  for (const char* bad : {"abc", "-1", "201", "2.5", ""}) {
    std::string body(call("POST", "/settings", "action=new-per-day&new_per_day=" + std::string(bad) + "&csrf=" + a.csrf, &a, false).view());
    EXPECT_NE(body.find("New questions a day &#39;" + std::string(bad) + "&#39; is out of range; accepted: a whole number from 0 to 200"),
              std::string::npos) << bad << body.substr(body.find("settings-message") == std::string::npos ? 0 : body.find("settings-message"), 200);
  }
  EXPECT_EQ((*store_->find_user_by_email("limit@example.com"))->new_per_day, 20);
  std::string saved(call("POST", "/settings", "action=new-per-day&new_per_day=2&csrf=" + a.csrf, &a, false).view());
  EXPECT_NE(saved.find("up to 2 new questions a day"), std::string::npos);
  EXPECT_NE(saved.find("id=\"new-per-day\" name=\"new_per_day\" value=\"2\""), std::string::npos);
  EXPECT_EQ((*store_->find_user_by_email("limit@example.com"))->new_per_day, 2);
  page = call("GET", "/review", "", &a).view();
  EXPECT_EQ(count(page, "review-item new-item"), 2u);
  // A question graded on its own page counts against today's limit.
  review(a, first_free().slug, 3);
  page = call("GET", "/review", "", &a).view();
  EXPECT_NE(page.find("1 of 2 new questions started today (UTC); 1 more on offer"), std::string::npos);
  EXPECT_EQ(count(page, "review-item new-item"), 1u);
  EXPECT_EQ(page.find("new-item\" data-slug=\"" + first_free().slug + "\""), std::string::npos);
  // Grading the offered one from the review page uses up the day.
  size_t at = page.find("new-item\" data-slug=\"") + std::string("new-item\" data-slug=\"").size();
  std::string offered = page.substr(at, page.find('"', at) - at);
  EXPECT_EQ(call("POST", "/review", "slug=" + offered + "&grade=3&csrf=" + a.csrf, &a, false).status, 303);
  page = call("GET", "/review", "", &a).view();
  EXPECT_EQ(count(page, "review-item new-item"), 0u);
  EXPECT_NE(page.find("2 of 2 new questions started today"), std::string::npos);
  // The next UTC day starts a new count.
  clock_.advance(86400);
  page = call("GET", "/review", "", &a).view();
  EXPECT_EQ(count(page, "review-item new-item"), 2u);
}

TEST_F(PracticeIssue20, TheDrillPageHasATopicPicker) {
  std::string page(call("GET", "/drill?topic=kernels").view());
  EXPECT_NE(page.find("<select id=\"drill-topic\" name=\"topic\">"), std::string::npos);
  EXPECT_NE(page.find("<option value=\"kernels\" selected>"), std::string::npos);
  for (const auto& t : practice::drill_topics()) EXPECT_NE(page.find("<option value=\"" + t + "\""), std::string::npos) << t;
  EXPECT_EQ(page.find("value=\"behavioral\""), std::string::npos);
  EXPECT_NE(page.find("id=\"drill-topic-name\">" + app_->bank().find_topic("kernels")->name + "<"), std::string::npos);
}

TEST_F(PracticeIssue20, TheSearchApiSuggestsAndNamesBadInput) {
  json r = json::parse(call("GET", "/api/search?q=kv+cache&limit=5").body);
  EXPECT_EQ(r["results"].size(), 5u);
  EXPECT_GT(r["total"].get<int>(), 5);
  EXPECT_EQ(r["results"][0]["url"].get<std::string>().rfind("/", 0), 0u);
  Response bad = call("GET", "/api/search?q=x&limit=50");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("\"field\": \"limit\""), std::string::npos) << bad.body;
  EXPECT_NE(bad.body.find("1 to 20"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/search?q=x&page=2").status, 400);
  EXPECT_TRUE(json::parse(call("GET", "/api/search?q=").body)["results"].empty());
  // The concept a query names is the first hit; concept pages are searched by their text.
  EXPECT_EQ(json::parse(call("GET", "/api/search?q=kv+cache").body)["results"][0]["url"], "/concepts/kv-cache");
  EXPECT_EQ(json::parse(call("GET", "/api/search?q=MIG").body)["results"][0]["url"], "/concepts/mig");
  EXPECT_EQ(json::parse(call("GET", "/api/search?q=NCCL_ALGO").body)["results"][0]["url"], "/concepts/nccl");
}

}  // namespace
}  // namespace ridge::web
