// The rate-limiter build over the lab protocol (lab/README.md, "The protocol"). The clock
// is the request's now_ns: every request sets it before the bucket reads it.
#include <chrono>
#include <memory>

#include "common/protocol.h"
#include "token_bucket.h"

namespace {

using nlohmann::json;

class ScriptedClock final : public ridge::lab::Clock {
 public:
  std::chrono::nanoseconds now() const override { return t; }
  std::chrono::nanoseconds t{0};
};

const char* verdict_name(ridge::lab::Verdict v) {
  switch (v) {
    case ridge::lab::Verdict::kAllowed: return "allowed";
    case ridge::lab::Verdict::kDenied: return "denied";
    case ridge::lab::Verdict::kNeverFits: return "never_fits";
    case ridge::lab::Verdict::kInvalidCost: return "invalid_cost";
  }
  return "?";
}

ScriptedClock clock_now;
std::unique_ptr<ridge::lab::TokenBucket> bucket;

json handle(const json& req) {
  const std::string op = req.at("op").get<std::string>();
  clock_now.t = std::chrono::nanoseconds(req.at("now_ns").get<std::int64_t>());
  if (op == "new") {
    bucket = std::make_unique<ridge::lab::TokenBucket>(req.at("capacity").get<std::int64_t>(),
                                                       req.at("rate").get<std::int64_t>(), clock_now);
    return {{"ok", true}};
  }
  if (bucket == nullptr) throw std::invalid_argument("no bucket yet: send op new first");
  if (op == "acquire") {
    const auto d = bucket->try_acquire(req.at("cost").get<std::int64_t>());
    return {{"verdict", verdict_name(d.verdict)}, {"retry_after_ns", d.retry_after.count()}};
  }
  if (op == "available") return {{"units", bucket->available_units()}};
  ridge::lab::unknown_op(req, "new, acquire, available");
}

}  // namespace

int main() { return ridge::lab::serve(handle); }
