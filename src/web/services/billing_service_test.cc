// BillingService: the signed webhook and its grant, over a real SQLite store and a fake clock.
#include "web/services/billing_service.h"

#include <nlohmann/json.hpp>

#include "web/services/test_fixture.h"

namespace ridge::web::services {
namespace {

constexpr const char* kSecret = "whsec_service_test";

class Billing : public testing::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    config_.webhook_secret = kSecret;
    config_.months = 6;
    service_ = std::make_unique<BillingService>(config_, store_.get(), clock_);
    user_ = new_user();
    auto u = store_->get_user(user_);
    ASSERT_TRUE(u.ok() && u->has_value());
    account_ = (*u)->account_id;
  }
  std::string event(const std::string& id, const std::string& account, const std::string& status = "paid") const {
    return nlohmann::json{{"id", id}, {"type", "checkout.session.completed"},
                          {"data", {{"object", {{"client_reference_id", account}, {"payment_status", status}}}}}}.dump();
  }
  Outcome<WebhookResult> deliver(const std::string& body) const {
    return service_->webhook(billing::stripe_signature_header(body, kSecret, clock_.now()), body);
  }
  billing::BillingConfig config_;
  std::unique_ptr<BillingService> service_;
  int64_t user_ = 0;
  std::string account_;
};

TEST_F(Billing, APaidEventGrantsOnceAndItsReplayGrantsNothing) {
  auto before = service_->access_until(user_);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(*before, 0);
  auto first = deliver(event("evt_1", account_));
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_TRUE(first->granted);
  auto until = service_->access_until(user_);
  ASSERT_TRUE(until.ok());
  EXPECT_GT(*until, clock_.now() + 150 * 86400) << "about six months";
  clock_.advance(60);
  auto replay = deliver(event("evt_1", account_));
  ASSERT_TRUE(replay.ok());
  EXPECT_FALSE(replay->granted);
  auto after = service_->access_until(user_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *until) << "the replayed event extends nothing";
}

TEST_F(Billing, AForgedOrStaleSignatureIsRefusedNamingTheHeader) {
  std::string body = event("evt_2", account_);
  auto forged = service_->webhook(billing::stripe_signature_header(body, "whsec_someone_else", clock_.now()), body);
  ASSERT_FALSE(forged.ok());
  EXPECT_EQ(forged.error().kind, Failure::Kind::kInvalid);
  EXPECT_EQ(forged.error().errors.at(0).field, "Stripe-Signature");
  auto stale = service_->webhook(billing::stripe_signature_header(body, kSecret, clock_.now() - 3600), body);
  ASSERT_FALSE(stale.ok());
  auto until = service_->access_until(user_);
  ASSERT_TRUE(until.ok());
  EXPECT_EQ(*until, 0);
}

TEST_F(Billing, UnpaidUnknownAndOtherEventsGrantNothing) {
  auto pending = deliver(event("evt_3", account_, "unpaid"));
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->reason, "not paid yet");
  auto stranger = deliver(event("evt_4", "acct_nobody"));
  ASSERT_TRUE(stranger.ok());
  EXPECT_EQ(stranger->reason, "unknown account");
  std::string other = nlohmann::json{{"id", "evt_5"}, {"type", "invoice.paid"}}.dump();
  auto ignored = deliver(other);
  ASSERT_TRUE(ignored.ok());
  EXPECT_EQ(ignored->ignored_type, "invoice.paid");
  auto missing = deliver(nlohmann::json{{"id", "evt_6"}, {"type", "checkout.session.completed"}}.dump());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().errors.at(0).field, "data.object.client_reference_id");
  auto until = service_->access_until(user_);
  ASSERT_TRUE(until.ok());
  EXPECT_EQ(*until, 0);
}

}  // namespace
}  // namespace ridge::web::services
