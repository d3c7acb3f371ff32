// The retry build over the lab protocol (lab/README.md, "The protocol"). Time and
// randomness come from the request: a virtual clock that attempts and sleeps advance, and
// a scripted list of draws.
#include <algorithm>
#include <vector>

#include "common/protocol.h"
#include "retry.h"

namespace {

using nlohmann::json;
using ridge::lab::nanoseconds;

class VirtualClock final : public ridge::lab::RetryClock {
 public:
  explicit VirtualClock(nanoseconds start) : t_(start) {}
  nanoseconds now() const override { return t_; }
  void sleep_for(nanoseconds d) override { t_ += d; }
  void advance(nanoseconds d) { t_ += d; }

 private:
  nanoseconds t_;
};

// Answers draw i clamped to the bound asked for; the largest allowed draw once the script ends.
class ScriptedRng final : public ridge::lab::RetryRng {
 public:
  explicit ScriptedRng(std::vector<std::uint64_t> draws) : draws_(std::move(draws)) {}
  std::uint64_t uniform(std::uint64_t max_inclusive) override {
    bounds.push_back(max_inclusive);
    const std::size_t i = bounds.size() - 1;
    return i < draws_.size() ? std::min(draws_[i], max_inclusive) : max_inclusive;
  }
  std::vector<std::uint64_t> bounds;

 private:
  std::vector<std::uint64_t> draws_;
};

const char* status_name(ridge::lab::RetryStatus s) {
  switch (s) {
    case ridge::lab::RetryStatus::kSucceeded: return "succeeded";
    case ridge::lab::RetryStatus::kPermanentFailure: return "permanent_failure";
    case ridge::lab::RetryStatus::kAttemptsExhausted: return "attempts_exhausted";
    case ridge::lab::RetryStatus::kDeadlineExceeded: return "deadline_exceeded";
  }
  return "?";
}

ridge::lab::AttemptOutcome outcome_of(const std::string& name) {
  if (name == "success") return ridge::lab::AttemptOutcome::kSuccess;
  if (name == "retryable") return ridge::lab::AttemptOutcome::kRetryable;
  if (name == "permanent") return ridge::lab::AttemptOutcome::kPermanent;
  throw std::invalid_argument("unknown outcome " + name + "; accepted: success, retryable, permanent");
}

ridge::lab::BackoffPolicy policy_of(const json& req) {
  ridge::lab::BackoffPolicy p;
  p.base = nanoseconds(req.at("base_ns").get<std::int64_t>());
  p.cap = nanoseconds(req.at("cap_ns").get<std::int64_t>());
  p.max_attempts = req.value("max_attempts", 10);
  p.deadline = nanoseconds(req.value("deadline_ns", std::int64_t{30'000'000'000}));
  return p;
}

json run(const json& req) {
  VirtualClock clock(nanoseconds(req.value("start_ns", std::int64_t{1'000'000'000})));
  ScriptedRng rng(req.value("draws", std::vector<std::uint64_t>{}));
  const json script = req.value("attempts", json::array());
  json remaining = json::array();
  auto attempt = [&](nanoseconds left) {
    const std::size_t i = remaining.size();
    remaining.push_back(left.count());
    if (i >= script.size()) return ridge::lab::AttemptOutcome::kRetryable;
    clock.advance(nanoseconds(script[i].value("duration_ns", std::int64_t{0})));
    return outcome_of(script[i].at("outcome").get<std::string>());
  };
  const auto r = ridge::lab::retry_with_backoff(attempt, policy_of(req), clock, rng);
  json sleeps = json::array();
  for (const auto s : r.sleeps) sleeps.push_back(s.count());
  return {{"status", status_name(r.status)}, {"attempts", r.attempts},  {"sleeps_ns", sleeps},
          {"bounds_ns", rng.bounds},        {"remaining_ns", remaining}, {"end_ns", clock.now().count()}};
}

json handle(const json& req) {
  const std::string op = req.at("op").get<std::string>();
  if (op == "bound") return {{"bound_ns", ridge::lab::backoff_bound(policy_of(req), req.at("retry").get<int>()).count()}};
  if (op == "run") return run(req);
  ridge::lab::unknown_op(req, "bound, run");
}

}  // namespace

int main() { return ridge::lab::serve(handle); }
