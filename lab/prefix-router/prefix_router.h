// PrefixRouter: sends requests whose prompts share a prefix to the same replica, so that
// replica's prefix cache hits, with bounded loads so one hot prefix cannot melt a replica.
// The ring and the hash are lab/hash-ring/'s: replica r is named "replica-<r>" and placed by
// HashRing (150 points in production, stable_hash64 = FNV-1a then fmix64, never std::hash),
// and the key is stable_hash64 of the token ids.
//
// Contract:
// - key(tokens, key_tokens) = stable_hash64 of the first min(key_tokens, size) token ids, each
//   written as 4 little-endian bytes (the same on every machine and every router replica).
//   Token ids, not text: the cache is keyed by tokens. In production key_tokens is a whole
//   number of KV blocks, long enough to pass the chat template, short enough to stop before
//   the user's turn.
// - owner = the replica of the first ring point clockwise at or after the key, wrapping past
//   the largest point to the smallest (HashRing::owner_of_hash).
// - With epsilon >= 0, a replica whose in-flight count load[r] has reached
//   cap = ceil((1 + epsilon) × (in_flight + 1) / n) is skipped, and the walk goes clockwise to
//   the next DISTINCT replica (points of replicas already tried are passed over). in_flight is
//   the number of requests in flight now (the sum of load), not a cumulative count; the + 1 is
//   the request being routed, so some replica is always below the cap. epsilon < 0: no bound.
// - Deterministic: the same tokens and the same loads give the same replica on every router.
// - route() is const and may run concurrently; the caller owns the load vector.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ridge::lab {

class PrefixRouter {
 public:
  // Throws std::invalid_argument for replicas < 1 or points < 1.
  PrefixRouter(int replicas, int points);

  // Throws std::invalid_argument for key_tokens < 0, load.size() != replicas, a negative load,
  // or loads that do not sum to in_flight.
  int route(const std::vector<int>& tokens, int key_tokens, double epsilon, const std::vector<int>& load,
            int in_flight) const;

  static std::uint64_t key(const std::vector<int>& tokens, int key_tokens);
  // The owner without a bound.
  int owner(std::uint64_t key) const;
  int replicas() const { return n_; }
  // (point hash, replica), ascending: the ring as HashRing placed it.
  const std::vector<std::pair<std::uint64_t, int>>& ring() const { return ring_; }

 private:
  int n_;
  std::vector<std::pair<std::uint64_t, int>> ring_;
};

}  // namespace ridge::lab
