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
    service_ = std::make_unique<SubscriptionService>(*store_, mail_, signer_, clock_, [this] { ++wakes_; });
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

// Two servers on one database (two services over one store) share the budgets: before, each
// process kept its own, so N servers let an address cause N times the mail.
TEST_F(Subscriptions, TwoServersOnOneStoreShareTheMailBudgets) {
  SubscriptionService other(*store_, mail_, signer_, clock_, [] {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(service_->subscribe("a" + std::to_string(i) + "@example.com", "10.0.0.7").ok());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(other.subscribe("b" + std::to_string(i) + "@example.com", "10.0.0.7").ok());
  auto limited = other.subscribe("b9@example.com", "10.0.0.7");
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().kind, Failure::Kind::kLimited);
  // The recipient's budget too: three confirmations, whichever server was asked.
  for (int i = 0; i < 4; ++i) {
    SubscriptionService& s = i % 2 ? other : *service_;
    ASSERT_TRUE(s.subscribe("inbox@example.com", "10.0.1." + std::to_string(i)).ok());
  }
  EXPECT_EQ(queued(), 5 + 3);
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
