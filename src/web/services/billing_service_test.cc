// BillingService: the signed webhook and its grant, over a real SQLite store and a fake clock.
#include "web/services/billing_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

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
  Result<WebhookResult> deliver(const std::string& body) const {
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

// A payment provider that takes every connection and answers nothing for `hold`, then hangs
// up (a slow provider, as the finding's), on loopback.
class SlowProvider {
 public:
  explicit SlowProvider(std::chrono::milliseconds hold) : hold_(hold) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), len), 0);
    EXPECT_EQ(::listen(fd_, 64), 0);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        held_.emplace_back([c, this] {
          std::this_thread::sleep_for(hold_);
          ::close(c);
        });
      }
    });
  }
  ~SlowProvider() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    for (auto& t : held_) t.join();
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  std::chrono::milliseconds hold_;
  int fd_ = -1, port_ = 0;
  std::thread thread_;
  std::vector<std::thread> held_;
};

// Issue 28: checkout called the provider on a worker (20 s timeout) with no per-user limit: 20
// checkouts from one account against a slow provider held workers and /api/me timed out for 16 s.
TEST_F(Billing, Finding28_CheckoutsAgainstASlowProviderAreBoundedPerAccountAndPerServer) {
  SlowProvider provider(std::chrono::milliseconds(3000));
  config_.stripe_secret_key = "sk_test_unit";
  config_.stripe_api_base = provider.base();
  // Eight accounts, and account 0 three times more: 11 calls at once.
  std::vector<std::string> accounts;
  for (int i = 0; i < 8; ++i) {
    auto u = store_->get_user(new_user("buyer" + std::to_string(i) + "@example.com"));
    ASSERT_TRUE(u.ok() && u->has_value());
    accounts.push_back((*u)->account_id);
  }
  std::vector<std::string> callers = accounts;
  for (int i = 0; i < 3; ++i) callers.push_back(accounts[0]);
  std::atomic<int> upstream{0}, limited{0}, busy{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < callers.size(); ++i) {
    threads.emplace_back([&, i] {
      // Account 0's own call starts first; the others follow while it waits on the provider.
      if (i != 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
      auto url = service_->checkout_url(callers[i], "buyer@example.com", "https://ridge.test");
      ASSERT_FALSE(url.ok());
      switch (url.error().kind) {
        case Failure::Kind::kUpstream: ++upstream; break;
        case Failure::Kind::kLimited: ++limited; break;
        case Failure::Kind::kUnavailable: ++busy; EXPECT_GT(url.error().retry_after, 0); break;
        default: ADD_FAILURE() << "unexpected failure: " << url.error().message();
      }
    });
  }
  for (auto& t : threads) t.join();
  // At most kCheckoutsInFlight calls reached the provider; account 0's three extra calls were
  // limited (one in flight per account); the rest were told to come back.
  EXPECT_EQ(upstream.load(), BillingService::kCheckoutsInFlight);
  EXPECT_EQ(limited.load(), 3);
  EXPECT_EQ(busy.load(), static_cast<int>(callers.size()) - 3 - BillingService::kCheckoutsInFlight);
  // Past five checkouts an account waits a minute, whatever the provider does.
  config_.stripe_api_base = "http://127.0.0.1:1";  // refused at once
  int refused_by_budget = 0;
  for (int i = 0; i < 6; ++i) {
    auto url = service_->checkout_url(accounts[7], "buyer@example.com", "https://ridge.test");
    refused_by_budget += !url.ok() && url.error().kind == Failure::Kind::kLimited;
  }
  // accounts[7] spent one of its 5 tokens above (every call takes one, busy or not): 4 more
  // calls pass the budget and 2 of the 6 are refused (the fake clock refills nothing).
  EXPECT_EQ(refused_by_budget, 2);
}

}  // namespace
}  // namespace ridge::web::services
