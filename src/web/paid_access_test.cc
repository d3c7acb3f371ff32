// Paid access through App::handle: what anonymous, signed-in and paying readers are sent, what
// shared caches may keep, and the payment provider's webhook.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "web/practice_fixture.h"

namespace ridge::web {
namespace {

using nlohmann::json;

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
    if (q.free) open_text += lower(q.tldr() + " " + q.plain_text + " ");
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
  EXPECT_NE(wall_page.find(calc::html_escape(paid->tldr())), std::string::npos);
  EXPECT_NE(wall_page.find("USD 25.00"), std::string::npos);
  EXPECT_EQ(wall_page.find("Reveal the answer"), std::string::npos);
  ASSERT_TRUE(store_->grant((*store_->find_user_by_email("g@example.com"))->id, 6, clock_.now()).ok());
  EXPECT_NE(call("GET", "/q/" + paid->slug, "", &a).view().find("Reveal the answer"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/questions/" + paid->slug, "", &a).status, 200);
  // Revoked, the answer is closed again.
  ASSERT_TRUE(store_->revoke((*store_->find_user_by_email("g@example.com"))->id).ok());
  EXPECT_EQ(call("GET", "/api/questions/" + paid->slug, "", &a).status, 402);
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

}  // namespace
}  // namespace ridge::web
