// Figures for the block allocator: prefix-cache hit rate against pool size on a fixed
// trace of requests that share a few long system prompts, 16-token blocks.
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "block_allocator.h"
#include "common/report.h"

namespace {

using ridge::lab::BlockAllocator;

constexpr int kBlock = 16;
constexpr int kPrefixes = 16;
constexpr int kPrefixTokens = 128;  // 8 full blocks
constexpr int kTailTokens = 69;     // 4 full blocks and a partial one, unique per request
constexpr int kLive = 8;            // sequences decoding at once (FIFO: the oldest finishes)
constexpr int kRequests = 20000;

double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

struct Result {
  double hit_rate = 0;  // shared or revived full blocks / full blocks requested
  std::int64_t evictions = 0;
};

Result simulate(int pool) {
  std::mt19937_64 rng(20261201);
  BlockAllocator kv(pool, kBlock);
  std::deque<BlockAllocator::Seq> live;
  int next_token = 1'000'000;
  std::int64_t full_requested = 0;
  for (int r = 0; r < kRequests; ++r) {
    const double u = uniform(rng);
    const int p = static_cast<int>(kPrefixes * u * u);  // skewed: prompt 0 is the most popular
    std::vector<int> prompt;
    for (int i = 0; i < kPrefixTokens; ++i) prompt.push_back(p * 10'000 + i);
    for (int i = 0; i < kTailTokens; ++i) prompt.push_back(next_token++);
    full_requested += static_cast<std::int64_t>(prompt.size()) / kBlock;
    if (static_cast<int>(live.size()) == kLive) {
      kv.release(live.front());
      live.pop_front();
    }
    auto s = kv.allocate(prompt);
    while (!s) {  // cannot happen while pool >= kLive * 13 blocks; kept for smaller pools
      kv.release(live.front());
      live.pop_front();
      s = kv.allocate(prompt);
    }
    live.push_back(std::move(*s));
  }
  return {static_cast<double>(kv.stats().hits) / static_cast<double>(full_requested), kv.stats().evictions};
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("kv-blocks", "paged KV block allocator: prefix-cache hit rate against pool size");
  report.section("20,000 requests: one of 16 system prompts of 128 tokens (skewed, seed 20261201) + 69 unique "
                 "tokens; 16-token blocks; 8 live sequences");
  report.note("8 live sequences need at most 8 x 13 = 104 blocks; the rest of the pool is prefix cache");
  report.add("best_possible_hit_rate", static_cast<double>(kPrefixTokens / kBlock) /
                                          static_cast<double>((kPrefixTokens + kTailTokens) / kBlock),
             "", "best possible hit rate (the tails are unique)", 4);
  for (int pool : {104, 112, 128, 160, 192, 232, 256, 512, 1024}) {
    const Result r = simulate(pool);
    const std::string key = "pool_" + std::to_string(pool);
    report.add(key + "/hit_rate", r.hit_rate, "", "pool of " + std::to_string(pool) + " blocks: hit rate", 4);
    report.add(key + "/evictions", r.evictions, "blocks", "cached blocks evicted");
  }
  return report.print(argc, argv);
}
