// Sampler figures over a Llama-3-sized vocabulary (128,256 logits drawn from a fixed
// seed): the cost of one draw per setting, how many tokens top-p keeps, and the
// chi-square statistic of the lab's test configuration at its fixed seed.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/report.h"
#include "sampler.h"

namespace {

using ridge::lab::SamplingParams;

constexpr std::size_t kVocab = 128'256;

// Logits shaped like a language model's next-token distribution: Zipfian in rank
// (logit = -1.5 ln rank, so at T = 1 p ~ rank^-1.5), ranks shuffled over token ids with a
// fixed seed.
std::vector<float> make_logits() {
  std::vector<std::size_t> rank(kVocab);
  for (std::size_t i = 0; i < kVocab; ++i) rank[i] = i + 1;
  std::mt19937_64 rng(20261130);
  for (std::size_t i = kVocab - 1; i > 0; --i) std::swap(rank[i], rank[rng() % (i + 1)]);  // Fisher-Yates
  std::vector<float> out(kVocab);
  for (std::size_t i = 0; i < kVocab; ++i) out[i] = static_cast<float>(-1.5 * std::log(static_cast<double>(rank[i])));
  return out;
}

double us_per_draw(const std::vector<float>& logits, const SamplingParams& p, int draws) {
  std::mt19937_64 rng(7);
  std::int64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < draws; ++i) sink += ridge::lab::sample(logits, p, rng);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  return sink == -1 ? 0 : us / draws;
}

std::int64_t survivors(const std::vector<float>& logits, const SamplingParams& p) {
  std::int64_t n = 0;
  for (double q : ridge::lab::distribution(logits, p)) n += q > 0;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("sampler", "temperature, top-k, top-p over 128,256 logits");
  const auto logits = make_logits();

  struct Setting {
    const char* key;
    const char* label;
    SamplingParams params;
  };
  const Setting settings[] = {
      {"greedy", "T = 0 (greedy argmax)", {.temperature = 0}},
      {"full", "T = 1, no filter", {}},
      {"top_k_50", "T = 0.8, top-k 50", {.temperature = 0.8, .top_k = 50}},
      {"top_p_0_9", "T = 0.8, top-p 0.9", {.temperature = 0.8, .top_p = 0.9}},
      {"top_k_50_top_p_0_9", "T = 0.8, top-k 50, top-p 0.9", {.temperature = 0.8, .top_k = 50, .top_p = 0.9}},
  };

  report.section("cost of one draw (distribution + inverse CDF)");
  for (const auto& s : settings) {
    report.add(std::string("us_per_draw/") + s.key, us_per_draw(logits, s.params, 50), "us", s.label, 1);
  }

  report.section("tokens with non-zero probability");
  for (const auto& s : settings) report.add(std::string("survivors/") + s.key, survivors(logits, s.params), "tokens", s.label);

  report.section("the test's chi-square at seed 20261130 (T 0.7, top-k 4, top-p 0.9; 100,000 draws)");
  {
    const std::vector<float> small{3.0f, 2.5f, 2.0f, 1.0f, 0.5f, 0.0f, -1.0f, -2.0f};
    const SamplingParams p{.temperature = 0.7, .top_k = 4, .top_p = 0.9};
    const auto expected = ridge::lab::distribution(small, p);
    std::vector<int> counts(small.size(), 0);
    std::mt19937_64 rng(20261130);
    const int n = 100'000;
    for (int i = 0; i < n; ++i) ++counts[static_cast<std::size_t>(ridge::lab::sample(small, p, rng))];
    double stat = 0;
    for (std::size_t i = 0; i < small.size(); ++i) {
      if (expected[i] > 0) stat += (counts[i] - expected[i] * n) * (counts[i] - expected[i] * n) / (expected[i] * n);
    }
    report.add("chi_square/statistic", stat, "", "statistic (2 degrees of freedom)", 3);
    report.add("chi_square/critical_p001", 13.816, "", "critical value at p = 0.001", 3);
  }
  report.note("draw costs depend on the machine and build type; survivor counts and the statistic do not");
  return report.print(argc, argv);
}
