// Jobs API figures: a walk over 10,000 jobs in pages of 100 while one job is created
// before each page read, for the service's cursor (ids ascending, "after the last id")
// and for OFFSET/LIMIT over newest-first, the query many list endpoints start with.
// Also: the cost of a create with an idempotency key, fresh and replayed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/report.h"
#include "job_service.h"

namespace {

using ridge::lab::JobService;

struct WalkResult {
  std::int64_t duplicates = 0, skipped = 0, pages = 0;
};

WalkResult score(const std::vector<std::uint64_t>& seen, std::uint64_t initial) {
  WalkResult r;
  std::set<std::uint64_t> unique;
  for (auto id : seen) r.duplicates += !unique.insert(id).second;
  for (std::uint64_t id = 1; id <= initial; ++id) r.skipped += unique.count(id) == 0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("jobs-api", "pagination under inserts, idempotent create");
  constexpr std::uint64_t kInitial = 10'000;
  constexpr std::size_t kPage = 100;

  report.section("walk 10,000 jobs, pages of 100, one job created before each page read");
  {
    JobService s;
    for (std::uint64_t i = 0; i < kInitial; ++i) s.create("", "job");
    std::vector<std::uint64_t> seen;
    std::string cursor;
    std::int64_t pages = 0;
    do {
      s.create("", "inserted during the walk");
      const auto page = s.list(cursor, kPage);
      for (const auto& j : page.jobs) seen.push_back(j.id);
      cursor = page.next_cursor;
      ++pages;
    } while (!cursor.empty());
    auto r = score(seen, kInitial);
    report.add("cursor/duplicates", r.duplicates, "", "cursor (after last id): duplicates");
    report.add("cursor/skipped", r.skipped, "", "cursor (after last id): initial jobs skipped");
    report.add("cursor/pages", pages, "", "cursor (after last id): pages read (new jobs included)");
  }
  {
    // OFFSET/LIMIT over ORDER BY id DESC: each insert shifts every later row down one.
    std::vector<std::uint64_t> newest_first;
    for (std::uint64_t id = kInitial; id >= 1; --id) newest_first.push_back(id);
    std::uint64_t next_id = kInitial + 1;
    std::vector<std::uint64_t> seen;
    std::int64_t pages = 0;
    for (std::size_t offset = 0;; offset += kPage) {
      newest_first.insert(newest_first.begin(), next_id++);
      if (offset >= newest_first.size()) break;
      const std::size_t end = std::min(newest_first.size(), offset + kPage);
      seen.insert(seen.end(), newest_first.begin() + static_cast<std::ptrdiff_t>(offset),
                  newest_first.begin() + static_cast<std::ptrdiff_t>(end));
      ++pages;
    }
    auto r = score(seen, kInitial);
    report.add("offset_newest_first/duplicates", r.duplicates, "", "OFFSET over newest-first: duplicates");
    report.add("offset_newest_first/skipped", r.skipped, "", "OFFSET over newest-first: initial jobs skipped");
    report.add("offset_newest_first/pages", pages, "", "OFFSET over newest-first: pages read");
  }

  report.section("create with an idempotency key (100,000 calls each)");
  {
    JobService s;
    constexpr int kCalls = 100'000;
    std::vector<std::string> keys;
    for (int i = 0; i < kCalls; ++i) keys.push_back("key-" + std::to_string(i));
    auto t0 = std::chrono::steady_clock::now();
    for (const auto& k : keys) s.create(k, "train");
    const double fresh = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kCalls;
    t0 = std::chrono::steady_clock::now();
    std::int64_t replayed = 0;
    for (const auto& k : keys) replayed += s.create(k, "train").status == ridge::lab::CreateStatus::kReplayed;
    const double replay = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kCalls;
    report.add("create/fresh_ns", fresh, "ns", "fresh key", 0);
    report.add("create/replayed_ns", replay, "ns", "replayed key", 0);
    report.add("create/replayed", replayed, "calls", "replays that returned the first job");
  }
  report.note("the walk counts are exact; create costs depend on the machine and build type");
  return report.print(argc, argv);
}
