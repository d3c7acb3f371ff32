// Figures for the radix prefix cache: hit rate against a token budget in a multi-turn chat
// simulation (the one the question runs), and the cost of eviction with the priority queue.
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/report.h"
#include "radix_cache.h"

namespace {

using ridge::lab::RadixCache;

std::vector<int> seq(int base, int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(base + i);
  return v;
}

std::vector<int> cat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Result {
  double hit_rate = 0;
  std::int64_t evicted = 0;
  double seconds = 0;
};

// 200 sessions of 4 turns over 10 system prompts of 300 tokens; each turn adds a 50-token user
// message, matches the conversation so far, and inserts the 100-token answer.
Result chat(std::size_t budget) {
  RadixCache c;
  std::mt19937_64 rng(20261201);
  std::vector<std::vector<int>> history(200);
  std::vector<int> turns(200, 0);
  std::int64_t reused = 0, prompt = 0, evicted = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < 800; ++step) {
    int s = static_cast<int>(rng() % 200);
    while (turns[s] == 4) s = (s + 1) % 200;
    auto& h = history[s];
    if (turns[s] == 0) h = seq(100'000 * (1 + s % 10), 300);
    h = cat(h, seq(10'000'000 + step * 1000, 50));
    reused += static_cast<std::int64_t>(c.match(h).first);
    prompt += static_cast<std::int64_t>(h.size());
    h = cat(h, seq(20'000'000 + step * 1000, 100));
    c.insert(h);
    if (c.size() > budget) evicted += static_cast<std::int64_t>(c.evict(c.size() - budget));
    ++turns[s];
  }
  const auto t1 = std::chrono::steady_clock::now();
  return {static_cast<double>(reused) / static_cast<double>(prompt), evicted,
          std::chrono::duration<double>(t1 - t0).count()};
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("radix-cache", "radix prefix cache: hit rate against token budget in a chat simulation");
  report.section("200 chat sessions x 4 turns, 10 system prompts of 300 tokens, 50-token messages, 100-token answers "
                 "(seed 20261201); hit rate = reused prompt tokens / prompt tokens");
  for (std::size_t budget : {2'000u, 8'000u, 32'000u, 128'000u}) {
    const Result r = chat(budget);
    const std::string key = "budget_" + std::to_string(budget);
    report.add(key + "/hit_rate", r.hit_rate, "", std::to_string(budget) + "-token budget: hit rate", 3);
    report.add(key + "/evicted_tokens", r.evicted, "tokens", "evicted");
    if (budget == 2'000u) {
      report.add("timing/run_ms_budget_2000", r.seconds * 1e3, "ms", "the 800 turns at the 2,000-token budget", 2);
    }
  }
  report.note("the run time depends on the machine and the build type; the hit rates and counts do not");
  return report.print(argc, argv);
}
