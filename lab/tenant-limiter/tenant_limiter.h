// TenantLimiter: per-tenant token buckets on one shared fleet, with weighted guarantees,
// spill-and-borrow, and reservation then settlement (costs in model tokens).
//
// Time is discrete and owned by the caller: tick() advances it by one tick (the fleet's
// rate is given per second, ticks_per_second ticks make a second). There is no clock and no
// thread, so a simulation or a test replays the same way every run. Rates are integer
// tokens; per-tick refills are rate / ticks_per_second, rounded down (choose rates that
// divide evenly).
//
// Contract:
// - Tenant i's own bucket refills at fleet_rate x w_i / sum(w) per second and holds one
//   second of that rate. It starts full.
// - kGuaranteeAndBorrow: refill a full own bucket cannot hold spills into one shared bucket
//   (capacity: 100 ms of fleet rate, starts empty) that any tenant may borrow from.
//   kStaticQuota: the spill is lost. kGlobal: one bucket at the fleet rate, capacity one
//   second, for everyone (the unfair baseline; tenants' own buckets are unused).
// - reserve(tenant, n) pays the worst case (prompt + max_tokens) whole from ONE bucket: the
//   tenant's own if it holds n, else the shared one if it holds n, else it is denied and
//   told how many ticks until its own bucket refills the deficit, rounded UP.
// - settle(reservation, used) refunds n - used to the bucket that paid, capped at that
//   bucket's capacity (a refund past capacity would turn a cancelled request into burst).
// - Bad input (an unknown tenant, n < 1, used outside [0, n], a settled reservation settled
//   again) throws std::invalid_argument naming the field and the value.
//
// Not thread-safe: one owner (a gateway shard) drives it; shard tenants across owners.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge::lab {

struct Bucket {
  std::int64_t tokens, capacity, per_tick;
  std::int64_t refill();            // adds one tick of refill; returns what did not fit
  bool take(std::int64_t n);        // takes n if held
  void refund(std::int64_t n);      // adds n, capped at capacity
};

enum class Policy { kGlobal, kStaticQuota, kGuaranteeAndBorrow };

struct TenantSpec {
  std::string name;
  int weight;  // >= 1
};

enum class Payer { kNone, kOwn, kShared, kGlobal };

struct Reservation {
  Payer payer;                   // kNone: denied
  std::size_t tenant;
  std::int64_t reserved;
  std::int64_t retry_after_ticks;  // > 0 only when denied
  bool settled = false;
  bool admitted() const { return payer != Payer::kNone; }
};

class TenantLimiter {
 public:
  TenantLimiter(std::int64_t fleet_rate, int ticks_per_second, std::vector<TenantSpec> tenants, Policy policy);

  void tick();
  Reservation reserve(const std::string& tenant, std::int64_t n);
  void settle(Reservation& r, std::int64_t used);

  std::size_t index(const std::string& tenant) const;  // throws for an unknown name
  const Bucket& own(const std::string& tenant) const { return own_[index(tenant)]; }
  const Bucket& shared() const { return shared_; }
  const Bucket& global() const { return global_; }

 private:
  Bucket& payer_bucket(const Reservation& r);

  std::vector<TenantSpec> tenants_;
  Policy policy_;
  std::vector<Bucket> own_;
  Bucket shared_;
  Bucket global_;
};

// The question's simulation: `seconds` seconds of ticks, requests of `cost` tokens, each
// tenant sending demand_per_s tokens per second evenly; the first `warmup_s` seconds are
// not counted. Within a tick the fair policies serve one request per tenant per pass; the
// first tenant served rotates over the tenants that have requests, so no tenant is always
// first; kGlobal serves in arrival order. Returns tokens served per second, per tenant.
struct TenantLoad {
  TenantSpec spec;
  std::int64_t demand_per_s;
};
std::vector<double> simulate(const std::vector<TenantLoad>& load, std::int64_t fleet_rate, Policy policy,
                             int seconds = 60, int warmup_s = 10, std::int64_t cost = 10);

}  // namespace ridge::lab
