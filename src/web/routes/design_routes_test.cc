// Design rounds through App::handle (issue 35): the list, a challenge's form graded without a
// session (nothing kept) and with one (kept, CSRF required), each field error naming the
// field, the value and what is accepted, the JSON API answering as `ridge design --json`, and
// a board with one row per user however often they pass.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "design/challenge.h"
#include "design/grader.h"
#include "web/practice_fixture.h"
#include "web/url_encode.h"

namespace ridge::web {
namespace {

using Json = nlohmann::json;

// chat-70b-interactive (content/challenges): Llama 3.3 70B at 12 requests a second, TTFT p99
// <= 1.5 s, TPOT p99 <= 50 ms, at most $60,000 a month at $3 per H100-hour.
constexpr const char* kChallenge = "chat-70b-interactive";
// Its reference: 4 replicas of TP 4 on H100 = 16 GPUs x $3 x 730 h = $35,040 a month.
const char* const kReference = "gpu=h100-sxm&tp=4&replicas=4&max_batch=32&weights_dtype=fp8&kv_dtype=fp8";
// Its common mistake: one TP-8 replica takes all 12 requests a second and its queue never drains.
const char* const kMistake = "gpu=h100-sxm&tp=8&replicas=1&max_batch=128&weights_dtype=bf16&kv_dtype=bf16";
// One more replica than the reference: 20 GPUs x $3 x 730 h = $43,800, still under $60,000.
const char* const kDearer = "gpu=h100-sxm&tp=4&replicas=5&max_batch=32&weights_dtype=fp8&kv_dtype=fp8";

class DesignRoutes : public Practice {
 protected:
  void SetUp() override {
    Practice::SetUp();
    app_.reset();
    AppOptions options;
    options.store = store_.get();
    options.clock = &clock_;
    auto loaded = design::load_challenges(std::string(ridge::source_dir()) + "/content/challenges");
    ASSERT_TRUE(loaded.errors.empty()) << calc::to_string(loaded.errors);
    challenges_ = loaded.challenges;
    options.design_challenges = std::move(loaded.challenges);
    app_ = testing::real_app(options);
  }
  const design::Challenge& challenge() const {
    for (const auto& c : challenges_) {
      if (c.id == kChallenge) return c;
    }
    throw std::runtime_error("no chat-70b-interactive");
  }
  Response post_form(const std::string& fields, const Client* c = nullptr, bool with_csrf = true) {
    std::string body = fields;
    if (c != nullptr && with_csrf) body += "&csrf=" + url_encode(c->csrf);
    // The form carries its token in the body, as a browser sends it: no header.
    Client cookie_only = c ? Client{c->cookie, ""} : Client{};
    return call("POST", std::string("/design/") + kChallenge, body, c ? &cookie_only : nullptr);
  }
  std::vector<design::Challenge> challenges_;
};

TEST_F(DesignRoutes, TheListHasEveryChallengeByTrack) {
  Response r = call("GET", "/design");
  ASSERT_EQ(r.status, 200);
  const std::string body(r.view());
  ASSERT_EQ(challenges_.size(), 20u);
  for (const auto& c : challenges_) EXPECT_NE(body.find("/design/" + c.id), std::string::npos) << c.id;
  EXPECT_NE(body.find("<h3>medium</h3>"), std::string::npos);
  EXPECT_EQ(call("GET", "/design/no-such-challenge").status, 404);
}

// The design pages are reachable: the sitemap lists the list and every challenge.
TEST_F(DesignRoutes, TheSitemapListsEveryChallenge) {
  Response r = call("GET", "/sitemap.xml");
  ASSERT_EQ(r.status, 200);
  const std::string body(r.view());
  EXPECT_NE(body.find("/design</loc>"), std::string::npos);
  for (const auto& c : challenges_) EXPECT_NE(body.find("/design/" + c.id + "</loc>"), std::string::npos) << c.id;
}

TEST_F(DesignRoutes, TheFormLeavesTheReferenceBlankAndHasATimer) {
  Response r = call("GET", std::string("/design/") + kChallenge);
  ASSERT_EQ(r.status, 200);
  const std::string body(r.view());
  // Every open field is there, none pre-selected: the reference is not given away.
  for (const char* field : {"gpu", "tp", "replicas", "max_batch", "weights_dtype", "kv_dtype"}) {
    EXPECT_NE(body.find(std::string("name=\"") + field + "\""), std::string::npos) << field;
  }
  EXPECT_EQ(body.find("<option selected>"), std::string::npos);
  EXPECT_NE(body.find("value=\"\" selected"), std::string::npos);
  // 45 minutes, nothing elapsed on the fake clock.
  EXPECT_NE(body.find("data-seconds-left=\"2700\""), std::string::npos);
  EXPECT_NE(body.find("45:00"), std::string::npos);
  const std::string hidden(call("GET", std::string("/design/") + kChallenge + "?timer=off").view());
  EXPECT_EQ(hidden.find("design-timer"), std::string::npos);
  // Hidden, it stays hidden after the form is sent.
  EXPECT_NE(hidden.find(std::string("action=\"/design/") + kChallenge + "?timer=off\""), std::string::npos);
}

TEST_F(DesignRoutes, AnonymousGradingPassesTheReferenceAndFailsTheMistakeKeepingNothing) {
  Response pass = post_form(kReference);
  ASSERT_EQ(pass.status, 200) << pass.body;
  EXPECT_NE(pass.body.find("Verdict: PASS"), std::string::npos);
  EXPECT_NE(pass.body.find("design-grader/"), std::string::npos);  // the grader's version
  EXPECT_NE(pass.body.find("<details>"), std::string::npos);       // the derivations
  Response fail = post_form(kMistake);
  ASSERT_EQ(fail.status, 200) << fail.body;
  EXPECT_NE(fail.body.find("Verdict: FAIL"), std::string::npos);
  EXPECT_NE(fail.body.find("id=\"suggestion\""), std::string::npos);
  EXPECT_NE(fail.body.find("unbounded"), std::string::npos);  // the queue that never drains
  EXPECT_TRUE(store_->design_board(kChallenge, 10)->empty());
}

TEST_F(DesignRoutes, EveryFieldErrorNamesTheFieldTheValueAndWhatIsAccepted) {
  // TP 3 is not among the challenge's choices (1, 2, 4, 8); 99 replicas is past its 16.
  Response r = post_form("gpu=h100-sxm&tp=3&replicas=99&max_batch=32&weights_dtype=fp8&kv_dtype=fp8");
  ASSERT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("<code>tp</code> = \"3\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("accepted: 1, 2, 4, 8"), std::string::npos);
  EXPECT_NE(r.body.find("<code>replicas</code> = \"99\""), std::string::npos);
  EXPECT_NE(r.body.find("from 1 to 16"), std::string::npos);
  // A blank field is required, never filled in from the reference.
  Response blank = post_form("gpu=h100-sxm&tp=4&replicas=4&max_batch=32&weights_dtype=fp8&kv_dtype=");
  ASSERT_EQ(blank.status, 400);
  EXPECT_NE(blank.body.find("<code>kv_dtype</code> = \"\" is required"), std::string::npos) << blank.body;
  EXPECT_NE(blank.body.find("accepted: bf16, fp8"), std::string::npos);
  // The same through the API, in the JSON error shape.
  Response api = call("POST", std::string("/api/design/") + kChallenge,
                      Json{{"gpu", "h100-sxm"}, {"tp", 3}, {"replicas", 4}, {"max_batch", 32}, {"weights_dtype", "fp8"}, {"kv_dtype", "fp8"}}.dump());
  ASSERT_EQ(api.status, 400);
  Json e = Json::parse(api.body)["errors"][0];
  EXPECT_EQ(e["field"], "tp");
  EXPECT_EQ(e["value"], "3");
  EXPECT_EQ(e["accepted"], "1, 2, 4, 8");
  EXPECT_EQ(call("POST", std::string("/api/design/") + kChallenge, "[1]").status, 400);
  EXPECT_EQ(call("POST", "/api/design/nope", "{}").status, 404);
}

TEST_F(DesignRoutes, TheApiAnswersExactlyAsTheCommandPrints) {
  const Json body{{"gpu", "h100-sxm"}, {"tp", 8}, {"replicas", 1}, {"max_batch", 128}, {"weights_dtype", "bf16"}, {"kv_dtype", "bf16"}};
  Response r = call("POST", std::string("/api/design/") + kChallenge, body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  // `ridge design ID --submit F --json` prints verdict_json(grade(...)) and a newline; the App
  // here has no validation ledger, so the trust table is empty on both sides.
  const auto& c = challenge();
  const auto expected = design::grade(c, c.common_mistake, calc::testing::registry(), calc::testing::real_catalog(), {});
  EXPECT_EQ(r.body, design::verdict_json(expected) + "\n");
  Json v = Json::parse(r.body);
  EXPECT_FALSE(v["pass"].get<bool>());
  EXPECT_FALSE(v["suggestion"].is_null());
}

TEST_F(DesignRoutes, SignedInTheFormNeedsCsrfAndKeepsTheAttempt) {
  Client a = signup("a@example.com");
  EXPECT_EQ(post_form(kReference, &a, /*with_csrf=*/false).status, 403);
  EXPECT_TRUE(store_->design_attempts(1, kChallenge, 10)->empty());
  // The API too: a session without its token is refused.
  Client no_token{a.cookie, ""};
  EXPECT_EQ(call("POST", std::string("/api/design/") + kChallenge, "{}", &no_token).status, 403);
  Response first = post_form(std::string(kReference) + "&started=" + std::to_string(clock_.now() - 600), &a);
  ASSERT_EQ(first.status, 200) << first.body;
  auto kept = store_->design_attempts(1, kChallenge, 10);
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_TRUE((*kept)[0].pass);
  EXPECT_DOUBLE_EQ((*kept)[0].cost_usd, 35040);  // 16 GPUs x $3 x 730 h
  EXPECT_EQ((*kept)[0].seconds, 600);
  // The page again shows the last submission, and the attempt.
  Response again = call("GET", std::string("/design/") + kChallenge, "", &a);
  const std::string body(again.view());
  EXPECT_NE(body.find("<option selected>h100-sxm</option>"), std::string::npos);
  EXPECT_NE(body.find("id=\"attempts\""), std::string::npos);
}

TEST_F(DesignRoutes, TheBoardHasEachUsersBestPassingDesignOnce) {
  Client a = signup("a@example.com"), b = signup("b@example.com");
  ASSERT_EQ(post_form(std::string(kDearer) + "&show_name=1&board_name=ada", &a).status, 200);
  ASSERT_EQ(post_form(kReference, &a).status, 200);
  ASSERT_EQ(post_form(kReference, &a).status, 200);
  ASSERT_EQ(post_form(kMistake, &a).status, 200);  // a fail: never on the board
  ASSERT_EQ(post_form(kDearer, &b).status, 200);
  auto board = store_->design_board(kChallenge, 10);
  ASSERT_EQ(board->size(), 2u);
  EXPECT_DOUBLE_EQ((*board)[0].cost_usd, 35040);  // a's best: the reference
  EXPECT_DOUBLE_EQ((*board)[1].cost_usd, 43800);  // b's: 20 GPUs x $3 x 730 h
  Response page = call("GET", std::string("/design/") + kChallenge);
  const std::string body(page.view());
  // a's best attempt did not opt in: anonymous, as is b.
  EXPECT_EQ(body.find("<td>ada</td>"), std::string::npos);
  EXPECT_NE(body.find("<td>1</td><td>anonymous</td><td>35,040</td>"), std::string::npos) << body;
  EXPECT_NE(body.find("<td>2</td><td>anonymous</td><td>43,800</td>"), std::string::npos);
  // Deleted with the account.
  ASSERT_TRUE(store_->delete_user(1).ok());
  EXPECT_EQ(store_->design_board(kChallenge, 10)->size(), 1u);
}


TEST_F(DesignRoutes, GradingIsLimitedPerAddressAndPerAccount) {
  // 60 grades at once, then one a second (DesignService::kBurst, kPerSecond); the fake clock
  // stands still, so the 61st from one address is refused and another address is not.
  const std::string body =
      Json{{"gpu", "h100-sxm"}, {"tp", 4}, {"replicas", 4}, {"max_batch", 32}, {"weights_dtype", "fp8"}, {"kv_dtype", "fp8"}}.dump();
  const std::string path = std::string("/api/design/") + kChallenge;
  for (int i = 0; i < 60; ++i) ASSERT_EQ(call("POST", path, body, nullptr, true, "10.0.0.7").status, 200) << i;
  Response limited = call("POST", path, body, nullptr, true, "10.0.0.7");
  EXPECT_EQ(limited.status, 429);
  EXPECT_NE(limited.body.find("too many designs graded"), std::string::npos);
  EXPECT_EQ(call("POST", path, body, nullptr, true, "10.0.0.8").status, 200);
  // A second later one more is free.
  clock_.advance(1);
  EXPECT_EQ(call("POST", path, body, nullptr, true, "10.0.0.7").status, 200);
  EXPECT_EQ(call("POST", path, body, nullptr, true, "10.0.0.7").status, 429);
}

}  // namespace
}  // namespace ridge::web
