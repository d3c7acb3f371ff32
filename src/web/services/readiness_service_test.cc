// ReadinessService: the signed, single-use check over a real SQLite store and a fake clock.
#include "web/services/readiness_service.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "calc/test_catalog.h"
#include "calc/units.h"
#include "web/services/test_fixture.h"

namespace ridge::web::services {
namespace {

class Readiness : public testing::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    service_ = make("site secret");
    user_ = new_user();
  }
  std::unique_ptr<ReadinessService> make(const std::string& secret) {
    return std::make_unique<ReadinessService>(bank_, calc::testing::registry(), calc::testing::real_catalog(), *store_, clock_,
                                              random_, secret);
  }
  // Every drill answered exactly and every question "had it".
  static std::function<std::string(int)> perfect(const StartedCheck& c) {
    std::map<int, std::string> answers;
    for (const auto& item : c.items) {
      answers[item.number] = item.drill ? calc::format_quantity(item.drill->expected, item.drill->unit, 6) : "1";
    }
    return [answers](int n) { return answers.count(n) ? answers.at(n) : std::string(); };
  }
  std::unique_ptr<ReadinessService> service_;
  int64_t user_ = 0;
};

TEST_F(Readiness, ACheckOfTheTrackScoresPerTopicAndIsSaved) {
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->deadline, testing::kStart + kReadinessSeconds);
  int drills = 0, questions = 0;
  for (const auto& item : check->items) (item.drill ? drills : questions) += 1;
  EXPECT_GT(drills, 0);
  EXPECT_EQ(questions, 4) << "the track's four questions (fewer than five in this bank)";
  clock_.advance(300);
  auto scored = service_->finish(user_, check->payload, check->mac, perfect(*check));
  ASSERT_TRUE(scored.ok()) << scored.error().message();
  EXPECT_FALSE(scored->late);
  EXPECT_DOUBLE_EQ(scored->score, 1.0);
  EXPECT_EQ(static_cast<int>(scored->drills.size()), drills);
  auto history = store_->readiness_history(user_);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ(history->front().track, "serving");
}

TEST_F(Readiness, AnUnknownTrackNamesTheBanksTracks) {
  auto check = service_->start(user_, "astrology");
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.error().errors.at(0).field, "track");
  EXPECT_EQ(check.error().message(), "Choose a track: serving.");
}

TEST_F(Readiness, AForgedPayloadOrMacIsRefused) {
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  // Another track, the same MAC: the payload no longer matches what was signed.
  std::string forged = check->payload;
  forged.replace(0, 7, "kernels");
  auto altered = service_->finish(user_, forged, check->mac, perfect(*check));
  ASSERT_FALSE(altered.ok());
  EXPECT_EQ(altered.error().kind, Failure::Kind::kInvalid);
  EXPECT_EQ(altered.error().errors.at(0).field, "mac");
  // A check signed by a server with another secret.
  auto other = make("another site's secret");
  auto theirs = other->start(user_, "serving");
  ASSERT_TRUE(theirs.ok());
  EXPECT_FALSE(service_->finish(user_, theirs->payload, theirs->mac, perfect(*theirs)).ok());
  // The same secret on another server accepts it: the key comes from the secret alone.
  auto twin = make("site secret");
  EXPECT_EQ(twin->mac(check->payload), check->mac);
  auto history = store_->readiness_history(user_);
  ASSERT_TRUE(history.ok());
  EXPECT_TRUE(history->empty());
}

TEST_F(Readiness, ACheckIsBoundToItsAccountAndUsedOnce) {
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  int64_t other = new_user("b@example.com");
  auto stolen = service_->finish(other, check->payload, check->mac, perfect(*check));
  ASSERT_FALSE(stolen.ok());
  EXPECT_EQ(stolen.error().kind, Failure::Kind::kForbidden);
  ASSERT_TRUE(service_->finish(user_, check->payload, check->mac, perfect(*check)).ok());
  auto replay = service_->finish(user_, check->payload, check->mac, perfect(*check));
  ASSERT_FALSE(replay.ok());
  EXPECT_EQ(replay.error().kind, Failure::Kind::kConflict);
  auto history = store_->readiness_history(user_);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 1u) << "the replay is not recorded twice";
}

TEST_F(Readiness, AnswersAfterTheFifteenMinutesCountAsMissed) {
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  clock_.advance(kReadinessSeconds + 61);  // past the minute of grace
  auto scored = service_->finish(user_, check->payload, check->mac, perfect(*check));
  ASSERT_TRUE(scored.ok());
  EXPECT_TRUE(scored->late);
  EXPECT_DOUBLE_EQ(scored->score, 0.0);
}

// Issue 28: a self-grade of "nan" was stored as "NaN%" (PostgreSQL) or failed the save after the
// drills were recorded (SQLite), recording them again on each retry.
TEST_F(Readiness, Finding28_ANonFiniteSelfGradeIsRefusedAndRecordsNothing) {
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  int question = 0;
  for (const auto& item : check->items) {
    if (!item.drill) question = item.number;
  }
  ASSERT_GT(question, 0);
  auto good = perfect(*check);
  for (const char* bad : {"nan", "inf", "-inf", "1e999", "2", "-0.5", "0.5x", "NaN"}) {
    auto r = service_->finish(user_, check->payload, check->mac,
                              [&](int n) { return n == question ? std::string(bad) : good(n); });
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, Failure::Kind::kInvalid) << bad;
    EXPECT_EQ(r.error().errors.at(0).field, "a" + std::to_string(question)) << bad;
  }
  EXPECT_EQ(store_->drills(user_)->size(), 0u) << "a refused submission records no drill";
  EXPECT_EQ(store_->readiness_history(user_)->size(), 0u);
  auto fixed = service_->finish(user_, check->payload, check->mac, good);
  ASSERT_TRUE(fixed.ok());
  EXPECT_TRUE(std::isfinite(fixed->score));
  // One record per drill of the check (the test track's one drill topic has four templates, and
  // a check repeats none: issue 33).
  size_t drill_items = 0;
  for (const auto& item : check->items) drill_items += item.drill.has_value();
  EXPECT_EQ(store_->drills(user_)->size(), drill_items) << "recorded once, by the submission that counted";
  EXPECT_GT(drill_items, 0u);
}

// Issue 28: single use held per process only; two services (two servers) on one store each
// accepted the same check. The store now keeps one result per user and nonce.
TEST_F(Readiness, Finding28_ACheckIsUsedOnceAcrossServersOnOneStore) {
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  auto second_server = make("site secret");
  ASSERT_TRUE(service_->finish(user_, check->payload, check->mac, perfect(*check)).ok());
  auto elsewhere = second_server->finish(user_, check->payload, check->mac, perfect(*check));
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_EQ(elsewhere.error().kind, Failure::Kind::kConflict);
  EXPECT_EQ(store_->readiness_history(user_)->size(), 1u);
}

// Issue 33 item 3: a refresh or leaving and coming back lost the check (it lived only in the
// page). The open check is kept in the store: the same items and deadline come back on a
// refresh, on a start posted again, on another server and after a restart, until it is
// submitted or its time is up.
TEST_F(Readiness, Finding33_ARefreshResumesTheSameCheckWithTheTimeLeft) {
  EXPECT_FALSE(service_->resume(user_)->has_value());
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->resumed);
  clock_.advance(300);
  auto again = service_->resume(user_);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_TRUE((*again)->resumed);
  EXPECT_EQ((*again)->payload, check->payload);
  EXPECT_EQ((*again)->deadline, testing::kStart + kReadinessSeconds) << "the clock kept running: 600 s left, not 900";
  ASSERT_EQ((*again)->items.size(), check->items.size());
  for (size_t i = 0; i < check->items.size(); ++i) {
    ASSERT_EQ((*again)->items[i].drill.has_value(), check->items[i].drill.has_value());
    if (check->items[i].drill) EXPECT_EQ((*again)->items[i].drill->prompt, check->items[i].drill->prompt);
    else EXPECT_EQ((*again)->items[i].question, check->items[i].question);
  }
  // The start form posted again (a refresh of its answer) does not reset the clock.
  auto restarted = service_->start(user_, "serving");
  ASSERT_TRUE(restarted.ok());
  EXPECT_TRUE(restarted->resumed);
  EXPECT_EQ(restarted->payload, check->payload);
  // Another server with the site's secret (or this one after a restart) resumes it too.
  auto elsewhere = make("site secret")->resume(user_);
  ASSERT_TRUE(elsewhere.ok() && elsewhere->has_value());
  EXPECT_EQ((*elsewhere)->payload, check->payload);
  // Submitted: over everywhere.
  ASSERT_TRUE(service_->finish(user_, check->payload, check->mac, perfect(*check)).ok());
  EXPECT_FALSE(service_->resume(user_)->has_value());
  EXPECT_FALSE(make("site secret")->resume(user_)->has_value());
}

TEST_F(Readiness, Finding33_ACheckWhoseTimeIsUpIsNotResumed) {
  auto check = service_->start(user_, "serving");
  ASSERT_TRUE(check.ok());
  clock_.advance(kReadinessSeconds - 1);
  EXPECT_TRUE(service_->resume(user_)->has_value()) << "one second left";
  clock_.advance(1);
  EXPECT_FALSE(service_->resume(user_)->has_value());
  auto fresh = service_->start(user_, "serving");
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->resumed);
  EXPECT_NE(fresh->payload, check->payload);
  ASSERT_TRUE(service_->abandon(user_).ok());
  EXPECT_FALSE(service_->resume(user_)->has_value());
}

// Issue 33 item 3: one check asked the same drill twice (two draws of a topic with few
// templates). Over 60 checks, no template appears twice in one.
TEST_F(Readiness, Finding33_ACheckNeverRepeatsADrill) {
  int most = 0;
  for (int run = 0; run < 60; ++run) {
    auto check = service_->start(user_, "serving");
    ASSERT_TRUE(check.ok());
    std::vector<std::string> templates;
    for (const auto& item : check->items) {
      if (!item.drill) continue;
      EXPECT_EQ(std::count(templates.begin(), templates.end(), item.drill->template_id), 0) << item.drill->template_id;
      templates.push_back(item.drill->template_id);
    }
    most = std::max(most, static_cast<int>(templates.size()));
    ASSERT_TRUE(service_->abandon(user_).ok());
  }
  EXPECT_GE(most, 2) << "the track's topics have several templates: a check draws more than one";
}

}  // namespace
}  // namespace ridge::web::services
