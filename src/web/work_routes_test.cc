// Work it through App::handle (issue 34): the JSON API and the no-JavaScript form, a session
// and CSRF on every POST, another user's exercise refused, a step graded once.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "practice/misconceptions.h"
#include "web/practice_fixture.h"
#include "web/url_encode.h"

namespace ridge::web {
namespace {

using Json = nlohmann::json;

class WorkRoutes : public Practice {
 protected:
  // A free workable question of the real bank and a fresh exercise of it for `c`.
  Json start(const Client& c) {
    for (const char* slug : {"allreduce-bus-bandwidth", "moving-a-petabyte-between-sites", "data-loader-for-text-training",
                             "tokenizer-throughput-as-a-batch-job"}) {
      Response r = call("POST", std::string("/api/work/") + slug, "", &c);
      if (r.status == 200) return Json::parse(r.body);
    }
    ADD_FAILURE() << "none of the free candidates is workable";
    return Json();
  }
  static std::string exact(double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
  }
};

TEST_F(WorkRoutes, TheApiNeedsASessionAndCsrfAndRefusesAnotherUsersExercise) {
  EXPECT_EQ(call("POST", "/api/work/allreduce-bus-bandwidth").status, 401);
  Client a = signup("a@example.com"), b = signup("b@example.com");
  EXPECT_EQ(call("POST", "/api/work/allreduce-bus-bandwidth", "", &a, /*with_csrf=*/false).status, 403);
  Json ex = start(a);
  ASSERT_TRUE(ex.is_object());
  const std::string slug = ex["slug"], seed = ex["seed"], sig = ex["signature"];
  ASSERT_FALSE(ex["steps"].empty());
  const std::string grade_path = "/api/work/" + slug + "/" + seed + "/grade";
  // b presents a's exercise: refused, 403, and nothing recorded.
  Response stolen = call("POST", grade_path, Json{{"signature", sig}, {"step", 0}, {"answer", "1"}}.dump(), &b);
  EXPECT_EQ(stolen.status, 403) << stolen.body;
  // A changed seed under a's signature: refused.
  Response forged = call("POST", "/api/work/" + slug + "/" + seed + "1/grade",
                         Json{{"signature", sig}, {"step", 0}, {"answer", "1"}}.dump(), &a);
  EXPECT_EQ(forged.status, 403) << forged.body;
  // The first grade stands; the replay is 409.
  Response first = call("POST", grade_path, Json{{"signature", sig}, {"step", 0}, {"answer", "1e-30"}}.dump(), &a);
  ASSERT_EQ(first.status, 200) << first.body;
  Json g = Json::parse(first.body);
  EXPECT_FALSE(g["correct"].get<bool>());
  Response replay = call("POST", grade_path, Json{{"signature", sig}, {"step", 0}, {"answer", exact(g["value"])}}.dump(), &a);
  EXPECT_EQ(replay.status, 409) << replay.body;
  // An answer that is not a number: 400 naming the field.
  if (ex["steps"].size() > 1) {
    Response junk = call("POST", grade_path, Json{{"signature", sig}, {"step", 1}, {"answer", "lots"}}.dump(), &a);
    EXPECT_EQ(junk.status, 400);
    EXPECT_NE(junk.body.find("\"answer\""), std::string::npos) << junk.body;
  }
}

TEST_F(WorkRoutes, TheLastStepSchedulesTheQuestionAgainAfterAWrongStep) {
  Client a = signup("a@example.com");
  Json ex = start(a);
  ASSERT_TRUE(ex.is_object());
  const std::string slug = ex["slug"], seed = ex["seed"], sig = ex["signature"];
  const std::string grade_path = "/api/work/" + slug + "/" + seed + "/grade";
  Json last;
  for (size_t i = 0; i < ex["steps"].size(); ++i) {
    // The API tells a step's value only after grading it, so every step is answered 1e-30
    // (no step of a real chain is that small): all wrong, which schedules Again.
    Response r = call("POST", grade_path, Json{{"signature", sig}, {"step", i}, {"answer", "1e-30"}}.dump(), &a);
    ASSERT_EQ(r.status, 200) << r.body;
    last = Json::parse(r.body);
  }
  EXPECT_TRUE(last["finished"].get<bool>());
  EXPECT_EQ(last["fsrs_grade"], 1);  // Again
  auto reviews = store_->reviews(1);
  ASSERT_TRUE(reviews.ok());
  ASSERT_EQ(reviews->size(), 1u);
  EXPECT_EQ((*reviews)[0].slug, slug);
  EXPECT_EQ((*reviews)[0].grade, 1);
  // The dashboard lists named mistakes only; 1e-30 names none, so no section.
  Response dash = call("GET", "/dashboard", "", &a);
  ASSERT_EQ(dash.status, 200);
  EXPECT_EQ(dash.body.find("Mistakes by kind"), std::string::npos);
  // A named mistake recorded for the user shows, with its count and a link to work it again.
  ASSERT_TRUE(*store_->record_work_step(1, {slug, 5, 0, "1", false, "bits-as-bytes", clock_.now() - 2 * 86400}));
  dash = call("GET", "/dashboard", "", &a);
  if (practice::find_misconception("bits-as-bytes") != nullptr) {
    EXPECT_NE(dash.body.find("Mistakes by kind"), std::string::npos);
    EXPECT_NE(dash.body.find("1 time, last 2 days ago"), std::string::npos) << dash.body.substr(0, 200);
    EXPECT_NE(dash.body.find("/q/" + slug + "/work"), std::string::npos);
  }
}

TEST_F(WorkRoutes, ThePageWorksWithoutJavaScriptAndNeedsASignIn) {
  Response anonymous = call("GET", "/q/allreduce-bus-bandwidth/work");
  EXPECT_EQ(anonymous.status, 303);  // the sign-in redirect
  Client a = signup("a@example.com");
  Json ex = start(a);  // finds a workable free slug
  ASSERT_TRUE(ex.is_object());
  const std::string slug = ex["slug"];
  Response page = call("GET", "/q/" + slug + "/work", "", &a);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_NE(page.body.find("name=\"answer\""), std::string::npos);
  // The form's hidden fields, as a browser would send them back.
  auto hidden = [&](const std::string& name) {
    const std::string key = "name=\"" + name + "\" value=\"";
    size_t at = page.body.find(key);
    EXPECT_NE(at, std::string::npos) << name;
    at += key.size();
    return page.body.substr(at, page.body.find('"', at) - at);
  };
  const std::string form = "csrf=" + url_encode(a.csrf) + "&seed=" + hidden("seed") + "&sig=" + hidden("sig") +
                           "&step=0&answer=" + url_encode("1e-30");
  Response graded = call("POST", "/q/" + slug + "/work", form, &a, /*with_csrf=*/false);
  ASSERT_EQ(graded.status, 200) << graded.body;
  EXPECT_NE(graded.body.find("Wrong: you answered 1e-30"), std::string::npos);
  EXPECT_NE(graded.body.find("Show this step's derivation"), std::string::npos);
  // Without the CSRF token: refused.
  Response no_csrf = call("POST", "/q/" + slug + "/work", "seed=1&sig=x&step=0&answer=1", &a, false);
  EXPECT_EQ(no_csrf.status, 403);
}

// Issue 34: a workable question's page links to Work it; a question Work it refuses does not.
TEST_F(WorkRoutes, AWorkableQuestionsPageLinksToWorkItAndNoOtherDoes) {
  // A cached page's bytes are the App's (shared_body), not a copy.
  auto text = [](const Response& r) { return r.shared_body != nullptr ? *r.shared_body : r.body; };
  Client a = signup("a@example.com");
  Json ex = start(a);  // a free slug the service accepts: workable
  ASSERT_TRUE(ex.is_object());
  const std::string slug = ex["slug"];
  Response page = call("GET", "/q/" + slug);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(text(page).find("<a href=\"/q/" + slug + "/work\">Work it</a>"), std::string::npos);
  // The first free question the service refuses (no calc block, or one that cannot vary): its
  // page has no link.
  Json listed = Json::parse(call("GET", "/api/questions").body);
  std::string other;
  for (const auto& q : listed["questions"]) {
    if (q["free"].get<bool>() && call("POST", "/api/work/" + q["slug"].get<std::string>(), "", &a).status == 400) {
      other = q["slug"];
      break;
    }
  }
  ASSERT_FALSE(other.empty()) << "no free question that is not workable";
  Response plain = call("GET", "/q/" + other);
  ASSERT_EQ(plain.status, 200);
  EXPECT_NE(text(plain).find("<h1"), std::string::npos);  // the page itself, read
  EXPECT_EQ(text(plain).find("/work\""), std::string::npos);
  EXPECT_EQ(text(plain).find("id=\"work-it\""), std::string::npos);
}

// Issue 34: the drills page offers a set aimed at the user's most frequent named mistake.
TEST_F(WorkRoutes, TheDrillsPageOffersASetForTheMostFrequentMistake) {
  Client a = signup("a@example.com");
  Response before = call("GET", "/drill", "", &a);
  ASSERT_EQ(before.status, 200);
  EXPECT_EQ(before.body.find("id=\"mistake-set\""), std::string::npos);  // no mistake yet: no set
  Json ex = start(a);
  ASSERT_TRUE(ex.is_object());
  const std::string slug = ex["slug"];
  const int64_t now = clock_.now();
  // bits-as-bytes twice (3 and 2 days ago), gib-as-gb once today: bits-as-bytes is the most
  // frequent, 2 times, last 2 days ago.
  ASSERT_TRUE(*store_->record_work_step(1, {slug, 5, 0, "1", false, "bits-as-bytes", now - 3 * 86400}));
  ASSERT_TRUE(*store_->record_work_step(1, {slug, 6, 0, "1", false, "bits-as-bytes", now - 2 * 86400}));
  ASSERT_TRUE(*store_->record_work_step(1, {slug, 7, 0, "1", false, "gib-as-gb", now}));
  const practice::Misconception* m = practice::find_misconception("bits-as-bytes");
  ASSERT_NE(m, nullptr);
  Response page = call("GET", "/drill", "", &a);
  ASSERT_EQ(page.status, 200);
  const size_t at = page.body.find("id=\"mistake-set\"");
  ASSERT_NE(at, std::string::npos);
  const std::string set = page.body.substr(at, page.body.find("</section>", at) - at);
  EXPECT_NE(set.find(m->title), std::string::npos) << set;
  EXPECT_NE(set.find("2 times, last 2 days ago"), std::string::npos) << set;
  EXPECT_EQ(set.find(practice::find_misconception("gib-as-gb")->title), std::string::npos);
  // The question where the mistake was made comes first; every link is a workable exercise.
  const std::string first = "<li><a href=\"/q/" + slug + "/work\">";
  EXPECT_NE(set.find(first), std::string::npos) << set;
  size_t links = 0;
  for (size_t p = set.find("/q/"); p != std::string::npos; p = set.find("/q/", p + 1)) {
    const std::string linked = set.substr(p + 3, set.find("/work", p) - p - 3);
    EXPECT_EQ(call("POST", "/api/work/" + linked, "", &a).status, 200) << linked;
    ++links;
  }
  EXPECT_GE(links, 1u);
  EXPECT_LE(links, 5u);
  // Another user sees no set: the mistakes are a's own.
  Client b = signup("b@example.com");
  EXPECT_EQ(call("GET", "/drill", "", &b).body.find("id=\"mistake-set\""), std::string::npos);
}

}  // namespace
}  // namespace ridge::web
