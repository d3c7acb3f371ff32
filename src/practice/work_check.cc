#include "practice/work_check.h"

#include "practice/workit.h"

namespace ridge::practice {

WorkCoverage check_work(const std::vector<bank::Question>& questions, const calc::Registry& registry,
                        const calc::Catalog& catalog, int draws, std::vector<bank::Diagnostic>& errors) {
  WorkCoverage cov;
  for (const auto& q : questions) {
    if (q.calcs.empty()) continue;
    ++cov.with_calc[q.topic];
    if (!q.work.workable) ++cov.marked_not_workable;
    WorkPlan plan = plan_question(q, registry, catalog);
    if (!plan.workable) continue;
    bool ok = true;
    for (int seed = 1; seed <= draws && ok; ++seed) {
      std::string error;
      if (!make_exercise(plan, q.title, static_cast<uint64_t>(seed), registry, catalog, &error)) {
        errors.push_back({q.file, 1, "work it: " + error +
                                         " (mark the question [work] workable = false with a reason, or narrow its inputs)"});
        ok = false;
      }
    }
    if (ok) {
      ++cov.workable[q.topic];
      ++cov.total_workable;
    }
  }
  return cov;
}

}  // namespace ridge::practice
