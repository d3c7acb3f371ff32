// Practice through App::handle: reviews, bookmarks, notes, courses, drills and the readiness
// check, on a real SQLite store and a fake clock.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "web/practice_fixture.h"

namespace ridge::web {
namespace {

using nlohmann::json;

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

// Issue 33 item 3: a refresh of the readiness check (or coming back later) lost it and started
// over; its topics showed as ids ("inference-serving"). GET /readiness now shows the check in
// progress, the same payload; the check and the result name topics by name.
TEST_F(Practice, Finding33_ReadinessResumesOnRefreshAndNamesTopics) {
  Client a = signup("resume@example.com");
  auto post_form = [&](const std::string& body) { return call("POST", "/readiness", body + "&csrf=" + a.csrf, &a, false); };
  Response started = post_form("action=start&track=serving");
  ASSERT_EQ(started.status, 200);
  auto hidden = [](const std::string& page, const std::string& name) {
    size_t at = page.find("name=\"" + name + "\" value=\"");
    if (at == std::string::npos) return std::string();
    size_t from = at + name.size() + 15;
    std::string v = page.substr(from, page.find('"', from) - from);
    for (size_t p; (p = v.find("&#124;")) != std::string::npos;) v.replace(p, 6, "|");
    return v;
  };
  std::string payload = hidden(started.body, "payload"), mac = hidden(started.body, "mac");
  ASSERT_FALSE(payload.empty());
  clock_.advance(120);
  Response refreshed = call("GET", "/readiness", "", &a);
  ASSERT_EQ(refreshed.status, 200);
  EXPECT_EQ(hidden(refreshed.body, "payload"), payload) << "the same check, not a new one";
  EXPECT_NE(refreshed.body.find("id=\"resumed\""), std::string::npos);
  EXPECT_NE(refreshed.body.find("data-seconds-left=\"780\""), std::string::npos) << "900 s less the 120 s gone";
  // Topics by name on the check and on the result.
  auto no_ids = [&](const std::string& page, const std::string& before, const std::string& after) {
    for (const auto& t : app_->bank().topics) {
      if (t.id == t.name) continue;
      EXPECT_EQ(page.find(before + t.id + after), std::string::npos) << t.id;
    }
  };
  no_ids(refreshed.body, "class=\"tag\">", "<");
  EXPECT_NE(refreshed.body.find("class=\"tag\">"), std::string::npos);
  Response done = post_form("action=finish&payload=" + url_encode(payload) + "&mac=" + mac);
  ASSERT_EQ(done.status, 200);
  no_ids(done.body, "<td>", "</td>");
  // Submitted: /readiness offers a new one.
  Response after = call("GET", "/readiness", "", &a);
  EXPECT_TRUE(hidden(after.body, "payload").empty());
  EXPECT_NE(after.body.find("value=\"start\""), std::string::npos);
  // Given up: the same.
  ASSERT_EQ(post_form("action=start&track=serving").status, 200);
  Response abandoned = post_form("action=abandon");
  EXPECT_EQ(abandoned.status, 200);
  EXPECT_NE(abandoned.body.find("value=\"start\""), std::string::npos);
  EXPECT_TRUE(hidden(call("GET", "/readiness", "", &a).body, "payload").empty());
  // The dashboard names the track and writes the date in words.
  Response dashboard = call("GET", "/dashboard", "", &a);
  const bank::Track* track = app_->bank().find_track("serving");
  ASSERT_NE(track, nullptr);
  EXPECT_NE(dashboard.body.find("<li>" + track->name + ": "), std::string::npos);
  EXPECT_EQ(dashboard.body.find(" GMT"), std::string::npos) << "an HTTP date on a page";
  // Counts with their denominators: "0 of N" questions seen, N the topic's question count.
  size_t napkin = 0;
  for (const auto& q : app_->bank().questions) napkin += q.topic == "napkin-math";
  EXPECT_NE(dashboard.body.find("<td>0 of " + std::to_string(napkin) + "</td>"), std::string::npos);
}

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
