// A store that times every call into the server's metrics (ridge_store_call_duration_seconds
// by operation and outcome) and counts the mail the sender marks sent or failed, then hands
// the call to the real store. The metrics arrive after construction (the App that owns them
// is built on top of this store); calls before that are not timed.
#pragma once

#include <atomic>
#include <chrono>
#include <type_traits>

#include "store/store.h"
#include "web/metrics.h"

namespace ridge::web {

// Every operation the store is timed under. A series per operation and outcome is registered
// when the metrics arrive, so a scrape shows each at zero before its first call (a Prometheus
// convention: a test or an alert can read a counter that has not moved yet). `timed` takes
// this enum, so an operation missing from the list does not compile.
#define RIDGE_STORE_OPERATIONS(X) X(create_user) X(find_user_by_email) X(get_user) X(list_users) \
  X(set_password) X(set_retention) X(set_new_per_day) X(delete_user) X(create_session) X(find_session) \
  X(delete_session) X(delete_sessions_of) X(record_review) X(get_card) X(cards) X(reviews) X(set_bookmark) \
  X(bookmarks) X(put_note) X(get_note) X(record_drill) X(drills) X(save_readiness) X(readiness_history) \
  X(find_user_by_account_id) X(access_until) X(grant) X(revoke) X(grant_for_event) X(revoke_for_payment) X(enqueue_mail) \
  X(claim_mail) X(mail_sent) X(mail_failed) X(mail_counts) X(subscribe) X(find_subscription) \
  X(confirm_subscription) X(unsubscribe) X(confirmed_subscriptions) X(weekly_slugs_sent) X(queue_weekly) \
  X(create_account_token) X(use_account_token) X(set_email_verified) X(take_token) X(return_token) X(bucket_tokens) \
  X(prune_buckets) \
  X(create_rehearsal) X(get_rehearsal) X(answer_rehearsal_round) X(score_rehearsal_round) X(finish_rehearsal) X(rehearsals) \
  X(open_readiness) X(find_open_readiness) X(close_readiness) \
  X(record_work_step) X(work_attempts) X(work_mistakes) \
  X(record_design_attempt) X(design_attempts) X(design_best) X(design_board)

enum class StoreOp {
#define RIDGE_STORE_OP_ENUM(name) name,
  RIDGE_STORE_OPERATIONS(RIDGE_STORE_OP_ENUM)
#undef RIDGE_STORE_OP_ENUM
};

inline constexpr const char* kStoreOpNames[] = {
#define RIDGE_STORE_OP_NAME(name) #name,
    RIDGE_STORE_OPERATIONS(RIDGE_STORE_OP_NAME)
#undef RIDGE_STORE_OP_NAME
};

inline const char* store_op_name(StoreOp op) { return kStoreOpNames[static_cast<size_t>(op)]; }

class MeteredStore final : public store::Store {
 public:
  explicit MeteredStore(store::Store& inner) : inner_(inner) {}
  void observe(const Metrics& metrics) {
    for (const char* operation : kStoreOpNames) metrics.store_operation(operation);
    metrics_.store(&metrics);
  }

  template <class T>
  using Result = store::Result<T>;
  using Done = store::Done;
  using User = store::User;
  using Session = store::Session;
  using Card = store::Card;
  using ReviewLog = store::ReviewLog;
  using DrillResult = store::DrillResult;
  using Readiness = store::Readiness;
  using OutgoingMail = store::OutgoingMail;
  using MailCounts = store::MailCounts;
  using Subscription = store::Subscription;

  Result<int64_t> create_user(const std::string& email, const std::string& password_hash, int64_t now) override {
    return timed(StoreOp::create_user, [&] { return inner_.create_user(email, password_hash, now); });
  }
  Result<std::optional<User>> find_user_by_email(const std::string& email) override {
    return timed(StoreOp::find_user_by_email, [&] { return inner_.find_user_by_email(email); });
  }
  Result<std::optional<User>> get_user(int64_t id) override {
    return timed(StoreOp::get_user, [&] { return inner_.get_user(id); });
  }
  Result<std::vector<User>> list_users() override {
    return timed(StoreOp::list_users, [&] { return inner_.list_users(); });
  }
  Result<Done> set_password(int64_t user_id, const std::string& password_hash) override {
    return timed(StoreOp::set_password, [&] { return inner_.set_password(user_id, password_hash); });
  }
  Result<Done> set_retention(int64_t user_id, double desired_retention) override {
    return timed(StoreOp::set_retention, [&] { return inner_.set_retention(user_id, desired_retention); });
  }
  Result<Done> set_new_per_day(int64_t user_id, int new_per_day) override {
    return timed(StoreOp::set_new_per_day, [&] { return inner_.set_new_per_day(user_id, new_per_day); });
  }
  Result<Done> delete_user(int64_t user_id) override {
    return timed(StoreOp::delete_user, [&] { return inner_.delete_user(user_id); });
  }
  Result<Done> create_session(const std::string& token_hash, const Session& session, int64_t now) override {
    return timed(StoreOp::create_session, [&] { return inner_.create_session(token_hash, session, now); });
  }
  Result<std::optional<Session>> find_session(const std::string& token_hash) override {
    return timed(StoreOp::find_session, [&] { return inner_.find_session(token_hash); });
  }
  Result<Done> delete_session(const std::string& token_hash) override {
    return timed(StoreOp::delete_session, [&] { return inner_.delete_session(token_hash); });
  }
  Result<Done> delete_sessions_of(int64_t user_id) override {
    return timed(StoreOp::delete_sessions_of, [&] { return inner_.delete_sessions_of(user_id); });
  }
  Result<Done> record_review(int64_t user_id, const Card& card, int grade, int64_t now) override {
    return timed(StoreOp::record_review, [&] { return inner_.record_review(user_id, card, grade, now); });
  }
  Result<std::optional<Card>> get_card(int64_t user_id, const std::string& slug) override {
    return timed(StoreOp::get_card, [&] { return inner_.get_card(user_id, slug); });
  }
  Result<std::vector<Card>> cards(int64_t user_id) override {
    return timed(StoreOp::cards, [&] { return inner_.cards(user_id); });
  }
  Result<std::vector<ReviewLog>> reviews(int64_t user_id) override {
    return timed(StoreOp::reviews, [&] { return inner_.reviews(user_id); });
  }
  Result<Done> set_bookmark(int64_t user_id, const std::string& slug, bool on, int64_t now) override {
    return timed(StoreOp::set_bookmark, [&] { return inner_.set_bookmark(user_id, slug, on, now); });
  }
  Result<std::vector<std::string>> bookmarks(int64_t user_id) override {
    return timed(StoreOp::bookmarks, [&] { return inner_.bookmarks(user_id); });
  }
  Result<Done> put_note(int64_t user_id, const std::string& slug, const std::string& body, int64_t now) override {
    return timed(StoreOp::put_note, [&] { return inner_.put_note(user_id, slug, body, now); });
  }
  Result<std::optional<std::string>> get_note(int64_t user_id, const std::string& slug) override {
    return timed(StoreOp::get_note, [&] { return inner_.get_note(user_id, slug); });
  }
  Result<Done> record_drill(int64_t user_id, const DrillResult& result) override {
    return timed(StoreOp::record_drill, [&] { return inner_.record_drill(user_id, result); });
  }
  Result<std::vector<DrillResult>> drills(int64_t user_id) override {
    return timed(StoreOp::drills, [&] { return inner_.drills(user_id); });
  }
  Result<int64_t> save_readiness(int64_t user_id, const Readiness& r) override {
    return timed(StoreOp::save_readiness, [&] { return inner_.save_readiness(user_id, r); });
  }
  Result<std::vector<Readiness>> readiness_history(int64_t user_id) override {
    return timed(StoreOp::readiness_history, [&] { return inner_.readiness_history(user_id); });
  }
  Result<Done> open_readiness(int64_t user_id, const store::OpenReadiness& c) override {
    return timed(StoreOp::open_readiness, [&] { return inner_.open_readiness(user_id, c); });
  }
  Result<std::optional<store::OpenReadiness>> find_open_readiness(int64_t user_id) override {
    return timed(StoreOp::find_open_readiness, [&] { return inner_.find_open_readiness(user_id); });
  }
  Result<Done> close_readiness(int64_t user_id, const std::string& payload) override {
    return timed(StoreOp::close_readiness, [&] { return inner_.close_readiness(user_id, payload); });
  }
  Result<std::optional<User>> find_user_by_account_id(const std::string& account_id) override {
    return timed(StoreOp::find_user_by_account_id, [&] { return inner_.find_user_by_account_id(account_id); });
  }
  Result<int64_t> access_until(int64_t user_id) override {
    return timed(StoreOp::access_until, [&] { return inner_.access_until(user_id); });
  }
  Result<int64_t> grant(int64_t user_id, int months, int64_t now) override {
    return timed(StoreOp::grant, [&] { return inner_.grant(user_id, months, now); });
  }
  Result<Done> revoke(int64_t user_id) override {
    return timed(StoreOp::revoke, [&] { return inner_.revoke(user_id); });
  }
  Result<bool> grant_for_event(const std::string& event_id, int64_t user_id, int months, int64_t now,
                               const std::string& payment_ref) override {
    return timed(StoreOp::grant_for_event, [&] { return inner_.grant_for_event(event_id, user_id, months, now, payment_ref); });
  }
  Result<std::optional<int64_t>> revoke_for_payment(const std::string& event_id, const std::string& payment_ref,
                                                    int64_t now) override {
    return timed(StoreOp::revoke_for_payment, [&] { return inner_.revoke_for_payment(event_id, payment_ref, now); });
  }
  Result<int64_t> enqueue_mail(const std::string& recipient, const std::string& message, int64_t now) override {
    return timed(StoreOp::enqueue_mail, [&] { return inner_.enqueue_mail(recipient, message, now); });
  }
  Result<std::vector<OutgoingMail>> claim_mail(int64_t now, int64_t lease_seconds, int limit) override {
    return timed(StoreOp::claim_mail, [&] { return inner_.claim_mail(now, lease_seconds, limit); });
  }
  Result<Done> mail_sent(int64_t id, int64_t now) override {
    auto r = timed(StoreOp::mail_sent, [&] { return inner_.mail_sent(id, now); });
    if (const Metrics* m = metrics_.load(); m && r.ok()) m->mail_delivery(true);
    return r;
  }
  Result<Done> mail_failed(int64_t id, int64_t retry_at, const std::string& error) override {
    auto r = timed(StoreOp::mail_failed, [&] { return inner_.mail_failed(id, retry_at, error); });
    if (const Metrics* m = metrics_.load(); m && r.ok()) m->mail_delivery(false);
    return r;
  }
  Result<MailCounts> mail_counts() override {
    return timed(StoreOp::mail_counts, [&] { return inner_.mail_counts(); });
  }
  Result<Subscription> subscribe(const std::string& email, int64_t now) override {
    return timed(StoreOp::subscribe, [&] { return inner_.subscribe(email, now); });
  }
  Result<std::optional<Subscription>> find_subscription(const std::string& email) override {
    return timed(StoreOp::find_subscription, [&] { return inner_.find_subscription(email); });
  }
  Result<bool> confirm_subscription(const std::string& email, int64_t now) override {
    return timed(StoreOp::confirm_subscription, [&] { return inner_.confirm_subscription(email, now); });
  }
  Result<bool> unsubscribe(const std::string& email, int64_t now) override {
    return timed(StoreOp::unsubscribe, [&] { return inner_.unsubscribe(email, now); });
  }
  Result<std::vector<Subscription>> confirmed_subscriptions() override {
    return timed(StoreOp::confirmed_subscriptions, [&] { return inner_.confirmed_subscriptions(); });
  }
  Result<std::vector<std::string>> weekly_slugs_sent(int64_t subscription_id) override {
    return timed(StoreOp::weekly_slugs_sent, [&] { return inner_.weekly_slugs_sent(subscription_id); });
  }
  Result<bool> queue_weekly(const std::string& week, int64_t subscription_id, const std::string& slug, const std::string& recipient, const std::string& message, int64_t now) override {
    return timed(StoreOp::queue_weekly, [&] { return inner_.queue_weekly(week, subscription_id, slug, recipient, message, now); });
  }
  Result<Done> create_account_token(const std::string& token_hash, int64_t user_id, const std::string& purpose, int64_t expires_at, int64_t now) override {
    return timed(StoreOp::create_account_token, [&] { return inner_.create_account_token(token_hash, user_id, purpose, expires_at, now); });
  }
  Result<std::optional<int64_t>> use_account_token(const std::string& token_hash, const std::string& purpose, int64_t now) override {
    return timed(StoreOp::use_account_token, [&] { return inner_.use_account_token(token_hash, purpose, now); });
  }
  Result<Done> set_email_verified(int64_t user_id, int64_t now) override {
    return timed(StoreOp::set_email_verified, [&] { return inner_.set_email_verified(user_id, now); });
  }
  Result<std::optional<double>> take_token(const std::string& key, double capacity, double per_second, int64_t now) override {
    return timed(StoreOp::take_token, [&] { return inner_.take_token(key, capacity, per_second, now); });
  }
  Result<Done> return_token(const std::string& key, double capacity) override {
    return timed(StoreOp::return_token, [&] { return inner_.return_token(key, capacity); });
  }
  Result<double> bucket_tokens(const std::string& key, double capacity, double per_second, int64_t now) override {
    return timed(StoreOp::bucket_tokens, [&] { return inner_.bucket_tokens(key, capacity, per_second, now); });
  }
  Result<int64_t> prune_buckets(int64_t now) override {
    return timed(StoreOp::prune_buckets, [&] { return inner_.prune_buckets(now); });
  }
  Result<bool> record_work_step(int64_t user_id, const store::WorkAttempt& a) override {
    return timed(StoreOp::record_work_step, [&] { return inner_.record_work_step(user_id, a); });
  }
  Result<std::vector<store::WorkAttempt>> work_attempts(int64_t user_id, const std::string& slug, int64_t seed) override {
    return timed(StoreOp::work_attempts, [&] { return inner_.work_attempts(user_id, slug, seed); });
  }
  Result<std::vector<store::MistakeCount>> work_mistakes(int64_t user_id) override {
    return timed(StoreOp::work_mistakes, [&] { return inner_.work_mistakes(user_id); });
  }

  // Mock loops (issue 36).
  Result<int64_t> create_rehearsal(int64_t user_id, const store::Rehearsal& r, int rounds) override {
    return timed(StoreOp::create_rehearsal, [&] { return inner_.create_rehearsal(user_id, r, rounds); });
  }
  Result<std::optional<store::Rehearsal>> get_rehearsal(int64_t user_id, int64_t id) override {
    return timed(StoreOp::get_rehearsal, [&] { return inner_.get_rehearsal(user_id, id); });
  }
  Result<bool> answer_rehearsal_round(int64_t user_id, int64_t id, int index, const std::string& answer, int64_t now) override {
    return timed(StoreOp::answer_rehearsal_round, [&] { return inner_.answer_rehearsal_round(user_id, id, index, answer, now); });
  }
  Result<bool> score_rehearsal_round(int64_t user_id, int64_t id, int index, const std::string& scores, int64_t now) override {
    return timed(StoreOp::score_rehearsal_round, [&] { return inner_.score_rehearsal_round(user_id, id, index, scores, now); });
  }
  Result<bool> finish_rehearsal(int64_t user_id, int64_t id, const std::string& report_json, int64_t now) override {
    return timed(StoreOp::finish_rehearsal, [&] { return inner_.finish_rehearsal(user_id, id, report_json, now); });
  }
  Result<std::vector<store::Rehearsal>> rehearsals(int64_t user_id) override {
    return timed(StoreOp::rehearsals, [&] { return inner_.rehearsals(user_id); });
  }

  // Design rounds (issue 35).
  Result<int64_t> record_design_attempt(int64_t user_id, const store::DesignAttempt& a) override {
    return timed(StoreOp::record_design_attempt, [&] { return inner_.record_design_attempt(user_id, a); });
  }
  Result<std::vector<store::DesignAttempt>> design_attempts(int64_t user_id, const std::string& challenge, int limit) override {
    return timed(StoreOp::design_attempts, [&] { return inner_.design_attempts(user_id, challenge, limit); });
  }
  Result<std::optional<store::DesignAttempt>> design_best(int64_t user_id, const std::string& challenge) override {
    return timed(StoreOp::design_best, [&] { return inner_.design_best(user_id, challenge); });
  }
  Result<std::vector<store::DesignAttempt>> design_board(const std::string& challenge, int limit) override {
    return timed(StoreOp::design_board, [&] { return inner_.design_board(challenge, limit); });
  }

  bool ping() override { return inner_.ping(); }
  std::string backend() const override { return inner_.backend(); }
  std::optional<PoolUse> pool_use() override { return inner_.pool_use(); }

 private:
  template <class Call>
  std::invoke_result_t<Call> timed(StoreOp op, Call call) {
    auto started = std::chrono::steady_clock::now();
    auto result = call();
    if (const Metrics* m = metrics_.load()) {
      m->store_call(store_op_name(op), std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), result.ok());
    }
    return result;
  }

  store::Store& inner_;
  std::atomic<const Metrics*> metrics_{nullptr};
};

}  // namespace ridge::web
