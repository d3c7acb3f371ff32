// HashRing: consistent hashing with virtual nodes.
//
// Contract:
// - Each replica owns `points_per_replica` points on a 64-bit ring; point i of replica r
//   sits at stable_hash64(r + "#" + decimal(i)). A key belongs to the first point
//   clockwise at or after stable_hash64(key), wrapping past 2^64 - 1 to the smallest point.
//   A key hashing exactly onto a point belongs to that point.
// - Points that collide (same hash) are ordered by replica name: the smaller name wins,
//   so the owner never depends on insertion order.
// - Adding a replica moves only keys that the new replica now owns; removing one moves
//   only the keys it owned. No key moves between two replicas that stayed.
// - Placement depends only on the set of replicas and points_per_replica: two rings built
//   in any order agree, on any machine.
// - Lookups (const members) may run concurrently with each other; add/remove need
//   exclusive access.
//
// Precondition: points_per_replica >= 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lab {

class HashRing {
 public:
  explicit HashRing(int points_per_replica);

  bool add(const std::string& replica);     // false if already on the ring
  bool remove(const std::string& replica);  // false if not on the ring

  // The replica owning `key`; nullopt when the ring is empty.
  std::optional<std::string> owner(std::string_view key) const;
  // The replica owning ring position `hash`; nullopt when the ring is empty.
  std::optional<std::string> owner_of_hash(std::uint64_t hash) const;

  std::size_t replica_count() const { return replicas_.size(); }
  std::size_t point_count() const { return points_.size(); }
  // Ring positions, ascending, with the owning replica: for tests and inspection.
  std::vector<std::pair<std::uint64_t, std::string>> points() const;

 private:
  struct Point {
    std::uint64_t hash;
    std::uint32_t replica;  // index into replicas_
  };

  void rebuild();

  const int points_per_replica_;
  std::vector<std::string> replicas_;  // sorted by name
  std::vector<Point> points_;          // sorted by (hash, replica name)
};

}  // namespace ridge::lab
