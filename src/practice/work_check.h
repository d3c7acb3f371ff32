// `ridge check`'s Work it pass: every workable question at N seeded draws, an invalid draw an
// error at the question's file; the coverage (workable questions by topic) for the report.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bank/question.h"
#include "calc/registry.h"

namespace ridge::practice {

struct WorkCoverage {
  std::map<std::string, int> workable;   // topic -> workable questions
  std::map<std::string, int> with_calc;  // topic -> questions with calc blocks
  int total_workable = 0;
  int marked_not_workable = 0;           // [work] workable = false
};

WorkCoverage check_work(const std::vector<bank::Question>& questions, const calc::Registry& registry,
                        const calc::Catalog& catalog, int draws, std::vector<bank::Diagnostic>& errors);

}  // namespace ridge::practice
