// GangPlacer: places a gang of whole nodes on a tree of pods > racks > nodes.
//
// Contract:
// - A node is one NVLink domain (8 GPUs on an HGX system); a rack shares a leaf switch; a
//   pod shares a spine. Nodes are numbered rack by rack: node i is in rack i / nodes_per_rack,
//   rack r in pod r / racks_per_pod. Traffic that stays in a rack is cheapest, then in a pod.
// - place(n) returns n free nodes or nothing: all or nothing, a gang never starts partly.
//   It does not change the cluster; take() marks the nodes busy, release() frees them.
// - kBestFit: use the lowest level that can hold the whole gang (rack, then pod, then the
//   cluster); at that level pick the subtree with the LEAST free nodes that still fits, so
//   large holes stay whole for large gangs. When the gang must span racks, take them by
//   most free first (to span as few as possible); across pods, pods by most free first.
// - kFirstFit: the lowest-numbered free nodes. kSpread: racks by most free, cluster-wide.
// - Inside a rack, the lowest-numbered free nodes. Every tie goes to the lower index, so
//   two schedulers replaying one log place identically.
// - Free counts per rack and per pod are kept incrementally: rack_free and pod_free are
//   O(1), place is O(racks + n) plus the sort when a gang spans racks.
// - Bad input throws std::invalid_argument naming the value: n < 1, a node out of range,
//   take() of a busy node or release() of a free one (a double release), in which case
//   nothing changes.
//
// Not thread-safe: one scheduler loop owns it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ridge::lab {

enum class Policy { kFirstFit, kSpread, kBestFit };

class Cluster {
 public:
  Cluster(int pods, int racks_per_pod, int nodes_per_rack);

  std::optional<std::vector<int>> place(int n, Policy policy) const;
  void take(const std::vector<int>& nodes);
  void release(const std::vector<int>& nodes);

  int nodes() const { return static_cast<int>(busy_.size()); }
  int racks() const { return pods_ * racks_per_pod_; }
  int nodes_per_rack() const { return nodes_per_rack_; }
  bool busy(int node) const { return busy_.at(static_cast<std::size_t>(node)); }
  int total_free() const { return total_free_; }
  int rack_free(int rack) const { return rack_free_[static_cast<std::size_t>(rack)]; }
  int pod_free(int pod) const { return pod_free_[static_cast<std::size_t>(pod)]; }
  int racks_spanned(const std::vector<int>& nodes) const;

 private:
  void take_from_rack(int rack, int& need, std::vector<int>& out) const;
  void fill_most_free_first(std::vector<int> racks, int need, std::vector<int>& out) const;
  void check_nodes(const std::vector<int>& nodes, bool want_busy, const char* what) const;

  const int pods_, racks_per_pod_, nodes_per_rack_;
  std::vector<bool> busy_;
  std::vector<int> rack_free_, pod_free_;
  int total_free_;
};

// The question's churn simulation on 2 pods x 4 racks x 16 nodes: one gang per step for
// `steps` steps, sizes 1, 2, 4, 8, 16, 32 nodes with weights 0.40, 0.20, 0.15, 0.15, 0.07,
// 0.03; each running gang leaves with probability 1/22 per step; std::mt19937_64(seed),
// doubles from the top 53 bits, the same stream for every policy.
struct SimResult {
  double placed_share;           // gangs placed / arrived
  double extra_racks_per_gang;   // racks spanned beyond ceil(n / 16), per placed gang
  double big_in_one_rack_share;  // 16-node gangs placed in a single rack
  double full_rack_free_share;   // steps with at least one whole rack free
};
SimResult simulate(Policy policy, std::uint64_t seed = 20261201, int steps = 20'000);

}  // namespace ridge::lab
