// Mock loops through App::handle (issue 36): start from a company and a track (signed in,
// CSRF, 303), a round answered, its follow-ups, scored twice (counted once), the report and its
// JSON, size limits, ownership, expiry, the dashboard, and deletion with the account.
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "web/practice_fixture.h"
#include "web/routes/response.h"
#include "web/url_encode.h"

namespace ridge::web {
namespace {

class Rehearse : public Practice {
 protected:
  // POSTs a form; answers the response.
  Response form(const std::string& path, const std::string& body, const Client& c, bool csrf = true) {
    return call("POST", path, body, &c, csrf);
  }
  int64_t start(const std::string& path, const Client& c) {
    Response r = form(path, "", c);
    EXPECT_EQ(r.status, 303) << r.body;
    std::string to = header(r, "Location");
    EXPECT_EQ(to.rfind("/rehearsals/", 0), 0u) << to;
    return std::atoll(to.substr(std::string("/rehearsals/").size()).c_str());
  }
  nlohmann::json state(int64_t id, const Client& c) {
    Response r = call("GET", "/api/rehearsals/" + std::to_string(id), "", &c);
    EXPECT_EQ(r.status, 200) << r.body;
    return nlohmann::json::parse(r.body);
  }
};

TEST_F(Rehearse, StartNeedsSignInAndCsrf) {
  EXPECT_EQ(call("POST", "/companies/anthropic/rehearse").status, 303);  // to sign in
  EXPECT_NE(header(call("POST", "/companies/anthropic/rehearse"), "Location").find("/signin"), std::string::npos);
  Client c = signup("reh@example.com");
  EXPECT_EQ(form("/companies/anthropic/rehearse", "", c, false).status, 403);
  EXPECT_EQ(form("/companies/no-such/rehearse", "", c).status, 400);
  EXPECT_EQ(form("/tracks/no-such/rehearse", "", c).status, 400);
  Response page = call("GET", "/rehearse?company=anthropic", "", &c);
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("action=\"/companies/anthropic/rehearse\""), std::string::npos);
  EXPECT_EQ(call("GET", "/rehearse?company=nope", "", &c).status, 404);
}

TEST_F(Rehearse, EveryCompanyAndTrackStarts) {
  Client c = signup("all@example.com");
  for (const char* company : {"anthropic", "nvidia", "openai", "modal", "groq"}) {
    int64_t id = start(std::string("/companies/") + company + "/rehearse", c);
    EXPECT_EQ(call("GET", "/rehearsals/" + std::to_string(id), "", &c).status, 200) << company;
  }
  for (const char* track : {"kernels", "serving", "platform", "distributed"}) {
    int64_t id = start(std::string("/tracks/") + track + "/rehearse", c);
    EXPECT_EQ(state(id, c)["rounds"].size(), 4u) << track;
  }
}

TEST_F(Rehearse, ARoundRunsToTheReport) {
  Client c = signup("loop@example.com");
  int64_t id = start("/tracks/serving/rehearse", c);
  const std::string path = "/rehearsals/" + std::to_string(id);
  nlohmann::json s = state(id, c);
  ASSERT_EQ(s["state"], "open");
  const size_t rounds = s["rounds"].size();
  ASSERT_EQ(rounds, 4u);
  // Scoring before answering changes nothing.
  EXPECT_EQ(form(path, "action=score&round=0&d=4&p=4&c=4&n=4", c).status, 303);
  EXPECT_EQ(state(id, c)["current_round"], 0);
  // Too long an answer is refused with the limit named.
  Response big = form(path, "action=answer&round=0&answer=" + std::string(20001, 'x'), c);
  EXPECT_EQ(big.status, 413);
  EXPECT_NE(big.body.find("20,000 bytes"), std::string::npos);
  EXPECT_EQ(form(path, "action=nope&round=0", c).status, 400);
  EXPECT_EQ(form(path, "action=answer&round=9", c).status, 400);
  EXPECT_EQ(form(path, "action=answer&round=2&answer=ahead", c).status, 409);  // not the round in progress
  EXPECT_EQ(form(path, "action=score&round=0&d=5&p=4&c=4&n=4", c).status, 400);
  for (size_t i = 0; i < rounds; ++i) {
    clock_.advance(120);
    const std::string r = "&round=" + std::to_string(i);
    EXPECT_EQ(form(path, "action=answer" + r + "&answer=my+notes+" + std::to_string(i), c).status, 303);
    Response page = call("GET", path, "", &c);
    EXPECT_NE(page.body.find("my notes " + std::to_string(i)), std::string::npos);  // the answer is kept
    // Rounds 0 and 1: 4,4,4,4; rounds 2 and 3: 2,2,2,1.
    const std::string scores = i < 2 ? "&d=4&p=4&c=4&n=4" : "&d=2&p=2&c=2&n=1";
    EXPECT_EQ(form(path, "action=score" + r + scores, c).status, 303);
    if (i == 0) {
      // A second submission counts once: the round keeps its first scores.
      EXPECT_EQ(form(path, "action=score" + r + "&d=1&p=1&c=1&n=1", c).status, 303);
    }
  }
  s = state(id, c);
  ASSERT_EQ(s["state"], "finished") << s.dump();
  if (std::getenv("RIDGE_REHEARSAL_LIST")) std::printf("%s\n", s.dump(2).c_str());  // a sample report
  // Round 1 is the track's napkin-math round: a Work it exercise (issue 34) whose numbers-right
  // line the engine scores; "my notes 1" names no step, 0 right, so that line is 1, not the 4
  // sent. Sums 16, 13, 7, 7 over 16 lines: mean 43/16 = 2.6875; three lines at 1 -> not lean
  // hire; mean >= 2.0 -> lean no. The first round's line means stay 4 (its resend of 1s did not
  // count). Round 1's 13 is not under 12: still two rounds to review.
  EXPECT_EQ(s["rounds"][1]["kind"], "numeric");
  EXPECT_GT(s["rounds"][1]["work_seed"].get<uint64_t>(), 0u);
  const auto& rep = s["report"];
  EXPECT_EQ(rep["recommendation"], "lean no");
  EXPECT_NEAR(rep["mean"].get<double>(), 2.6875, 1e-9);
  EXPECT_EQ(rep["lines_at_1"], 3);
  EXPECT_EQ(rep["rounds"][1]["scores"]["numbers right"], 1);
  EXPECT_EQ(rep["rounds"][1]["scores"]["technical depth"], 4);
  EXPECT_EQ(rep["rounds"][0]["scores"]["technical depth"], 4);
  EXPECT_EQ(rep["rounds"][0]["seconds_used"], 120);
  EXPECT_EQ(rep["review_questions"].size(), 2u);
  // The weak rounds' questions are in FSRS now (7 of 16 is a mean under 2: graded Again).
  auto user = store_->find_user_by_email("loop@example.com");
  ASSERT_TRUE(user.ok() && user->has_value());
  auto cards = store_->cards((*user)->id);
  ASSERT_TRUE(cards.ok());
  EXPECT_EQ(cards->size(), 2u);
  Response page = call("GET", path, "", &c);
  EXPECT_NE(page.body.find("id=\"recommendation\""), std::string::npos);
  EXPECT_NE(page.body.find("Hire: every round scored"), std::string::npos);
  // A finished rehearsal takes nothing more.
  EXPECT_EQ(form(path, "action=answer&round=0&answer=late", c).status, 409);
  // The dashboard lists it.
  Response dash = call("GET", "/dashboard", "", &c);
  EXPECT_NE(dash.body.find("id=\"rehearsals\""), std::string::npos);
  EXPECT_NE(dash.body.find("lean no"), std::string::npos);
}

TEST_F(Rehearse, BelongsToItsUserExpiresAndGoesWithTheAccount) {
  Client a = signup("owner@example.com");
  Client b = signup("other@example.com");
  int64_t id = start("/companies/anthropic/rehearse", a);
  const std::string path = "/rehearsals/" + std::to_string(id);
  EXPECT_EQ(call("GET", path, "", &b).status, 404);
  EXPECT_EQ(call("GET", "/api/rehearsals/" + std::to_string(id), "", &b).status, 404);
  EXPECT_EQ(form(path, "action=answer&round=0&answer=x", b).status, 404);
  EXPECT_EQ(call("GET", "/api/rehearsals/" + std::to_string(id)).status, 401);
  clock_.advance(48 * 3600);
  EXPECT_EQ(form(path, "action=answer&round=0&answer=x", a).status, 409);
  Response page = call("GET", path, "", &a);
  EXPECT_NE(page.body.find("id=\"expired\""), std::string::npos);
  EXPECT_EQ(state(id, a)["state"], "expired");
  auto user = store_->find_user_by_email("owner@example.com");
  ASSERT_TRUE(user.ok() && user->has_value());
  ASSERT_TRUE(store_->delete_user((*user)->id).ok());
  EXPECT_FALSE(store_->get_rehearsal((*user)->id, id)->has_value());
}

TEST_F(Rehearse, FollowUpsComeOneAtATimeAfterTheAnswer) {
  Client c = signup("ladder@example.com");
  int64_t id = start("/companies/anthropic/rehearse", c);
  const std::string path = "/rehearsals/" + std::to_string(id);
  Response before = call("GET", path, "", &c);
  EXPECT_NE(before.body.find("id=\"prompt\""), std::string::npos);
  EXPECT_NE(before.body.find("data-deadline"), std::string::npos);
  EXPECT_EQ(before.body.find("id=\"follow-ups\""), std::string::npos);
  EXPECT_EQ(before.body.find("id=\"rubric\""), std::string::npos);
  ASSERT_EQ(form(path, "action=answer&round=0&answer=first", c).status, 303);
  Response after = call("GET", path, "", &c);
  const size_t shown = [&] {
    size_t n = 0;
    for (size_t at = after.body.find("class=\"follow-up\""); at != std::string::npos; at = after.body.find("class=\"follow-up\"", at + 1)) ++n;
    return n;
  }();
  if (after.body.find("id=\"next-follow-up\"") != std::string::npos) {
    EXPECT_EQ(shown, 1u);
    EXPECT_EQ(after.body.find("id=\"rubric\""), std::string::npos);  // the worked answer waits
  } else {
    EXPECT_NE(after.body.find("id=\"rubric\""), std::string::npos);
  }
  Response all = call("GET", path + "?f=99", "", &c);
  EXPECT_NE(all.body.find("id=\"worked\""), std::string::npos);
  EXPECT_NE(all.body.find("id=\"rubric\""), std::string::npos);
}

// Issue 36 on issue 34: the track's napkin-math round is a Work it exercise. The page lists its
// steps and starts the box with one "NAME = " line each; after the answer the engine grades
// every step, and its score replaces the candidate's on the numbers-right line.
TEST_F(Rehearse, ANumericRoundIsGradedByTheEngine) {
  Client c = signup("numeric@example.com");
  int64_t id = start("/tracks/serving/rehearse", c);
  const std::string path = "/rehearsals/" + std::to_string(id);
  ASSERT_EQ(state(id, c)["rounds"][1]["kind"], "numeric");
  ASSERT_EQ(form(path, "action=answer&round=0&answer=notes", c).status, 303);
  ASSERT_EQ(form(path, "action=score&round=0&d=3&p=3&c=3&n=3", c).status, 303);
  Response page = call("GET", path, "", &c);
  ASSERT_NE(page.body.find("id=\"work-steps\""), std::string::npos) << page.body.substr(0, 400);
  // The step names, in order, from the list.
  std::vector<std::string> refs;
  const size_t list = page.body.find("id=\"work-steps\"");
  for (size_t at = page.body.find("<li><code>", list); at != std::string::npos && at < page.body.find("</ol>", list);
       at = page.body.find("<li><code>", at + 1)) {
    at += 10;
    refs.push_back(page.body.substr(at, page.body.find("</code>", at) - at));
  }
  ASSERT_FALSE(refs.empty());
  EXPECT_NE(page.body.find(">" + refs[0] + " = \n"), std::string::npos);  // the box's first line
  // Every step answered 1e-30 (no real chain's result is that small): all wrong, score 1.
  std::string wrong;
  for (const auto& r : refs) wrong += r + " = 1e-30\n";
  ASSERT_EQ(form(path, "action=answer&round=1&answer=" + url_encode(wrong), c).status, 303);
  page = call("GET", path + "?f=99", "", &c);  // every follow-up shown: the worked answer and the grade
  ASSERT_NE(page.body.find("id=\"engine-grade\" data-score=\"1\""), std::string::npos);
  // The engine's exact values (each step's data-value, in its base unit), sent back as the
  // updated answer: every step right, score 4.
  std::string right;
  size_t at = page.body.find("id=\"engine-grade\"");
  for (const auto& r : refs) {
    at = page.body.find("data-value=\"", at);
    ASSERT_NE(at, std::string::npos) << r;
    at += 12;
    right += r + " = " + page.body.substr(at, page.body.find('"', at) - at) + "\n";
  }
  ASSERT_EQ(form(path, "action=answer&round=1&answer=" + url_encode(right), c).status, 303);
  page = call("GET", path + "?f=99", "", &c);
  EXPECT_NE(page.body.find("id=\"engine-grade\" data-score=\"4\""), std::string::npos) << right;
  // The candidate claims 1 on numbers right; the engine's 4 stands.
  ASSERT_EQ(form(path, "action=score&round=1&d=2&p=2&c=2&n=1", c).status, 303);
  Response r = call("GET", "/api/rehearsals/" + std::to_string(id), "", &c);
  EXPECT_EQ(nlohmann::json::parse(r.body)["current_round"], 2);
  auto stored = store_->get_rehearsal(1, id);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->rounds[1].scores, "2,2,2,4");
}

}  // namespace
}  // namespace ridge::web
