#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "account/clock.h"
#include "mail/mail.h"
#include "mail/sender.h"
#include "mail/weekly.h"

namespace ridge::mail {
namespace {

TEST(IsoWeek, FollowsThursdays) {
  EXPECT_EQ(iso_week(1796083200), "2026-W49");  // Tue 2026-12-01
  EXPECT_EQ(iso_week(1609632000), "2020-W53");  // Sun 2021-01-03
  EXPECT_EQ(iso_week(1735516800), "2025-W01");  // Mon 2024-12-30
  EXPECT_EQ(iso_week(0), "1970-W01");
  EXPECT_EQ(week_index(1796083200) + 1, week_index(1796083200 + 7 * 86400));
  // Monday to Sunday is one week.
  EXPECT_EQ(week_index(1795996800), week_index(1795996800 + 6 * 86400 + 86399));  // Mon 2026-11-30 .. Sun
  EXPECT_NE(week_index(1795996800), week_index(1795996800 - 1));
}

bank::Bank small_bank() {
  bank::Bank b;
  b.topics = {{"a", "Topic A", "", 0}, {"b", "Topic B", "", 0}};
  auto q = [](std::string slug, std::string topic, bool free) {
    bank::Question x;
    x.slug = slug;
    x.title = "Title " + slug;
    x.topic = topic;
    x.free = free;
    x.set_tldr("tl;dr of " + slug);
    return x;
  };
  b.questions = {q("a1", "a", true), q("a2", "a", false), q("a3", "a", true), q("b1", "b", true)};
  b.build_indexes();
  return b;
}

TEST(PickWeekly, RotatesTopicsAndNeverRepeats) {
  auto b = small_bank();
  EXPECT_EQ(pick_weekly(b, 0, {})->slug, "a1");
  EXPECT_EQ(pick_weekly(b, 1, {})->slug, "b1");
  EXPECT_EQ(pick_weekly(b, 2, {"a1"})->slug, "a3");        // the next free one of the topic
  EXPECT_EQ(pick_weekly(b, 1, {"b1"})->slug, "a1");        // topic used up: the next topic
  EXPECT_EQ(pick_weekly(b, 3, {"a1", "a3", "b1"}), nullptr);  // never the paid one, never again
}

TEST(Render, CarriesUnsubscribeHeadersAndRefusesHeaderInjection) {
  MailConfig c;
  c.from = "ridge <weekly@ridge.example>";
  Message m{"to@example.com", "Hello\r\nBcc: victim@example.com", "text body", "<p>html</p>", "https://ridge.example/unsubscribe?x=1"};
  std::string out = render(c, m, 1796083200);
  EXPECT_NE(out.find("List-Unsubscribe: <https://ridge.example/unsubscribe?x=1>, <mailto:weekly@ridge.example?subject=unsubscribe>\r\n"),
            std::string::npos);
  EXPECT_NE(out.find("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"), std::string::npos);
  EXPECT_EQ(out.find("\r\nBcc:"), std::string::npos);
  EXPECT_NE(out.find("Subject: Hello  Bcc: victim@example.com\r\n"), std::string::npos);
  EXPECT_NE(out.find("multipart/alternative"), std::string::npos);
  EXPECT_NE(out.find("Date: Tue, 01 Dec 2026 00:00:00 +0000\r\n"), std::string::npos);
  Message plain{"to@example.com", "Verify", "only text", "", ""};
  std::string p = render(c, plain, 0);
  EXPECT_EQ(p.find("List-Unsubscribe"), std::string::npos);
  EXPECT_NE(p.find("Content-Type: text/plain; charset=utf-8"), std::string::npos);
  EXPECT_NE(render(c, {"t@example.com", "Grüße", "x", "", ""}, 0).find("Subject: =?UTF-8?B?R3LDvMOfZQ==?="), std::string::npos);
}

TEST(LinkSigner, SignsPurposeAndFields) {
  LinkSigner a("secret"), b("secret"), other("another");
  std::string sig = a.sign("unsubscribe", {"x@example.com"});
  EXPECT_EQ(sig.size(), 64u);
  EXPECT_TRUE(b.verify("unsubscribe", {"x@example.com"}, sig));
  EXPECT_FALSE(other.verify("unsubscribe", {"x@example.com"}, sig));
  EXPECT_FALSE(a.verify("confirm", {"x@example.com"}, sig));
  EXPECT_FALSE(a.verify("unsubscribe", {"y@example.com"}, sig));
  EXPECT_FALSE(a.verify("unsubscribe", {"x@example.com"}, sig.substr(1)));
  EXPECT_NE(a.sign("p", {"ab", "c"}), a.sign("p", {"a", "bc"}));
  MailConfig c;
  c.base_url = "https://r.example";
  EXPECT_EQ(unsubscribe_url(c, a, "x+y@example.com"), "https://r.example/unsubscribe?email=x%2By%40example.com&sig=" + sig.substr(0, 0) +
                                                         a.sign("unsubscribe", {"x+y@example.com"}));
}

TEST(Sender, BacksOffDoublingToAnHour) {
  EXPECT_EQ(Sender::backoff(30, 1), 30);
  EXPECT_EQ(Sender::backoff(30, 2), 60);
  EXPECT_EQ(Sender::backoff(30, 5), 480);
  EXPECT_EQ(Sender::backoff(30, 50), 3600);
}

// Mock loops (issue 36): design rounds scored 2,2,2,1 and 3,2,2,1 (7 + 8 = 15 over 8 lines: 1.875) against
// a coding round at 3,3,3,3 (3.0) and an unfinished rehearsal (ignored): design is the weakest,
// offered with the loop it was last rehearsed in.
TEST(WeeklyRehearsal, OffersTheWeakestRoundType) {
  auto round = [](const char* kind, std::vector<int> s) {
    return nlohmann::json{{"kind", kind},
                          {"scores", {{"technical depth", s[0]}, {"problem solving", s[1]}, {"communication", s[2]}, {"numbers right", s[3]}}}};
  };
  store::Rehearsal a, b, open;
  a.source = "track:serving";
  a.finished_at = 10;
  a.report_json = nlohmann::json{{"rounds", {round("design", {2, 2, 2, 1}), round("coding", {3, 3, 3, 3})}}}.dump();
  b.source = "company:meta";
  b.finished_at = 20;
  b.report_json = nlohmann::json{{"rounds", {round("design", {3, 2, 2, 1}), nlohmann::json{{"kind", "question"}, {"scores", nullptr}}}}}.dump();
  open.source = "company:groq";
  open.report_json = nlohmann::json{{"rounds", {round("question", {1, 1, 1, 1})}}}.dump();
  auto w = weakest_round_type({a, b, open});
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->kind, "design");
  EXPECT_DOUBLE_EQ(w->mean, 15.0 / 8.0);
  EXPECT_EQ(w->rounds, 2);
  EXPECT_EQ(w->source, "company:meta");
  EXPECT_FALSE(weakest_round_type({open}).has_value());
  Message m;
  m.text = "body\n\n-- \nfooter\n";
  m.html = "<p>body</p><hr><p>footer</p>";
  add_rehearsal_offer(m, *w, "https://ridge.test");
  EXPECT_NE(m.text.find("weakest round type in your rehearsals is design (a mean of 1.9 of 4 over 2 rounds)"), std::string::npos);
  EXPECT_LT(m.text.find("https://ridge.test/rehearse?company=meta"), m.text.find("-- "));
  EXPECT_LT(m.html.find("id=\"rehearsal-offer\""), m.html.find("<hr>"));
}

}  // namespace
}  // namespace ridge::mail
