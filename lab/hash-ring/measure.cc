// Consistent hashing with and without virtual nodes, over 1,000,000 keys: the load on the
// heaviest of 8 replicas against the mean, and the share of keys that move when a 9th
// replica joins, against the ideal 1/9. Modulo hashing (hash % N) is the baseline.
// Every figure is exact and repeatable: the hash is stable and the keys are fixed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/report.h"
#include "hash_ring.h"
#include "stable_hash.h"

namespace {

using ridge::lab::HashRing;

constexpr int kKeys = 1'000'000;

std::vector<std::string> make_keys() {
  std::vector<std::string> out;
  out.reserve(kKeys);
  for (int i = 0; i < kKeys; ++i) out.push_back("key-" + std::to_string(i));
  return out;
}

double max_over_mean(const std::vector<std::string>& owners, int replicas) {
  std::map<std::string, std::int64_t> load;
  for (const auto& o : owners) ++load[o];
  std::int64_t max_load = 0;
  for (const auto& [name, n] : load) max_load = std::max(max_load, n);
  return static_cast<double>(max_load) / (static_cast<double>(owners.size()) / replicas);
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("hash-ring", "consistent hashing: balance and movement, 1,000,000 keys");
  report.note("hash: FNV-1a 64 + murmur3 fmix64; keys key-0 .. key-999999; replicas replica-0 .. replica-8");
  const auto keys = make_keys();

  for (int points : {1, 150}) {
    const std::string key = "points_" + std::to_string(points);
    report.section(std::to_string(points) + (points == 1 ? " point" : " points") + " per replica");
    HashRing ring(points);
    for (int r = 0; r < 8; ++r) ring.add("replica-" + std::to_string(r));
    std::vector<std::string> before;
    before.reserve(keys.size());
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& k : keys) before.push_back(*ring.owner(k));
    const double lookup_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kKeys;

    ring.add("replica-8");
    std::int64_t moved = 0;
    std::vector<std::string> after;
    after.reserve(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      after.push_back(*ring.owner(keys[i]));
      moved += after.back() != before[i];
    }
    report.add(key + "/max_over_mean_8", max_over_mean(before, 8), "x", "max/mean load over 8 replicas");
    report.add(key + "/moved_share_9th", static_cast<double>(moved) / kKeys, "", "share of keys moved by a 9th replica",
               4);
    report.add(key + "/max_over_mean_9", max_over_mean(after, 9), "x", "max/mean load over 9 replicas");
    report.add(key + "/lookup_ns", lookup_ns, "ns", "lookup, including the owner string copy", 0);
  }

  report.section("baseline: modulo hashing, owner = stable_hash64(key) % N");
  {
    std::int64_t moved = 0;
    std::vector<std::int64_t> load(8, 0);
    for (const auto& k : keys) {
      const std::uint64_t h = ridge::lab::stable_hash64(k);
      ++load[h % 8];
      moved += (h % 8) != (h % 9);
    }
    report.add("modulo/max_over_mean_8",
               static_cast<double>(*std::max_element(load.begin(), load.end())) / (kKeys / 8.0), "x",
               "max/mean load over 8 replicas");
    report.add("modulo/moved_share_9th", static_cast<double>(moved) / kKeys, "", "share of keys moved going 8 -> 9",
               4);
  }
  report.add("ideal_moved_share_9th", 1.0 / 9.0, "", "ideal share moved (1/9)", 4);
  return report.print(argc, argv);
}
