// Numeric drills: one generated from a seed (the page's hidden field, or a fresh one), an
// answer checked against the engine's value, and the result counted on the account. The
// verdict is a value; the view decides what it looks like.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "account/clock.h"
#include "calc/registry.h"
#include "practice/drills.h"
#include "store/store.h"
#include "common/result.h"
#include "web/services/random_source.h"

namespace ridge::web::services {

struct DrillCheck {
  enum class Verdict { kUnreadable, kCorrect, kWrong };
  enum class Recorded { kNotAsked, kSaved, kFailed };
  Verdict verdict = Verdict::kUnreadable;
  practice::Graded graded;  // graded.message says why an unreadable answer could not be read
  Recorded recorded = Recorded::kNotAsked;
  std::string store_error;  // kFailed: the store's message, for the log
  bool read() const { return verdict != Verdict::kUnreadable; }
};

// Thread-safe (the random source is; the rest is read-only or the store). Everything passed
// in must outlive the service. `store` may be null: nothing is recorded then.
class DrillService {
 public:
  DrillService(const calc::Registry& registry, const calc::Catalog& catalog, store::Store* store, const account::Clock& clock,
               RandomSource& random)
      : registry_(registry), catalog_(catalog), store_(store), clock_(clock), random_(random) {}

  // The topics drills cover, in the drills' order.
  static const std::vector<std::string>& topics();

  // A drill of `topic` ("" for any) from `seed`, or from a fresh seed under 10^9 when it is
  // empty; with `template_id`, a drill of that template (a course's link), the topic aside.
  // Invalid: "topic" (not a drill topic), "seed" (not a whole number), "template".
  Result<practice::Drill> generate(const std::string& topic, const std::string& seed, const std::string& template_id = "") const;

  // Grades `answer`; a read answer is recorded for `user_id` when `record` is set (and the
  // user is signed in, user_id != 0). A failed write is reported in the check, not a failure:
  // the verdict still stands.
  DrillCheck check(const practice::Drill& drill, const std::string& answer, int64_t user_id, bool record) const;

 private:
  const calc::Registry& registry_;
  const calc::Catalog& catalog_;
  store::Store* store_;
  const account::Clock& clock_;
  RandomSource& random_;
};

}  // namespace ridge::web::services
