#include "tenant_limiter.h"

#include <algorithm>
#include <stdexcept>

namespace ridge::lab {

std::int64_t Bucket::refill() {
  const std::int64_t add = std::min(per_tick, capacity - tokens);
  tokens += add;
  return per_tick - add;
}

bool Bucket::take(std::int64_t n) {
  if (tokens < n) return false;
  tokens -= n;
  return true;
}

void Bucket::refund(std::int64_t n) { tokens = std::min(capacity, tokens + n); }

TenantLimiter::TenantLimiter(std::int64_t fleet_rate, int ticks_per_second, std::vector<TenantSpec> tenants,
                             Policy policy)
    : tenants_(std::move(tenants)), policy_(policy) {
  if (fleet_rate < 1) throw std::invalid_argument("fleet_rate " + std::to_string(fleet_rate) + ": must be >= 1");
  if (ticks_per_second < 1)
    throw std::invalid_argument("ticks_per_second " + std::to_string(ticks_per_second) + ": must be >= 1");
  if (tenants_.empty()) throw std::invalid_argument("tenants: at least one is required");
  std::int64_t wsum = 0;
  for (const auto& t : tenants_) {
    if (t.weight < 1)
      throw std::invalid_argument("weight of tenant '" + t.name + "' " + std::to_string(t.weight) + ": must be >= 1");
    wsum += t.weight;
  }
  for (const auto& t : tenants_) {
    const std::int64_t rate = fleet_rate * t.weight / wsum;
    own_.push_back({rate, rate, rate / ticks_per_second});
  }
  shared_ = {0, fleet_rate / 10, 0};
  global_ = {fleet_rate, fleet_rate, fleet_rate / ticks_per_second};
}

std::size_t TenantLimiter::index(const std::string& tenant) const {
  for (std::size_t i = 0; i < tenants_.size(); ++i)
    if (tenants_[i].name == tenant) return i;
  throw std::invalid_argument("tenant '" + tenant + "': not configured");
}

void TenantLimiter::tick() {
  if (policy_ == Policy::kGlobal) {
    global_.refill();
    return;
  }
  for (auto& b : own_) {
    const std::int64_t spill = b.refill();
    if (policy_ == Policy::kGuaranteeAndBorrow) shared_.refund(spill);
  }
}

Reservation TenantLimiter::reserve(const std::string& tenant, std::int64_t n) {
  const std::size_t i = index(tenant);
  if (n < 1) throw std::invalid_argument("reserve n " + std::to_string(n) + ": must be >= 1");
  Reservation r{Payer::kNone, i, n, 0};
  if (policy_ == Policy::kGlobal) {
    if (global_.take(n)) r.payer = Payer::kGlobal;
  } else if (own_[i].take(n)) {
    r.payer = Payer::kOwn;
  } else if (policy_ == Policy::kGuaranteeAndBorrow && shared_.take(n)) {
    r.payer = Payer::kShared;
  }
  if (!r.admitted()) {
    const Bucket& b = policy_ == Policy::kGlobal ? global_ : own_[i];
    const std::int64_t deficit = n - b.tokens;
    // Rounded up: a caller that waits exactly this long finds the tokens there. A cost above
    // capacity never fits: answered as -1 (waiting cannot help).
    r.retry_after_ticks = n > b.capacity || b.per_tick == 0 ? -1 : (deficit + b.per_tick - 1) / b.per_tick;
  }
  return r;
}

Bucket& TenantLimiter::payer_bucket(const Reservation& r) {
  if (r.payer == Payer::kGlobal) return global_;
  if (r.payer == Payer::kShared) return shared_;
  return own_[r.tenant];
}

void TenantLimiter::settle(Reservation& r, std::int64_t used) {
  if (!r.admitted()) throw std::invalid_argument("settle: the reservation was denied; nothing to settle");
  if (r.settled) throw std::invalid_argument("settle: the reservation is already settled");
  if (used < 0 || used > r.reserved)
    throw std::invalid_argument("settle used " + std::to_string(used) + ": must be in [0, " +
                                std::to_string(r.reserved) + "]");
  payer_bucket(r).refund(r.reserved - used);
  r.settled = true;
}

std::vector<double> simulate(const std::vector<TenantLoad>& load, std::int64_t fleet_rate, Policy policy,
                             int seconds, int warmup_s, std::int64_t cost) {
  constexpr int kTicksPerS = 100;
  std::vector<TenantSpec> specs;
  for (const auto& l : load) specs.push_back(l.spec);
  TenantLimiter limiter(fleet_rate, kTicksPerS, specs, policy);
  const std::size_t n = load.size();
  std::vector<std::int64_t> served(n, 0);
  std::size_t cursor = 0;
  for (int tick = 0; tick < seconds * kTicksPerS; ++tick) {
    limiter.tick();
    const bool counted = tick >= warmup_s * kTicksPerS;
    std::vector<std::int64_t> pending(n);
    for (std::size_t i = 0; i < n; ++i) pending[i] = load[i].demand_per_s / kTicksPerS / cost;
    if (policy == Policy::kGlobal) {
      // Request j of tenant i arrives at j / pending[i] of the tick; earliest served first.
      struct Arrival {
        double at;
        std::size_t tenant;
      };
      std::vector<Arrival> order;
      for (std::size_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < pending[i]; ++j)
          order.push_back({static_cast<double>(j) / static_cast<double>(pending[i]), i});
      std::stable_sort(order.begin(), order.end(), [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
      for (const auto& a : order)
        if (limiter.reserve(specs[a.tenant].name, cost).admitted() && counted) served[a.tenant] += cost;
      continue;
    }
    // The start rotates over the tenants with requests this tick. Rotating by tick number
    // alone is not enough: with an idle tenant, the one after it would go first twice as often.
    std::size_t start = cursor;
    for (std::size_t k = 0; k < n && pending[start] == 0; ++k) start = (start + 1) % n;
    cursor = (start + 1) % n;
    for (bool any = true; any;) {  // one request per tenant per pass
      any = false;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (start + k) % n;
        if (pending[i] == 0) continue;
        --pending[i];
        any = true;
        if (limiter.reserve(specs[i].name, cost).admitted() && counted) served[i] += cost;
      }
    }
  }
  std::vector<double> per_s;
  for (auto s : served) per_s.push_back(static_cast<double>(s) / (seconds - warmup_s));
  return per_s;
}

}  // namespace ridge::lab
