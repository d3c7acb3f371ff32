// The hash-ring build over the lab protocol (lab/README.md, "The protocol"). Hashes are
// unsigned 64-bit JSON integers.
#include <memory>

#include "common/protocol.h"
#include "hash_ring.h"
#include "stable_hash.h"

namespace {

using nlohmann::json;

json owner_json(const std::optional<std::string>& owner) { return owner ? json(*owner) : json(nullptr); }

std::unique_ptr<ridge::lab::HashRing> ring;

json handle(const json& req) {
  const std::string op = req.at("op").get<std::string>();
  if (op == "hash") {
    const std::string bytes = req.at("bytes").get<std::string>();
    return {{"fnv1a64", ridge::lab::fnv1a64(bytes)}, {"stable", ridge::lab::stable_hash64(bytes)}};
  }
  if (op == "mix64") return {{"mix64", ridge::lab::mix64(req.at("x").get<std::uint64_t>())}};
  if (op == "new") {
    const int points = req.at("points_per_replica").get<int>();
    if (points < 1) throw std::invalid_argument("points_per_replica must be >= 1");
    ring = std::make_unique<ridge::lab::HashRing>(points);
    return {{"ok", true}};
  }
  if (ring == nullptr) throw std::invalid_argument("no ring yet: send op new first");
  if (op == "add") return {{"added", ring->add(req.at("replica").get<std::string>())}};
  if (op == "remove") return {{"removed", ring->remove(req.at("replica").get<std::string>())}};
  if (op == "owner") return {{"owner", owner_json(ring->owner(req.at("key").get<std::string>()))}};
  if (op == "owners") {
    json owners = json::array();
    for (const auto& key : req.at("keys")) owners.push_back(owner_json(ring->owner(key.get<std::string>())));
    return {{"owners", owners}};
  }
  if (op == "owner_of_hash") return {{"owner", owner_json(ring->owner_of_hash(req.at("hash").get<std::uint64_t>()))}};
  if (op == "stats") return {{"replicas", ring->replica_count()}, {"points", ring->point_count()}};
  if (op == "points") {
    json points = json::array();
    for (const auto& [hash, replica] : ring->points()) points.push_back({hash, replica});
    return {{"points", points}};
  }
  ridge::lab::unknown_op(req, "hash, mix64, new, add, remove, owner, owners, owner_of_hash, stats, points");
}

}  // namespace

int main() { return ridge::lab::serve(handle); }
