// Interval figures: the question's four-rank trace (shared idle time per 100 ms step),
// and the cost of the merge-and-sweep over a 1,024-rank step.
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "common/report.h"
#include "intervals.h"

namespace {

using ridge::lab::Interval;

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("intervals", "GPU idle time shared by every rank");

  report.section("the question's trace: 4 ranks, one 100,000 us step");
  {
    const std::vector<std::vector<Interval>> trace{
        {{0, 8'000}, {40'000, 55'000}, {90'000, 100'000}},
        {{0, 5'000}, {42'000, 60'000}, {88'000, 100'000}},
        {{0, 3'000}, {2'000, 9'000}, {45'000, 50'000}, {50'000, 58'000}, {95'000, 100'000}},
        {{1'000, 6'000}, {41'000, 52'000}, {92'000, 100'000}, {70'000, 70'000}},
    };
    const auto all = ridge::lab::all_idle(trace);
    const auto any = ridge::lab::any_idle(trace);
    report.add("question/all_idle_us", ridge::lab::total_us(all), "us", "every rank idle");
    report.add("question/all_idle_stretches", static_cast<std::int64_t>(all.size()), "", "stretches");
    report.add("question/any_idle_us", ridge::lab::total_us(any), "us", "at least one rank idle");
    report.add("question/straggler_signal_us", ridge::lab::total_us(any) - ridge::lab::total_us(all), "us",
               "some but not all idle (waiting on someone)");
  }

  report.section("1,024 ranks x 200 records each (seed 20261130), one 1 s step");
  {
    std::mt19937_64 rng(20261130);
    std::vector<std::vector<Interval>> ranks(1024);
    for (auto& rank : ranks) {
      // Every rank idles in the last 20 ms (the optimizer step) plus scattered gaps.
      rank.push_back({980'000, 1'000'000});
      for (int r = 0; r < 199; ++r) {
        const auto s = static_cast<std::int64_t>(rng() % 980'000);
        rank.push_back({s, s + 200 + static_cast<std::int64_t>(rng() % 4'000)});
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto all = ridge::lab::all_idle(ranks);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    report.add("scale/all_idle_us", ridge::lab::total_us(all), "us", "every rank idle");
    report.add("scale/records", static_cast<std::int64_t>(1024 * 200), "", "records");
    report.add("scale/ms", ms, "ms", "merge + sweep time", 2);
  }
  report.note("the sweep's time depends on the machine and build type; the idle totals do not");
  return report.print(argc, argv);
}
