// Fuzzes the cost of one calculator call on the real catalogs (issue 28: one request held a
// worker for 29 s, another for minutes). The first line names a calculator; each further line is
// name=value, as a query string gives them; after a line "---" comes a config.json text, which the
// call reads as `--config` (the API's POST body). Whatever comes in, the call must use at most
// kBudget of CPU time, or the target aborts, so libFuzzer saves the input as a crash and the
// replay test over the committed corpus (fuzz/corpus/calc_time) fails. CPU time of this thread,
// not wall time: on a shared machine a descheduled thread reads as slow (a first campaign stopped
// on a 302 ms wall-clock `step` that costs well under a millisecond of work).
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "calc/registry.h"
#include "calc_io/load_catalog.h"
#include "calc_input.h"

namespace {

// 50 ms on this machine (2 cores), for the slowest build that runs the target: the dev preset's
// -O1 replay and the fuzzer's ASan build. Today's calculators answer in tens of microseconds.
constexpr std::chrono::milliseconds kBudget{50};

// This thread's CPU time.
std::chrono::nanoseconds thread_cpu() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

const ridge::calc::Catalog& catalog() {
  static const ridge::calc::Catalog c = [] {
    auto loaded = ridge::calc_io::load_catalog(RIDGE_DATA_DIR);
    if (!loaded.ok()) {
      std::fprintf(stderr, "fuzz_calc_time: the catalog in %s does not load\n", RIDGE_DATA_DIR);
      std::abort();
    }
    return std::move(loaded).value();
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ridge::calc::Registry registry = ridge::calc::make_builtin_registry();
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string config;
  if (size_t cut = text.find("\n---\n"); cut != std::string::npos) {
    config = text.substr(cut + 5);
    text.resize(cut);
  }
  // Once per process, outside the timed region: every calculator's lazy statics (a fork job's
  // first input paid for them and read as over budget).
  static const bool warmed = [] {
    for (const auto& c : registry.all()) (void)registry.evaluate(c.name, {}, catalog());
    (void)registry.evaluate("step", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"tp", "8"}}, catalog());
    return true;
  }();
  (void)warmed;
  auto [name, given] = ridge::fuzz::read_calc_input(text);
  ridge::calc::Catalog with_config;
  const ridge::calc::Catalog* used = &catalog();
  const auto started = thread_cpu();
  if (!config.empty()) {
    with_config = catalog();
    with_config.read_config = [&config](const std::string&) -> ridge::calc::Result<std::string> { return config; };
    given["config"] = "config.json";
    used = &with_config;
  }
  auto result = registry.evaluate(name, given, *used);
  if (result.ok()) (void)ridge::calc::render_json(*result);
  const auto took = thread_cpu() - started;
  if (took > kBudget) {
    std::fprintf(stderr, "fuzz_calc_time: '%s' took %.1f ms of CPU (budget %lld ms)\n", name.substr(0, 40).c_str(),
                 std::chrono::duration<double, std::milli>(took).count(), static_cast<long long>(kBudget.count()));
    std::abort();
  }
  return 0;
}
