#include "web/services/design_service.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace ridge::web::services {

DesignService::DesignService(std::vector<design::Challenge> challenges, const calc::Registry& registry,
                             const calc::Catalog& catalog, store::Store* store, const account::Clock& clock,
                             const std::string& validate_json)
    : challenges_(std::move(challenges)),
      registry_(registry),
      catalog_(catalog),
      store_(store),
      clock_(clock),
      // Once per process: the ledger does not change while serving.
      trust_(design::trust_from_validate_json(validate_json)) {
  if (store_ != nullptr) limiter_ = std::make_unique<account::StoreRateLimiter>(*store_, clock_, kBurst, kPerSecond);
}

const design::Challenge* DesignService::find(std::string_view id) const {
  for (const auto& c : challenges_) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

std::vector<const design::FieldSpec*> DesignService::open_fields(const design::Challenge& c) {
  std::vector<const design::FieldSpec*> out;
  for (const auto& spec : design::submission_fields(c.kind)) {
    if (c.choices.count(spec.name) != 0 || c.ranges.count(spec.name) != 0) out.push_back(&spec);
  }
  return out;
}

Result<DesignGrade> DesignService::grade(const design::Challenge& c, const design::Design& given,
                                          const std::string& limit_key) const {
  std::vector<FieldError> errors;
  for (const design::FieldSpec* spec : open_fields(c)) {
    auto it = given.find(spec->name);
    if (it != given.end() && !it->second.empty()) continue;
    std::string accepted;
    if (auto r = c.ranges.find(spec->name); r != c.ranges.end()) {
      accepted = "a whole number from " + std::to_string(static_cast<long long>(r->second.first)) + " to " +
                 std::to_string(static_cast<long long>(r->second.second));
    } else {
      for (const auto& v : c.choices.at(spec->name)) accepted += (accepted.empty() ? "" : ", ") + v;
    }
    errors.push_back({spec->name, "", "is required (" + spec->help + ")", accepted});
  }
  if (!errors.empty()) return Failure::invalid(std::move(errors));
  auto valid = design::validate_submission(c, given);
  if (!valid) return valid.error();  // calc's field errors, kind invalid, as they are
  if (limiter_ != nullptr) {
    double retry = 0;
    switch (limiter_->allow("design:" + limit_key, &retry)) {
      case account::StoreRateLimiter::Answer::kAllowed: break;
      case account::StoreRateLimiter::Answer::kLimited:
        return Failure::limited({"", "", "too many designs graded: try again in " + std::to_string(static_cast<int>(std::ceil(retry))) +
                                             " s",
                                 "at most 60 at once, then one a second"},
                                static_cast<int>(std::ceil(retry)));
      case account::StoreRateLimiter::Answer::kUnavailable: return Failure::unavailable("design rate limit");
    }
  }
  DesignGrade g{*valid, design::grade(c, *valid, registry_, catalog_, trust_)};
  return g;
}

Result<int64_t> DesignService::keep(int64_t user_id, const design::Challenge& c, const DesignGrade& g, int64_t seconds,
                                     bool show_name, const std::string& board_name) const {
  if (store_ == nullptr) return Failure::unavailable("no store");
  if (board_name.size() > kMaxBoardName) {
    return Failure::invalid({"board_name", board_name.substr(0, 64), "is " + std::to_string(board_name.size()) + " bytes",
                             "at most 40 bytes"});
  }
  for (unsigned char ch : board_name) {
    if (ch < 0x20 || ch == 0x7f) return Failure::invalid({"board_name", "", "holds a control character", "printable text"});
  }
  store::DesignAttempt a;
  a.challenge = c.id;
  a.submission = design_json(g.design);
  a.pass = g.verdict.pass;
  a.cost_usd = g.verdict.cost_usd;
  a.seconds = seconds;
  a.show_name = show_name;
  a.board_name = show_name ? board_name : "";
  a.at = clock_.now();
  auto id = store_->record_design_attempt(user_id, a);
  if (!id.ok()) return Failure::unavailable(id.error().detail);
  return *id;
}

Result<std::vector<store::DesignAttempt>> DesignService::attempts(int64_t user_id, const std::string& challenge) const {
  if (store_ == nullptr) return std::vector<store::DesignAttempt>{};
  auto r = store_->design_attempts(user_id, challenge, kAttemptRows);
  if (!r.ok()) return r.error();
  return std::move(r).value();
}

Result<std::optional<store::DesignAttempt>> DesignService::best(int64_t user_id, const std::string& challenge) const {
  if (store_ == nullptr) return std::optional<store::DesignAttempt>{};
  auto r = store_->design_best(user_id, challenge);
  if (!r.ok()) return r.error();
  return std::move(r).value();
}

Result<std::vector<store::DesignAttempt>> DesignService::board(const std::string& challenge) const {
  if (store_ == nullptr) return std::vector<store::DesignAttempt>{};
  auto r = store_->design_board(challenge, kBoardRows);
  if (!r.ok()) return r.error();
  return std::move(r).value();
}

std::string DesignService::design_json(const design::Design& d) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : d) j[k] = v;
  return j.dump();
}

design::Design DesignService::design_from_json(const std::string& text) {
  design::Design d;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return d;
  for (const auto& [k, v] : j.items()) {
    if (v.is_string()) d[k] = v.get<std::string>();
  }
  return d;
}

}  // namespace ridge::web::services
