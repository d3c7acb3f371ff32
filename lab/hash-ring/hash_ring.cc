#include "hash_ring.h"

#include <algorithm>

#include "stable_hash.h"

namespace ridge::lab {

HashRing::HashRing(int points_per_replica) : points_per_replica_(points_per_replica) {}

bool HashRing::add(const std::string& replica) {
  const auto it = std::lower_bound(replicas_.begin(), replicas_.end(), replica);
  if (it != replicas_.end() && *it == replica) return false;
  replicas_.insert(it, replica);
  rebuild();
  return true;
}

bool HashRing::remove(const std::string& replica) {
  const auto it = std::lower_bound(replicas_.begin(), replicas_.end(), replica);
  if (it == replicas_.end() || *it != replica) return false;
  replicas_.erase(it);
  rebuild();
  return true;
}

void HashRing::rebuild() {
  points_.clear();
  points_.reserve(replicas_.size() * static_cast<std::size_t>(points_per_replica_));
  for (std::uint32_t r = 0; r < replicas_.size(); ++r) {
    for (int i = 0; i < points_per_replica_; ++i) {
      points_.push_back({stable_hash64(replicas_[r] + "#" + std::to_string(i)), r});
    }
  }
  // replicas_ is sorted by name, so ordering ties by index orders them by name.
  std::sort(points_.begin(), points_.end(), [](const Point& a, const Point& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.replica < b.replica;
  });
}

std::optional<std::string> HashRing::owner_of_hash(std::uint64_t hash) const {
  if (points_.empty()) return std::nullopt;
  auto it = std::lower_bound(points_.begin(), points_.end(), hash,
                             [](const Point& p, std::uint64_t h) { return p.hash < h; });
  if (it == points_.end()) it = points_.begin();  // past the largest point: wrap around
  return replicas_[it->replica];
}

std::optional<std::string> HashRing::owner(std::string_view key) const { return owner_of_hash(stable_hash64(key)); }

std::vector<std::pair<std::uint64_t, std::string>> HashRing::points() const {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  out.reserve(points_.size());
  for (const auto& p : points_) out.emplace_back(p.hash, replicas_[p.replica]);
  return out;
}

}  // namespace ridge::lab
