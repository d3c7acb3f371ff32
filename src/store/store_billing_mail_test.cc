// The store suite (store_test_fixture.h), billing and mail: grants, payment events and
// refunds, the mail queue, subscriptions and the weekly mail queued once between processes.
#include "store/store_test_fixture.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ridge::store {
namespace {

TEST(AddMonths, ClampsTheDayAndCrossesYears) {
  // 2026-01-31 00:00 UTC + 1 month = 2026-02-28; + 6 months from 2026-08-15 = 2027-02-15.
  EXPECT_EQ(add_months_utc(1769817600, 1), 1772236800);
  EXPECT_EQ(add_months_utc(1786752000, 6), 1802649600);
  EXPECT_EQ(add_months_utc(1786752000, 0), 1786752000);
}

TEST_P(StoreSuite, GrantsExtendFromTheLaterOfNowAndTheEnd) {
  int64_t a = user("g@example.com");
  const int64_t now = 1786752000;  // 2026-08-15
  EXPECT_EQ(*store_->access_until(a), 0);
  EXPECT_EQ(*store_->grant(a, 6, now), add_months_utc(now, 6));
  // A second grant before the end extends from the end, not from now.
  EXPECT_EQ(*store_->grant(a, 6, now + 86400), add_months_utc(add_months_utc(now, 6), 6));
  ASSERT_TRUE(store_->revoke(a).ok());
  EXPECT_EQ(*store_->access_until(a), 0);
  // After an end in the past, from now.
  ASSERT_TRUE(store_->grant(a, 1, now).ok());
  int64_t later = now + 400 * 86400;
  EXPECT_EQ(*store_->grant(a, 1, later), add_months_utc(later, 1));
}

TEST_P(StoreSuite, AnEventGrantsOnce) {
  int64_t a = user("ev@example.com");
  const std::string ev = "evt_" + std::to_string(::getpid()) + "_";
  const int64_t now = 1786752000;
  EXPECT_TRUE(*store_->grant_for_event(ev + "1", a, 6, now));
  EXPECT_FALSE(*store_->grant_for_event(ev + "1", a, 6, now + 10));  // replay: nothing
  EXPECT_EQ(*store_->access_until(a), add_months_utc(now, 6));
  EXPECT_TRUE(*store_->grant_for_event(ev + "2", a, 6, now + 20));
  EXPECT_EQ(*store_->access_until(a), add_months_utc(add_months_utc(now, 6), 6));
  // An event for a user who is gone records nothing and grants nothing.
  EXPECT_FALSE(store_->grant_for_event(ev + "3", 987654, 6, now).ok());
  EXPECT_TRUE(*store_->grant_for_event(ev + "3", a, 6, now));
}

// Issue 28: a refund or dispute takes back the months its payment granted, once per payment,
// in the store every server shares.
TEST_P(StoreSuite, Finding28_ARefundTakesBackItsPaymentsMonthsOnce) {
  int64_t a = user("refund@example.com");
  const std::string ev = "evt_r" + std::to_string(::getpid()) + "_";
  const std::string pi = "pi_r" + std::to_string(::getpid()) + "_";
  const int64_t now = 1786752000;
  ASSERT_TRUE(*store_->grant_for_event(ev + "1", a, 6, now, pi + "1"));
  ASSERT_TRUE(*store_->grant_for_event(ev + "2", a, 6, now, pi + "2"));
  const int64_t twelve = add_months_utc(add_months_utc(now, 6), 6);
  EXPECT_EQ(*store_->access_until(a), twelve);
  auto revoked = store_->revoke_for_payment(ev + "r1", pi + "2", now + 60);
  ASSERT_TRUE(revoked.ok()) << revoked.error().detail;
  ASSERT_TRUE(revoked->has_value());
  EXPECT_EQ(**revoked, add_months_utc(twelve, -6));
  EXPECT_EQ(*store_->access_until(a), add_months_utc(twelve, -6));
  // The same event again, and another event about the same payment: nothing more.
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r1", pi + "2", now + 70)->has_value());
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r2", pi + "2", now + 80)->has_value());
  EXPECT_EQ(*store_->access_until(a), add_months_utc(twelve, -6));
  // A payment never granted for, and an empty reference, change nothing.
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r3", pi + "unknown", now)->has_value());
  EXPECT_FALSE(store_->revoke_for_payment(ev + "r4", "", now)->has_value());
}

TEST_P(StoreSuite, MailQueueLeasesRetriesAndCounts) {
  if (GetParam() == "postgresql") {
    auto old = store_->claim_mail(1LL << 40, 0, 100000);  // drain what earlier cases left
    ASSERT_TRUE(old.ok());
    for (const auto& m : *old) ASSERT_TRUE(store_->mail_sent(m.id, 1).ok());
  }
  auto base = *store_->mail_counts();
  auto id = store_->enqueue_mail("to@example.com", "Subject: hi\r\n\r\nbody\r\n", 100);
  ASSERT_TRUE(id.ok());
  auto first = store_->claim_mail(100, 60, 10);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].recipient, "to@example.com");
  EXPECT_EQ((*first)[0].attempts, 0);
  EXPECT_TRUE(store_->claim_mail(100, 60, 10)->empty());  // leased
  ASSERT_TRUE(store_->mail_failed(*id, 130, "connection refused").ok());
  EXPECT_TRUE(store_->claim_mail(129, 60, 10)->empty());  // backing off
  auto again = store_->claim_mail(130, 60, 10);
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].attempts, 1);
  ASSERT_TRUE(store_->mail_sent(*id, 131).ok());
  EXPECT_TRUE(store_->claim_mail(10000, 60, 10)->empty());
  auto counts = *store_->mail_counts();
  EXPECT_EQ(counts.sent - base.sent, 1);
  EXPECT_EQ(counts.waiting - base.waiting, 0);
  EXPECT_EQ(counts.failed_attempts - base.failed_attempts, 1);
}

TEST_P(StoreSuite, SubscriptionsAndTheWeeklyRecord) {
  std::string email = "sub-" + GetParam() + "-" + std::to_string(::getpid()) + "@example.com";
  auto sub = store_->subscribe(email, 10);
  ASSERT_TRUE(sub.ok()) << sub.error().detail;
  EXPECT_EQ(sub->status, "pending");
  EXPECT_EQ(store_->subscribe(email, 11)->id, sub->id);  // same row
  EXPECT_TRUE(*store_->confirm_subscription(email, 12));
  EXPECT_EQ(store_->subscribe(email, 13)->status, "confirmed");  // subscribing again changes nothing
  auto confirmed = *store_->confirmed_subscriptions();
  EXPECT_TRUE(std::any_of(confirmed.begin(), confirmed.end(), [&](const Subscription& s) { return s.email == email; }));
  EXPECT_TRUE(*store_->queue_weekly("2026-W49", sub->id, "q1", email, "msg", 20));
  EXPECT_FALSE(*store_->queue_weekly("2026-W49", sub->id, "q2", email, "msg", 21));  // once per week
  EXPECT_TRUE(*store_->queue_weekly("2026-W50", sub->id, "q2", email, "msg", 22));
  EXPECT_EQ(*store_->weekly_slugs_sent(sub->id), (std::vector<std::string>{"q1", "q2"}));
  EXPECT_TRUE(*store_->unsubscribe(email, 30));
  EXPECT_EQ((*store_->find_subscription(email))->status, "unsubscribed");
  EXPECT_FALSE(*store_->confirm_subscription(email, 31));  // an old link cannot resubscribe
  EXPECT_FALSE(*store_->unsubscribe("nobody-" + email, 32));
  EXPECT_EQ(store_->subscribe(email, 33)->status, "pending");
}

// Two stores on one database stand for two `ridge mail weekly` processes: for each
// subscription, exactly one of them queues the week's mail.
TEST_P(StoreSuite, TwoProcessesQueueTheWeekOnceBetweenThem) {
  std::string url = GetParam() == "sqlite" ? "sqlite:" + path_.string() : pg_url();
  auto other = open_store(url);
  ASSERT_TRUE(other.ok()) << other.error().detail;
  std::string week = "2030-W" + std::to_string(::getpid() % 50 + 1) + "-" + GetParam();
  std::vector<int64_t> subs;
  for (int i = 0; i < 20; ++i) {
    auto sub = store_->subscribe("race" + std::to_string(i) + "-" + std::to_string(::getpid()) + "@example.com", 1);
    ASSERT_TRUE(sub.ok());
    ASSERT_TRUE(*store_->confirm_subscription(sub->email, 2));
    subs.push_back(sub->id);
  }
  std::atomic<int> queued{0}, errors{0};
  auto run = [&](Store* s) {
    for (int64_t id : subs) {
      auto r = s->queue_weekly(week, id, "q", "x@example.com", "msg", 3);
      if (!r.ok()) ++errors;
      else if (*r) ++queued;
    }
  };
  std::thread a(run, store_.get()), b(run, other->get());
  a.join();
  b.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(queued.load(), 20);
}

}  // namespace
}  // namespace ridge::store
