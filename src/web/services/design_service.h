// Design rounds on the site (issue 35): the challenges, loaded once at start-up, graded by the
// design grader (src/design/grader.h) with the trust table computed once per process from the
// validation ledger; a signed-in candidate's attempts kept, their best passing design, and a
// board per challenge (each user's best passing design once, by cost). Submissions are rate
// limited per user or per address, so the board cannot be stuffed and a client cannot make the
// server grade without bound (each verdict is at most design::kMaxEvaluations + 1 evaluations).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "account/clock.h"
#include "account/rate_limiter.h"
#include "calc/registry.h"
#include "design/challenge.h"
#include "design/grader.h"
#include "store/store.h"
#include "common/result.h"

namespace ridge::web::services {

// A graded submission as the candidate sent it: the fields (for the form again) and the verdict.
struct DesignGrade {
  design::Design design;
  design::Verdict verdict;
};

// Thread-safe: everything is read-only after construction except the rate limiter's store.
class DesignService {
 public:
  // Grades a client may ask for in a burst, then one a second (per user, or per address when
  // anonymous): the live figures post on each edit, debounced, so an editing candidate stays
  // well under it (a verdict takes under 50 ms at p99: bench/design_bench.cc).
  static constexpr double kBurst = 60, kPerSecond = 1;
  // The board shows this many rows; a user's attempt list this many.
  static constexpr int kBoardRows = 50, kAttemptRows = 20;
  // A board name is at most this many bytes.
  static constexpr size_t kMaxBoardName = 40;

  // `validate_json` is `ridge validate --json`'s object as text ("" or unreadable: no trust
  // lines). `store` may be null: grading works, nothing is kept and nothing is limited.
  DesignService(std::vector<design::Challenge> challenges, const calc::Registry& registry, const calc::Catalog& catalog,
                store::Store* store, const account::Clock& clock, const std::string& validate_json);

  const std::vector<design::Challenge>& challenges() const { return challenges_; }
  const design::Challenge* find(std::string_view id) const;
  const design::Trust& trust() const { return trust_; }

  // The challenge's open fields in the form's order (the submission fields it lets change).
  static std::vector<const design::FieldSpec*> open_fields(const design::Challenge& c);

  // Grades the fields a form or a JSON body sent. Every open field is required (a blank one is
  // not filled in from the reference: that would hand out the answer); each bad field is an
  // error naming the field, the value and what is accepted. Limited per `limit_key`.
  Result<DesignGrade> grade(const design::Challenge& c, const design::Design& given, const std::string& limit_key) const;

  // The verdict of a valid design, without a rate limit: for a rehearsal's design round,
  // scored once per round (the store counts a score once).
  design::Verdict verdict(const design::Challenge& c, const design::Design& d) const {
    return design::grade(c, d, registry_, catalog_, trust_);
  }

  // Keeps a signed-in user's graded attempt; its id. `board_name` is shown on the board only
  // with `show_name` (invalid "board_name" past kMaxBoardName bytes or with a control byte).
  Result<int64_t> keep(int64_t user_id, const design::Challenge& c, const DesignGrade& g, int64_t seconds, bool show_name,
                        const std::string& board_name) const;
  Result<std::vector<store::DesignAttempt>> attempts(int64_t user_id, const std::string& challenge) const;
  Result<std::optional<store::DesignAttempt>> best(int64_t user_id, const std::string& challenge) const;
  Result<std::vector<store::DesignAttempt>> board(const std::string& challenge) const;

  // The design as a JSON object (field -> value text), as kept in the store, and back.
  static std::string design_json(const design::Design& d);
  static design::Design design_from_json(const std::string& text);

 private:
  std::vector<design::Challenge> challenges_;
  const calc::Registry& registry_;
  const calc::Catalog& catalog_;
  store::Store* store_;
  const account::Clock& clock_;
  design::Trust trust_;
  std::unique_ptr<account::StoreRateLimiter> limiter_;
};

}  // namespace ridge::web::services
