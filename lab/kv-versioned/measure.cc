// Versioned KV figures: read-at-version cost against history depth (binary search keeps
// it flat), and what compaction reclaims from a write-heavy history.
#include <chrono>
#include <cstdint>
#include <random>
#include <string>

#include "common/report.h"
#include "versioned_kv.h"

namespace {

double ns_per_read(int depth) {
  ridge::lab::VersionedKv kv;
  for (int i = 0; i < depth; ++i) kv.put("hot", std::string("value-").append(std::to_string(i)));
  const std::uint64_t n = kv.current_version();
  std::mt19937_64 rng(1);
  constexpr int kReads = 200'000;
  std::uint64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kReads; ++i) sink += kv.get_at("hot", 1 + rng() % n).version;
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kReads;
  return sink == 0 ? -1 : ns;
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("kv-versioned", "reads at a version, compaction");

  report.section("get_at at a random past version of one key");
  for (int depth : {1, 1'000, 100'000}) {
    report.add(std::string("read_ns/depth_").append(std::to_string(depth)), ns_per_read(depth), "ns",
               std::string("history depth ").append(std::to_string(depth)), 0);
  }

  report.section("1,000 keys, 200,000 writes (10% erases), compact at the newest version");
  {
    ridge::lab::VersionedKv kv;
    std::mt19937_64 rng(20261130);
    for (int i = 0; i < 200'000; ++i) {
      const std::string key = std::string("key-").append(std::to_string(rng() % 1000));
      if (rng() % 10 == 0) {
        kv.erase(key);
      } else {
        kv.put(key, std::string("v").append(std::to_string(i)));
      }
    }
    const auto before = kv.history_size();
    const auto live_before = kv.scan_at(kv.current_version()).entries.size();
    const auto dropped = kv.compact(kv.current_version());
    report.add("compaction/history_before", static_cast<std::int64_t>(before), "writes", "history entries before");
    report.add("compaction/dropped", static_cast<std::int64_t>(dropped), "writes", "dropped");
    report.add("compaction/history_after", static_cast<std::int64_t>(kv.history_size()), "writes", "history entries after");
    report.add("compaction/live_keys_before", static_cast<std::int64_t>(live_before), "keys", "live keys before");
    report.add("compaction/live_keys_after",
               static_cast<std::int64_t>(kv.scan_at(kv.current_version()).entries.size()), "keys", "live keys after");
  }
  report.note("read costs depend on the machine and build type; the counts do not");
  return report.print(argc, argv);
}
