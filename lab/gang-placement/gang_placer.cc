#include "gang_placer.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace ridge::lab {

Cluster::Cluster(int pods, int racks_per_pod, int nodes_per_rack)
    : pods_(pods), racks_per_pod_(racks_per_pod), nodes_per_rack_(nodes_per_rack) {
  if (pods < 1 || racks_per_pod < 1 || nodes_per_rack < 1)
    throw std::invalid_argument("cluster shape " + std::to_string(pods) + " x " + std::to_string(racks_per_pod) +
                                " x " + std::to_string(nodes_per_rack) + ": every level must be >= 1");
  busy_.assign(static_cast<std::size_t>(pods * racks_per_pod * nodes_per_rack), false);
  rack_free_.assign(static_cast<std::size_t>(racks()), nodes_per_rack);
  pod_free_.assign(static_cast<std::size_t>(pods), racks_per_pod * nodes_per_rack);
  total_free_ = nodes();
}

void Cluster::take_from_rack(int rack, int& need, std::vector<int>& out) const {
  for (int i = rack * nodes_per_rack_; i < (rack + 1) * nodes_per_rack_ && need > 0; ++i)
    if (!busy_[static_cast<std::size_t>(i)]) {
      out.push_back(i);
      --need;
    }
}

void Cluster::fill_most_free_first(std::vector<int> racks, int need, std::vector<int>& out) const {
  std::stable_sort(racks.begin(), racks.end(), [&](int a, int b) { return rack_free(a) > rack_free(b); });
  for (int r : racks) take_from_rack(r, need, out);
}

std::optional<std::vector<int>> Cluster::place(int n, Policy policy) const {
  if (n < 1) throw std::invalid_argument("gang size " + std::to_string(n) + ": must be >= 1");
  if (n > total_free_) return std::nullopt;  // all or nothing: checked before any node is chosen
  std::vector<int> out;
  if (policy == Policy::kFirstFit) {
    for (int i = 0; i < nodes() && static_cast<int>(out.size()) < n; ++i)
      if (!busy_[static_cast<std::size_t>(i)]) out.push_back(i);
    return out;
  }
  std::vector<int> all(static_cast<std::size_t>(racks()));
  std::iota(all.begin(), all.end(), 0);
  if (policy == Policy::kSpread) {
    fill_most_free_first(all, n, out);
    return out;
  }
  // Best fit, lowest level first: the tightest rack that holds the whole gang.
  int best = -1;
  for (int r = 0; r < racks(); ++r)
    if (rack_free(r) >= n && (best < 0 || rack_free(r) < rack_free(best))) best = r;
  if (best >= 0) {
    take_from_rack(best, n, out);
    return out;
  }
  // Then the tightest pod that holds it, its racks by most free.
  int best_pod = -1;
  for (int q = 0; q < pods_; ++q)
    if (pod_free(q) >= n && (best_pod < 0 || pod_free(q) < pod_free(best_pod))) best_pod = q;
  if (best_pod >= 0) {
    std::vector<int> in_pod(static_cast<std::size_t>(racks_per_pod_));
    std::iota(in_pod.begin(), in_pod.end(), best_pod * racks_per_pod_);
    fill_most_free_first(in_pod, n, out);
    return out;
  }
  // Spans pods: pods by most free first, racks by most free inside each.
  std::vector<int> order(static_cast<std::size_t>(pods_));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return pod_free(a) > pod_free(b); });
  for (int q : order) {
    std::vector<int> in_pod(static_cast<std::size_t>(racks_per_pod_));
    std::iota(in_pod.begin(), in_pod.end(), q * racks_per_pod_);
    const int want = n - static_cast<int>(out.size());
    fill_most_free_first(in_pod, std::min(want, pod_free(q)), out);
  }
  return out;
}

void Cluster::check_nodes(const std::vector<int>& nodes, bool want_busy, const char* what) const {
  std::vector<bool> seen(busy_.size(), false);
  for (int i : nodes) {
    if (i < 0 || i >= this->nodes())
      throw std::invalid_argument(std::string(what) + " node " + std::to_string(i) + ": must be in [0, " +
                                  std::to_string(this->nodes()) + ")");
    const auto k = static_cast<std::size_t>(i);
    if (busy_[k] != want_busy || seen[k])
      throw std::invalid_argument(std::string(what) + " node " + std::to_string(i) + ": it is already " +
                                  (want_busy ? "free" : "busy"));
    seen[k] = true;
  }
}

void Cluster::take(const std::vector<int>& nodes) {
  check_nodes(nodes, false, "take");
  for (int i : nodes) {
    busy_[static_cast<std::size_t>(i)] = true;
    const int r = i / nodes_per_rack_;
    --rack_free_[static_cast<std::size_t>(r)];
    --pod_free_[static_cast<std::size_t>(r / racks_per_pod_)];
    --total_free_;
  }
}

void Cluster::release(const std::vector<int>& nodes) {
  check_nodes(nodes, true, "release");
  for (int i : nodes) {
    busy_[static_cast<std::size_t>(i)] = false;
    const int r = i / nodes_per_rack_;
    ++rack_free_[static_cast<std::size_t>(r)];
    ++pod_free_[static_cast<std::size_t>(r / racks_per_pod_)];
    ++total_free_;
  }
}

int Cluster::racks_spanned(const std::vector<int>& nodes) const {
  std::vector<int> r;
  for (int i : nodes) r.push_back(i / nodes_per_rack_);
  std::sort(r.begin(), r.end());
  return static_cast<int>(std::unique(r.begin(), r.end()) - r.begin());
}

SimResult simulate(Policy policy, std::uint64_t seed, int steps) {
  constexpr int kSizes[] = {1, 2, 4, 8, 16, 32};
  constexpr double kWeights[] = {0.40, 0.20, 0.15, 0.15, 0.07, 0.03};
  Cluster c(2, 4, 16);
  std::mt19937_64 rng(seed);
  auto u = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<std::vector<int>> running;
  long placed = 0, arrived = 0, extra = 0, big = 0, big_one_rack = 0, with_free_rack = 0;
  for (int step = 0; step < steps; ++step) {
    for (std::size_t i = 0; i < running.size();) {
      if (u() < 1.0 / 22) {
        c.release(running[i]);
        running[i] = running.back();
        running.pop_back();
      } else {
        ++i;
      }
    }
    const double x = u();
    double acc = 0;
    int n = kSizes[5];
    for (int k = 0; k < 6; ++k) {
      acc += kWeights[k];
      if (x < acc) {
        n = kSizes[k];
        break;
      }
    }
    ++arrived;
    if (auto nodes = c.place(n, policy)) {
      c.take(*nodes);
      const int spans = c.racks_spanned(*nodes);
      extra += spans - (n + c.nodes_per_rack() - 1) / c.nodes_per_rack();
      if (n == 16) {
        ++big;
        big_one_rack += spans == 1;
      }
      running.push_back(std::move(*nodes));
      ++placed;
    }
    bool free_rack = false;
    for (int r = 0; r < c.racks(); ++r) free_rack = free_rack || c.rack_free(r) == c.nodes_per_rack();
    with_free_rack += free_rack;
  }
  return {static_cast<double>(placed) / static_cast<double>(arrived),
          static_cast<double>(extra) / static_cast<double>(placed),
          big > 0 ? static_cast<double>(big_one_rack) / static_cast<double>(big) : 0.0,
          static_cast<double>(with_free_rack) / steps};
}

}  // namespace ridge::lab
