// The readiness check: fifteen minutes, five numeric drills and five self-graded questions
// from a track's topics, then a score per topic. The check travels in the form as a payload
// signed with the server's key (an HMAC, so it cannot be altered), bound to the account and
// a nonce (so it is used once); the drills' seeds are derived from the nonce with the same
// key, so their answers cannot be looked up on /drill.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "account/clock.h"
#include "bank/bank.h"
#include "calc/registry.h"
#include "practice/drills.h"
#include "store/store.h"
#include "common/result.h"
#include "web/services/random_source.h"

namespace ridge::web::services {

constexpr int64_t kReadinessSeconds = 15 * 60;

struct ReadinessItem {
  int number = 0;                        // 1-based: the form field is "a<number>"
  std::optional<practice::Drill> drill;  // a drill, or
  const bank::Question* question = nullptr;  // a self-graded question
};

struct StartedCheck {
  const bank::Track* track = nullptr;
  std::vector<ReadinessItem> items;
  int64_t deadline = 0;     // unix seconds
  std::string payload;      // to send back unchanged
  std::string mac;          // hex HMAC of payload
  bool resumed = false;     // an open check shown again (a refresh, another server, a restart)
};

struct DrillFeedback {
  int number = 0;
  bool correct = false;
  practice::Drill drill;
  std::string answer;  // as given ("" for none)
};

struct ScoredCheck {
  std::string track;
  double score = 0;  // 0..1
  bool late = false;
  std::vector<std::pair<double, std::string>> ranked;  // (score, topic), weakest first
  std::vector<DrillFeedback> drills;
};

// Thread-safe: single use is the store's (one result per user and nonce). Everything passed in
// must outlive the service. `secret` keys the MAC (RIDGE_SECRET, so every server of a site
// accepts each other's checks); empty: a random key for this process.
class ReadinessService {
 public:
  ReadinessService(const bank::Bank& bank, const calc::Registry& registry, const calc::Catalog& catalog, store::Store& store,
                   const account::Clock& clock, RandomSource& random, const std::string& secret);

  // A new check, kept in the store as the user's open one. A user with a check open and in
  // time gets that one back (`resumed`), whatever track they asked for: a refresh of the start
  // form does not reset the clock. Invalid: "track" (naming the bank's tracks); unavailable:
  // the store.
  Result<StartedCheck> start(int64_t user_id, const std::string& track_id) const;

  // The user's open check while its time runs (nullopt: none, or its time is up); the same
  // items and deadline as when it started, on any server sharing the store and key.
  Result<std::optional<StartedCheck>> resume(int64_t user_id) const;

  // Closes the user's open check without a result (to start another).
  Result<Done> abandon(int64_t user_id) const;

  // Scores a submitted check; `answer(n)` is the form's field "a<n>". Invalid: "mac" (altered
  // or another server's) or "payload"; forbidden: another account's check; conflict: already
  // submitted; unavailable: the store. Records each drill and saves the result.
  Result<ScoredCheck> finish(int64_t user_id, const std::string& payload, const std::string& mac,
                              const std::function<std::string(int)>& answer) const;

  // The hex HMAC of `message` with the service's key.
  std::string mac(const std::string& message) const;

 private:
  uint64_t hidden_seed(const std::string& nonce, int n) const;
  // The check a signed payload describes (items rebuilt from the nonce's seeds); nullopt for
  // a malformed payload or a track the bank no longer has.
  std::optional<StartedCheck> rebuild(const std::string& payload, const std::string& mac) const;

  const bank::Bank& bank_;
  const calc::Registry& registry_;
  const calc::Catalog& catalog_;
  store::Store& store_;
  const account::Clock& clock_;
  RandomSource& random_;
  std::vector<unsigned char> key_;
};

}  // namespace ridge::web::services
