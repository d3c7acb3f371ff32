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
  // A Checkout Session event as Stripe sends it for this site's price (USD 25.00, one payment).
  std::string event(const std::string& id, const std::string& account, const std::string& status = "paid",
                    const std::string& type = "checkout.session.completed", int64_t amount = 2500,
                    const std::string& currency = "usd", const std::string& mode = "payment") const {
    return nlohmann::json{{"id", id}, {"type", type},
                          {"data", {{"object", {{"client_reference_id", account}, {"payment_status", status},
                                                {"amount_total", amount}, {"currency", currency}, {"mode", mode},
                                                {"payment_intent", "pi_" + id}}}}}}.dump();
  }
  // A charge.refunded (in full or not) or charge.dispute.created event about the payment `intent`.
  std::string taken_back(const std::string& id, const std::string& type, const std::string& intent, bool full = true) const {
    nlohmann::json object = {{"payment_intent", intent}};
    if (type == "charge.refunded") object["refunded"] = full;
    return nlohmann::json{{"id", id}, {"type", type}, {"data", {{"object", object}}}}.dump();
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
  EXPECT_EQ(missing.error().errors.at(0).field, "data.object");
  auto no_account = deliver(nlohmann::json{{"id", "evt_7"}, {"type", "checkout.session.completed"},
                                           {"data", {{"object", {{"payment_status", "paid"}}}}}}.dump());
  ASSERT_FALSE(no_account.ok());
  EXPECT_EQ(no_account.error().errors.at(0).field, "data.object.client_reference_id");
  auto until = service_->access_until(user_);
  ASSERT_TRUE(until.ok());
  EXPECT_EQ(*until, 0);
}

// Issue 28: a signed event grants only for what this site sells: a 1-cent EUR session (or a
// subscription-mode one) once bought six months.
TEST_F(Billing, Finding28_AnEventForAnotherAmountCurrencyOrModeGrantsNothing) {
  for (const auto& body : {event("evt_cent", account_, "paid", "checkout.session.completed", 1, "eur"),
                           event("evt_low", account_, "paid", "checkout.session.completed", 2499),
                           event("evt_eur", account_, "paid", "checkout.session.completed", 2500, "eur"),
                           event("evt_sub", account_, "paid", "checkout.session.completed", 2500, "usd", "subscription")}) {
    auto r = deliver(body);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_FALSE(r->granted);
    EXPECT_NE(r->reason.find("USD 25.00"), std::string::npos) << r->reason;
  }
  EXPECT_EQ(*service_->access_until(user_), 0);
}

// Issue 28: a bank-transfer payer's money arrives later, as checkout.session.async_payment_succeeded.
TEST_F(Billing, Finding28_AnAsynchronousPaymentGrantsWhenItSucceeds) {
  auto pending = deliver(event("evt_async_1", account_, "unpaid"));
  ASSERT_TRUE(pending.ok());
  EXPECT_FALSE(pending->granted);
  EXPECT_EQ(pending->reason, "not paid yet");
  auto paid = deliver(event("evt_async_2", account_, "paid", "checkout.session.async_payment_succeeded"));
  ASSERT_TRUE(paid.ok()) << paid.error().message();
  EXPECT_TRUE(paid->granted);
  EXPECT_GT(*service_->access_until(user_), clock_.now() + 150 * 86400);
}

// Issue 28: a refund in full or a dispute takes back what the payment bought, once; a partial
// refund keeps access; another payment's months stay.
TEST_F(Billing, Finding28_ARefundOrDisputeTakesBackThePaymentsMonthsOnce) {
  ASSERT_TRUE(deliver(event("evt_pay_1", account_))->granted);
  const int64_t one = *service_->access_until(user_);
  ASSERT_TRUE(deliver(event("evt_pay_2", account_))->granted);
  const int64_t two = *service_->access_until(user_);
  ASSERT_GT(two, one);

  auto partial = deliver(taken_back("evt_ref_0", "charge.refunded", "pi_evt_pay_2", false));
  ASSERT_TRUE(partial.ok());
  EXPECT_FALSE(partial->revoked);
  EXPECT_EQ(*service_->access_until(user_), two);

  auto refund = deliver(taken_back("evt_ref_1", "charge.refunded", "pi_evt_pay_2"));
  ASSERT_TRUE(refund.ok()) << refund.error().message();
  EXPECT_TRUE(refund->revoked);
  EXPECT_EQ(*service_->access_until(user_), one) << "six months taken back, the first payment's stay";
  // The same refund again, and a dispute of the same payment: nothing more is taken.
  EXPECT_FALSE(deliver(taken_back("evt_ref_1", "charge.refunded", "pi_evt_pay_2"))->revoked);
  EXPECT_FALSE(deliver(taken_back("evt_dis_1", "charge.dispute.created", "pi_evt_pay_2"))->revoked);
  EXPECT_EQ(*service_->access_until(user_), one);
  // A dispute of the first payment takes back the rest.
  EXPECT_TRUE(deliver(taken_back("evt_dis_2", "charge.dispute.created", "pi_evt_pay_1"))->revoked);
  EXPECT_LE(*service_->access_until(user_), clock_.now() + 86400);
  // A payment ridge never granted for changes nothing.
  auto unknown = deliver(taken_back("evt_ref_9", "charge.refunded", "pi_nobody"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->revoked);
}

// Issue 28: a signed event whose data is not an object was a JSON type error (500).
TEST_F(Billing, Finding28_ASignedEventWithDataOfAnotherTypeIsRefusedNamingTheField) {
  for (const char* body : {R"({"id": "evt_x1", "type": "checkout.session.completed", "data": "a string"})",
                           R"({"id": "evt_x2", "type": "checkout.session.completed", "data": {"object": 7}})",
                           R"({"id": "evt_x3", "type": "checkout.session.completed"})",
                           R"({"id": "evt_x4", "type": "charge.refunded", "data": [1, 2]})"}) {
    auto r = deliver(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().kind, Failure::Kind::kInvalid);
    EXPECT_EQ(r.error().errors.at(0).field, "data.object") << body;
  }
}

}  // namespace
}  // namespace ridge::web::services
