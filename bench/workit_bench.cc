// Work it's server-side cost (issue 34): for every workable question of the bank and seeds
// 1..N, the time to plan, draw and evaluate the exercise, and grade every step with a wrong
// answer (the worst case: every misconception is tried, some re-run the chain). Prints the
// p50, p99 and max over all samples. Usage: workit_bench [seeds per question, default 5]
#include <algorithm>
#include <chrono>
#include <ctime>
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
  std::vector<double> ms, page_ms, page_cpu_ms;  // cpu: the process's CPU time (the machine may be shared)  // page: generate + grade the slowest single step
  std::vector<std::pair<double, std::string>> slowest;
  int questions = 0, failed = 0;
  for (const auto& q : loaded.bank.questions) {
    if (q.calcs.empty()) continue;
    for (int seed = 1; seed <= seeds; ++seed) {
      auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      practice::WorkPlan plan = practice::plan_question(q, registry, catalog);
      if (!plan.workable) break;
      if (seed == 1) ++questions;
      std::string error;
      auto ex = practice::make_exercise(plan, q.title, static_cast<uint64_t>(seed), registry, catalog, &error);
      if (!ex) {
        ++failed;
        continue;
      }
      const double generated = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const double generated_cpu = 1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
      double slowest_cpu = 0;
      double slowest_step = 0;
      for (size_t i = 0; i < ex->steps.size(); ++i) {
        // 3.7 times the right value: wrong for every step, and no misconception's factor.
        auto s0 = std::chrono::steady_clock::now();
        const std::clock_t sc = std::clock();
        auto g = practice::grade_step(*ex, i, std::to_string(ex->steps[i].value * 3.7), registry, catalog);
        slowest_step = std::max(slowest_step, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
        slowest_cpu = std::max(slowest_cpu, 1000.0 * static_cast<double>(std::clock() - sc) / CLOCKS_PER_SEC);
        if (g.correct) ++failed;
      }
      page_ms.push_back(generated + slowest_step);
      page_cpu_ms.push_back(generated_cpu + slowest_cpu);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      slowest.emplace_back(ms.back(), q.slug + " seed " + std::to_string(seed) + " (" + std::to_string(ex->attempts) +
                                          " draws, " + std::to_string(ex->chain.ids.size()) + " blocks, " +
                                          std::to_string(ex->steps.size()) + " steps)");
    }
  }
  if (ms.empty()) return 1;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<size_t>(p * static_cast<double>(ms.size())))]; };
  std::printf("workit_bench: %d questions x %d seeds = %zu exercises (%d failed)\n", questions, seeds, ms.size(), failed);
  std::printf("generate + grade every step wrong: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", at(0.5), at(0.99), ms.back());
  std::sort(page_ms.begin(), page_ms.end());
  auto page_at = [&](double p) { return page_ms[std::min(page_ms.size() - 1, static_cast<size_t>(p * static_cast<double>(page_ms.size())))]; };
  std::printf("one page (generate + grade its slowest step): p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", page_at(0.5),
              page_at(0.99), page_ms.back());
  std::sort(page_cpu_ms.begin(), page_cpu_ms.end());
  std::printf("one page, CPU time: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
              page_cpu_ms[page_cpu_ms.size() / 2], page_cpu_ms[std::min(page_cpu_ms.size() - 1, page_cpu_ms.size() * 99 / 100)],
              page_cpu_ms.back());
  std::sort(slowest.rbegin(), slowest.rend());
  for (size_t i = 0; i < slowest.size() && i < 5; ++i) std::printf("  %.3f ms  %s\n", slowest[i].first, slowest[i].second.c_str());
  return 0;
}
