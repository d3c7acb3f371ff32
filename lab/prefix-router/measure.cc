// Figures for the prefix router: hit rate and peak load for five policies on a chat workload
// (the question's simulation): 20,000 requests, a shared 8-token template, one of 40 system
// prompts of 64 tokens with Zipf(1) popularity, a 32-token user turn; 8 replicas, each with
// an LRU cache of 8 system prompts; a request stays in flight for the next 64 arrivals.
#include <algorithm>
#include <cstdint>
#include <list>
#include <random>
#include <string>
#include <vector>

#include "common/report.h"
#include "prefix_router.h"

namespace {

using ridge::lab::PrefixRouter;

constexpr int kReplicas = 8, kPrompts = 40, kRequests = 20'000, kWindow = 64, kCacheSlots = 8;
constexpr int kTemplate = 8, kSystem = 64, kUser = 32;

// Per-replica LRU of cached system prompts (a stand-in for the prefix cache's capacity).
struct Lru {
  std::size_t cap;
  std::list<int> items;
  bool touch(int id) {
    auto it = std::find(items.begin(), items.end(), id);
    const bool hit = it != items.end();
    if (hit) items.erase(it);
    items.push_front(id);
    if (items.size() > cap) items.pop_back();
    return hit;
  }
};

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("prefix-router", "prefix-hash routing: hit rate and peak load for five policies");
  std::mt19937_64 rng(20261201);
  auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<double> cdf(kPrompts);
  double z = 0;
  for (int i = 0; i < kPrompts; ++i) z += 1.0 / (i + 1);
  for (int i = 0; i < kPrompts; ++i) cdf[i] = (i ? cdf[i - 1] : 0) + 1.0 / (i + 1) / z;
  cdf.back() = 1.0;
  std::vector<std::vector<int>> reqs;
  std::vector<int> prompt_of;
  for (int q = 0; q < kRequests; ++q) {
    const double u = uniform();
    const int p = static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    std::vector<int> t;
    for (int i = 0; i < kTemplate; ++i) t.push_back(1000 + i);
    for (int i = 0; i < kSystem; ++i) t.push_back(100000 * (p + 1) + i);
    for (int i = 0; i < kUser; ++i) t.push_back(static_cast<int>(rng() % 50000));
    reqs.push_back(t);
    prompt_of.push_back(p);
  }
  report.section("20,000 requests, 40 system prompts (Zipf 1, seed 20261201), 8 replicas x 150 points, "
                 "8 cached prompts per replica, 64 in flight");
  report.add("hot_prompt_share", cdf[0], "", "share of traffic on the hottest prompt", 3);
  const PrefixRouter router(kReplicas, 150);
  struct Policy {
    const char* key;
    int key_tokens;
    double epsilon;
    bool round_robin;
  };
  const Policy policies[] = {
      {"round_robin", 0, -1, true},
      {"hash_8_tokens", kTemplate, -1, false},
      {"hash_64_tokens", 64, -1, false},
      {"hash_whole_prompt", kTemplate + kSystem + kUser, -1, false},
      {"hash_64_eps_0.25", 64, 0.25, false},
  };
  for (const auto& pol : policies) {
    std::vector<Lru> cache(kReplicas, Lru{kCacheSlots, {}});
    std::vector<int> load(kReplicas, 0), assigned;
    int hits = 0, peak = 0, in_flight = 0;
    for (int q = 0; q < kRequests; ++q) {
      if (q >= kWindow) {
        --load[assigned[q - kWindow]];  // a request finishes after 64 arrivals
        --in_flight;
      }
      const int r = pol.round_robin ? q % kReplicas : router.route(reqs[q], pol.key_tokens, pol.epsilon, load, in_flight);
      assigned.push_back(r);
      ++load[r];
      ++in_flight;
      peak = std::max(peak, *std::max_element(load.begin(), load.end()));
      hits += cache[r].touch(prompt_of[q]);
    }
    const std::string k = pol.key;
    report.add(k + "/hit_rate", static_cast<double>(hits) / kRequests, "", k + ": hit rate", 3);
    report.add(k + "/max_over_mean_load", peak / (static_cast<double>(kWindow) / kReplicas), "",
               k + ": peak in-flight on one replica over the mean", 2);
  }
  return report.print(argc, argv);
}
