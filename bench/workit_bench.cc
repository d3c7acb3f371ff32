// Work it's server-side cost (issue 34): for every workable question of the bank and seeds
// 1..N, the time to plan, draw and evaluate the exercise, and grade every step with a wrong
// answer (the worst case: every misconception is tried, some re-run the chain). Prints the
// p50, p99 and max over all samples. Usage: workit_bench [seeds per question, default 5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bank/loader.h"
#include "calc_io/load_catalog.h"
#include "practice/workit.h"

int main(int argc, char** argv) {
  using namespace ridge;
  const int seeds = argc > 1 ? std::clamp(std::atoi(argv[1]), 1, 100) : 5;
  const calc::Catalog catalog = calc_io::load_catalog(RIDGE_DATA_DIR).value();
  const calc::Registry registry = calc::make_builtin_registry();
  bank::LoadResult loaded = bank::load_bank(RIDGE_CONTENT_DIR, registry, catalog, {/*lint=*/false});
  std::vector<double> ms;
  int questions = 0, failed = 0;
  for (const auto& q : loaded.bank.questions) {
    if (q.calcs.empty()) continue;
    for (int seed = 1; seed <= seeds; ++seed) {
      auto t0 = std::chrono::steady_clock::now();
      practice::WorkPlan plan = practice::plan_question(q, registry, catalog);
      if (!plan.workable) break;
      if (seed == 1) ++questions;
      std::string error;
      auto ex = practice::make_exercise(plan, q.title, static_cast<uint64_t>(seed), registry, catalog, &error);
      if (!ex) {
        ++failed;
        continue;
      }
      for (size_t i = 0; i < ex->steps.size(); ++i) {
        // 3.7 times the right value: wrong for every step, and no misconception's factor.
        auto g = practice::grade_step(*ex, i, std::to_string(ex->steps[i].value * 3.7), registry, catalog);
        if (g.correct) ++failed;
      }
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  if (ms.empty()) return 1;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<size_t>(p * static_cast<double>(ms.size())))]; };
  std::printf("workit_bench: %d questions x %d seeds = %zu exercises (%d failed)\n", questions, seeds, ms.size(), failed);
  std::printf("generate + grade every step wrong: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", at(0.5), at(0.99), ms.back());
  return 0;
}
