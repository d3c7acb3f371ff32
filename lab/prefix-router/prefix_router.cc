#include "prefix_router.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "hash-ring/hash_ring.h"
#include "hash-ring/stable_hash.h"

namespace ridge::lab {

PrefixRouter::PrefixRouter(int replicas, int points) : n_(replicas) {
  if (replicas < 1) throw std::invalid_argument("replicas = " + std::to_string(replicas) + ": must be >= 1");
  if (points < 1) throw std::invalid_argument("points = " + std::to_string(points) + ": must be >= 1");
  HashRing ring(points);
  for (int r = 0; r < replicas; ++r) ring.add("replica-" + std::to_string(r));
  for (const auto& [hash, name] : ring.points()) {
    ring_.emplace_back(hash, std::stoi(name.substr(std::string("replica-").size())));
  }
}

std::uint64_t PrefixRouter::key(const std::vector<int>& tokens, int key_tokens) {
  const std::size_t k = std::min(tokens.size(), static_cast<std::size_t>(std::max(key_tokens, 0)));
  std::string bytes;
  bytes.reserve(4 * k);
  for (std::size_t i = 0; i < k; ++i) {
    const auto t = static_cast<std::uint32_t>(tokens[i]);
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<char>((t >> (8 * b)) & 0xff));
  }
  return stable_hash64(bytes);
}

int PrefixRouter::owner(std::uint64_t k) const {
  auto it = std::lower_bound(ring_.begin(), ring_.end(), std::make_pair(k, -1));
  if (it == ring_.end()) it = ring_.begin();  // wrap past the largest point
  return it->second;
}

int PrefixRouter::route(const std::vector<int>& tokens, int key_tokens, double epsilon, const std::vector<int>& load,
                        int in_flight) const {
  if (key_tokens < 0) throw std::invalid_argument("key_tokens = " + std::to_string(key_tokens) + ": must be >= 0");
  if (in_flight < 0) throw std::invalid_argument("in_flight = " + std::to_string(in_flight) + ": must be >= 0");
  if (static_cast<int>(load.size()) != n_) {
    throw std::invalid_argument("load has " + std::to_string(load.size()) + " entries: expected one per replica (" +
                                std::to_string(n_) + ")");
  }
  int sum = 0;
  for (int l : load) {
    if (l < 0) throw std::invalid_argument("load " + std::to_string(l) + ": must be >= 0");
    sum += l;
  }
  if (sum != in_flight) {
    throw std::invalid_argument("in_flight = " + std::to_string(in_flight) + " but the loads sum to " +
                                std::to_string(sum) + ": in_flight counts the requests in flight now");
  }
  const std::uint64_t h = key(tokens, key_tokens);
  if (epsilon < 0) return owner(h);
  const double cap = std::ceil((1 + epsilon) * (in_flight + 1) / n_);
  auto it = std::lower_bound(ring_.begin(), ring_.end(), std::make_pair(h, -1));
  std::vector<bool> tried(static_cast<std::size_t>(n_), false);
  int distinct = 0;
  for (std::size_t step = 0; step < ring_.size() && distinct < n_; ++step, ++it) {
    if (it == ring_.end()) it = ring_.begin();  // wrap past the largest point
    const int r = it->second;
    if (tried[r]) continue;  // the next DISTINCT replica, not the next point
    tried[r] = true;
    ++distinct;
    if (load[r] < cap) return r;
  }
  // cap × n > in_flight = the sum of the loads, so some replica is below the cap.
  throw std::logic_error("PrefixRouter::route: every replica at the cap");
}

}  // namespace ridge::lab
