// SubscriptionService: double opt-in, signed links and the mail budgets, over a real SQLite
// store and a fake clock. Mail is only queued here; the queue is read back from the store.
#include "web/services/subscription_service.h"

#include "web/services/test_fixture.h"

namespace ridge::web::services {
namespace {

class Subscriptions : public testing::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    service_ = std::make_unique<SubscriptionService>(*store_, mail_, signer_, clock_, by_address_, by_recipient_, [this] { ++wakes_; });
  }
  int64_t queued() const {
    auto counts = store_->mail_counts();
    EXPECT_TRUE(counts.ok());
    return counts.ok() ? counts->waiting : -1;
  }
  std::string expires() const { return std::to_string(clock_.now() + kConfirmSeconds); }
  std::string confirm_sig(const std::string& email, const std::string& x) const { return signer_.sign("confirm", {email, x}); }

  mail::MailConfig mail_;
  mail::LinkSigner signer_{"service test secret"};
  // The App's budgets: 5 per address then one a minute; 3 per recipient then one per 10 min.
  account::RateLimiter by_address_{clock_, 5, 1.0 / 60};
  account::RateLimiter by_recipient_{clock_, 3, 1.0 / 600};
  int wakes_ = 0;
  std::unique_ptr<SubscriptionService> service_;
};

TEST_F(Subscriptions, ASubscriptionQueuesAConfirmationWithinTheRecipientsBudget) {
  ASSERT_TRUE(service_->subscribe("reader@example.com", "10.0.0.1").ok());
  EXPECT_EQ(queued(), 1);
  EXPECT_EQ(wakes_, 1);
  // Asked again from other addresses: the same answer, but the inbox gets three mails at most.
  for (int i = 2; i <= 5; ++i) ASSERT_TRUE(service_->subscribe("reader@example.com", "10.0.0." + std::to_string(i)).ok());
  EXPECT_EQ(queued(), 3);
}

TEST_F(Subscriptions, AnAddressThatAsksTooOftenIsLimitedAndABadEmailIsNamed) {
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(service_->subscribe("r" + std::to_string(i) + "@example.com", "10.0.0.9").ok());
  auto limited = service_->subscribe("r9@example.com", "10.0.0.9");
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().kind, Failure::Kind::kLimited);
  EXPECT_GT(limited.error().retry_after, 0);
  auto bad = service_->subscribe("not-an-address", "10.0.0.10");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().errors.at(0).field, "email");
  EXPECT_EQ(bad.error().errors.at(0).value, "not-an-address");
}

TEST_F(Subscriptions, AConfirmationLinkWorksUnchangedAndUnexpiredOnly) {
  ASSERT_TRUE(service_->subscribe("reader@example.com", "10.0.0.1").ok());
  std::string x = expires(), sig = confirm_sig("reader@example.com", x);
  auto changed = service_->confirm("other@example.com", x, sig);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.error().errors.at(0).field, "sig");
  clock_.advance(kConfirmSeconds + 1);
  auto expired = service_->confirm("reader@example.com", x, sig);
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().errors.at(0).field, "expires");
  auto confirmed = store_->confirmed_subscriptions();
  ASSERT_TRUE(confirmed.ok());
  EXPECT_TRUE(confirmed->empty());
}

TEST_F(Subscriptions, ConfirmThenUnsubscribeAndTheOldLinkNoLongerConfirms) {
  ASSERT_TRUE(service_->subscribe("reader@example.com", "10.0.0.1").ok());
  std::string x = expires(), sig = confirm_sig("reader@example.com", x);
  ASSERT_TRUE(service_->confirm("reader@example.com", x, sig).ok());
  auto confirmed = store_->confirmed_subscriptions();
  ASSERT_TRUE(confirmed.ok());
  ASSERT_EQ(confirmed->size(), 1u);
  EXPECT_FALSE(service_->unsubscribe("reader@example.com", "forged").ok());
  ASSERT_TRUE(service_->unsubscribe("reader@example.com", signer_.sign("unsubscribe", {"reader@example.com"})).ok());
  auto again = service_->confirm("reader@example.com", x, sig);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, Failure::Kind::kConflict);
  confirmed = store_->confirmed_subscriptions();
  ASSERT_TRUE(confirmed.ok());
  EXPECT_TRUE(confirmed->empty());
}

}  // namespace
}  // namespace ridge::web::services
