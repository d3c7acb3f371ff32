// ReviewService over a real SQLite store and a fake clock: no HTTP.
#include "web/services/review_service.h"

#include <mutex>
#include <thread>

#include "web/services/test_fixture.h"

namespace ridge::web::services {
namespace {

class Reviews : public testing::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    service_ = std::make_unique<ReviewService>(bank_, *store_, clock_);
    user_ = new_user();
  }
  std::unique_ptr<ReviewService> service_;
  int64_t user_ = 0;
};

TEST_F(Reviews, RefusesAnUnknownSlugAndAGradeOutOfRangeNamingTheField) {
  auto slug = service_->grade(user_, 0.9, "no-such-question", 3);
  ASSERT_FALSE(slug.ok());
  EXPECT_EQ(slug.error().kind, Failure::Kind::kInvalid);
  EXPECT_EQ(slug.error().errors.at(0).field, "slug");
  EXPECT_EQ(slug.error().errors.at(0).value, "no-such-question");
  auto grade = service_->grade(user_, 0.9, "free-a", 5);
  ASSERT_FALSE(grade.ok());
  EXPECT_EQ(grade.error().errors.at(0).field, "grade");
  EXPECT_EQ(grade.error().errors.at(0).value, "5");
  EXPECT_EQ(grade.error().errors.at(0).accepted, "1, 2, 3, 4");
  auto cards = store_->cards(user_);
  ASSERT_TRUE(cards.ok());
  EXPECT_TRUE(cards->empty()) << "a refused grade writes nothing";
}

TEST_F(Reviews, ANewCardGradedGoodComesBackInTenMinutesThenByFsrs) {
  auto first = service_->grade(user_, 0.9, "free-a", 3);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->due_in_seconds, 600);
  EXPECT_EQ(first->due, testing::kStart + 600);
  clock_.advance(600);
  auto second = service_->grade(user_, 0.9, "free-a", 3);
  ASSERT_TRUE(second.ok());
  EXPECT_GE(second->due_in_seconds, 86400) << "graduated from the learning steps";
  EXPECT_EQ(second->due_in_seconds % 86400, 0);
  auto card = store_->get_card(user_, "free-a");
  ASSERT_TRUE(card.ok() && card->has_value());
  EXPECT_EQ((*card)->reps, 2);
}

TEST_F(Reviews, AgainOnALearningCardIsOneMinute) {
  auto again = service_->grade(user_, 0.9, "free-a", 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->due_in_seconds, 60);
}

// The optimistic check: concurrent grades of one card each read, schedule and write only if
// the card is unchanged; the losers read again. Without the retry some grades would fail.
// Four writers (two tabs and a phone, and then some): eight writers on one card can starve
// one of them past the 21 attempts, a limit kept from before the service.
TEST_F(Reviews, ConcurrentGradesOfOneCardLoseNoUpdate) {
  constexpr int kThreads = 4, kEach = 5;
  std::atomic<int> failed{0};
  std::mutex mutex;
  std::string why;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        auto graded = service_->grade(user_, 0.9, "free-b", 3);
        if (!graded.ok()) {
          ++failed;
          std::lock_guard<std::mutex> lock(mutex);
          why = graded.error().detail;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0) << why;
  auto card = store_->get_card(user_, "free-b");
  ASSERT_TRUE(card.ok() && card->has_value());
  EXPECT_EQ((*card)->reps, kThreads * kEach);
  auto log = store_->reviews(user_);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(static_cast<int>(log->size()), kThreads * kEach);
}

TEST_F(Reviews, TheQueueOffersNewQuestionsUpToTheDailyLimitMustKnowFirst) {
  auto q = service_->queue(user_, 2, /*paid=*/false);
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q->fresh.size(), 2u);
  EXPECT_EQ(q->fresh[0]->slug, "free-b") << "must-know first; the paid one is not offered";
  EXPECT_EQ(q->fresh[1]->slug, "free-a");
  ASSERT_TRUE(service_->grade(user_, 0.9, "free-b", 3).ok());
  ASSERT_TRUE(service_->grade(user_, 0.9, "free-a", 3).ok());
  q = service_->queue(user_, 2, false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->introduced_today, 2);
  EXPECT_TRUE(q->fresh.empty()) << "two started today: the limit of 2 is used up";
  EXPECT_EQ(q->upcoming.size(), 2u);
  EXPECT_TRUE(q->due.empty());
  clock_.advance(86400);  // the next UTC day: the limit starts again, both cards are due
  q = service_->queue(user_, 2, false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->introduced_today, 0);
  EXPECT_EQ(q->due.size(), 2u);
  ASSERT_EQ(q->fresh.size(), 1u);
  EXPECT_EQ(q->fresh[0]->slug, "free-c");
}

TEST_F(Reviews, ThePaidQuestionIsOfferedWithAccess) {
  auto q = service_->queue(user_, 1, /*paid=*/true);
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q->fresh.size(), 1u);
  EXPECT_EQ(q->fresh[0]->slug, "free-b");  // bank order among must-know: free-b, then paid-a
  q = service_->queue(user_, 4, true);
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q->fresh.size(), 4u);
  EXPECT_EQ(q->fresh[1]->slug, "paid-a");
}

TEST_F(Reviews, ProgressMeasuresRetentionAsTheShareAboveAgainAndSumsTracks) {
  ASSERT_TRUE(service_->grade(user_, 0.9, "free-b", 1).ok());
  ASSERT_TRUE(service_->grade(user_, 0.9, "free-c", 3).ok());
  ASSERT_TRUE(store_->record_drill(user_, {"fit", "napkin-math", true, clock_.now()}).ok());
  ASSERT_TRUE(store_->record_drill(user_, {"fit", "napkin-math", false, clock_.now()}).ok());
  Progress p = service_->progress(user_, 0.9);
  const ProgressCounts& serving = p.topics.at("serving");
  EXPECT_EQ(serving.seen, 2);
  EXPECT_EQ(serving.reviews, 2);
  ASSERT_TRUE(serving.retention().has_value());
  EXPECT_DOUBLE_EQ(*serving.retention(), 0.5);
  EXPECT_FALSE(serving.drill_accuracy().has_value());
  const ProgressCounts& napkin = p.topics.at("napkin-math");
  EXPECT_FALSE(napkin.retention().has_value()) << "no reviews: no retention, not 0%";
  EXPECT_DOUBLE_EQ(*napkin.drill_accuracy(), 0.5);
  const ProgressCounts& track = p.tracks.at("serving");
  EXPECT_EQ(track.seen, 2);
  EXPECT_EQ(track.drills, 2);
  EXPECT_DOUBLE_EQ(*track.retention(), 0.5);
}

}  // namespace
}  // namespace ridge::web::services
