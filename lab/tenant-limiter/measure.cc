// Figures for the multi-tenant limiter: the question's three policies on one oversubscribed
// fleet (exact: integer ticks, no clock, no randomness), and the equal-weight split of the
// shared pool with the service start rotating.
#include <string>
#include <vector>

#include "common/report.h"
#include "tenant_limiter.h"

int main(int argc, char** argv) {
  using ridge::lab::Policy;
  using ridge::lab::TenantLoad;
  ridge::lab::Report report("tenant-limiter", "per-tenant buckets on one fleet: three policies, tokens served per second");

  report.section("fleet 10,000 tokens/s; weights A 1, B 1, C 2; demand A 8,000, B 1,000, C 4,000; 60 s, 10 s warm-up");
  const std::vector<TenantLoad> load = {{{"A", 1}, 8'000}, {{"B", 1}, 1'000}, {{"C", 2}, 4'000}};
  const std::pair<const char*, Policy> policies[] = {
      {"global", Policy::kGlobal}, {"static_quota", Policy::kStaticQuota}, {"guarantee_and_borrow", Policy::kGuaranteeAndBorrow}};
  for (const auto& [name, policy] : policies) {
    const auto r = ridge::lab::simulate(load, 10'000, policy);
    double total = 0;
    for (std::size_t i = 0; i < load.size(); ++i) {
      report.add(std::string(name) + "/" + load[i].spec.name, r[i], "tokens/s", std::string(name) + ": " + load[i].spec.name, 0);
      total += r[i];
    }
    report.add(std::string(name) + "/total", total, "tokens/s", std::string(name) + ": total", 0);
  }

  report.section("A and B (weight 1) each send 8,000; C (weight 2) idle: its share spills to the shared pool");
  const std::vector<TenantLoad> idle_c = {{{"A", 1}, 8'000}, {{"B", 1}, 8'000}, {{"C", 2}, 0}};
  const auto r = ridge::lab::simulate(idle_c, 10'000, Policy::kGuaranteeAndBorrow);
  report.add("idle_c/A", r[0], "tokens/s", "A", 0);
  report.add("idle_c/B", r[1], "tokens/s", "B", 0);
  report.note("exact: the same on every run and machine");
  return report.print(argc, argv);
}
