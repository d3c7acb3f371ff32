#include "cli/lab_builds.h"
#include "calc/source_dir.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>


namespace ridge::cli::labs {

namespace fs = std::filesystem;

const std::vector<LabBuild>& lab_builds() {
  static const std::vector<LabBuild> builds{
      {"rate-limiter", "token bucket: capacity and rate apart, lazy refill on an injected steady clock, retry-after",
       {"token_bucket.h", "clock.h"}, {"token_bucket.cc"}, {"token_bucket_test.cc"}},
      {"batcher", "dynamic batching: size and max-wait triggers, one worker, per-batch failures",
       {"batcher.h"}, {"batcher.cc"}, {"batcher_test.cc"}},
      {"work-queue", "bounded queue and worker pool: backpressure, close wakes all, task exceptions reported",
       {"bounded_queue.h", "worker_pool.h"}, {"bounded_queue.cc", "worker_pool.cc"},
       {"bounded_queue_test.cc", "worker_pool_test.cc"}},
      {"hash-ring", "consistent hashing with virtual nodes on a stable FNV-1a + fmix64 hash",
       {"hash_ring.h", "stable_hash.h"}, {"stable_hash.cc", "hash_ring.cc"}, {"stable_hash_test.cc", "hash_ring_test.cc"}},
      {"sampler", "temperature, top-k, top-p; stable softmax; chi-square test at a fixed seed",
       {"sampler.h"}, {"sampler.cc"}, {"sampler_test.cc"}},
      {"straggler", "late ranks: median + k x MAD, k from the target false-positive rate",
       {"straggler_detector.h", "normal_quantile.h"}, {"normal_quantile.cc", "straggler_detector.cc"},
       {"normal_quantile_test.cc", "straggler_detector_test.cc"}},
      {"jobs-api", "job state machine, idempotency keys, 202 cancel, cursor pagination under inserts",
       {"job_service.h", "job_state.h"}, {"job_state.cc", "job_service.cc"}, {"job_state_test.cc", "job_service_test.cc"}},
      {"tsdb", "sealed segments, sparse min/max index pruning, whole-segment TTL compaction",
       {"segment_store.h", "segment.h"}, {"segment.cc", "segment_store.cc"}, {"segment_test.cc", "segment_store_test.cc"}},
      {"intervals", "merge GPU idle intervals per rank; windows when all ranks were idle",
       {"intervals.h"}, {"intervals.cc"}, {"intervals_test.cc"}},
      {"retry", "exponential backoff with full jitter and a deadline; injected clock and RNG",
       {"retry.h"}, {"retry.cc"}, {"retry_test.cc"}},
      {"kv-versioned", "versioned key-value store: reads at a version, tombstones, compaction",
       {"versioned_kv.h"}, {"versioned_kv.cc"}, {"versioned_kv_test.cc"}},
      {"trace-parse", "Chrome trace JSON to per-kernel time and GPU idle gaps",
       {"trace_summary.h"}, {"trace_summary.cc"}, {"trace_summary_test.cc"}},
      {"ring-sim", "ring all-reduce simulator: checks the sums, counts 2(n-1)/n of the buffer per rank",
       {"ring_sim.h"}, {"ring_sim.cc"}, {"ring_sim_test.cc"}},
      {"check-then-act", "free-GPU pools: the check-then-act race forced by a test seam, fixed by CAS and by one lock",
       {"gpu_pool.h"}, {"gpu_pool.cc"}, {"gpu_pool_test.cc"}},
      {"tenant-limiter", "per-tenant token buckets: weighted guarantees, spill and borrow, reserve then settle",
       {"tenant_limiter.h"}, {"tenant_limiter.cc"}, {"tenant_limiter_test.cc"}},
      {"credit-scheduler", "GPU credits earned by share, spent by use, decayed by a half-life; reserve or backfill gangs",
       {"credit_scheduler.h"}, {"credit_scheduler.cc"}, {"credit_scheduler_test.cc"}},
      {"gang-placement", "whole-node gangs on pods > racks > nodes: best fit at the lowest level, churn simulation",
       {"gang_placer.h"}, {"gang_placer.cc"}, {"gang_placer_test.cc"}},
      {"xid-parse", "NVIDIA XID events from kernel logs: bus ids joined to nvidia-smi, multi-line faults folded, bursts",
       {"xid_parser.h"}, {"xid_parser.cc"}, {"xid_parser_test.cc"}},
      {"reshard", "checkpoint resharding N to M ranks: byte-range reads by a two-pointer sweep, round-trip tested",
       {"reshard.h"}, {"reshard.cc"}, {"reshard_test.cc"}},
      {"failure-detector", "heartbeat failure detectors: fixed timeout and phi accrual with a pause term, injected clock",
       {"failure_detector.h"}, {"failure_detector.cc"}, {"failure_detector_test.cc"}},
      {"dag-runner", "DAG runner on simulated workers: Kahn validation, critical-path priority, retries, skip descendants",
       {"dag_runner.h"}, {"dag_runner.cc"}, {"dag_runner_test.cc"}},
      {"kv-blocks", "paged KV block allocator: chain-hash prefix sharing, all-or-nothing allocation, LRU reuse",
       {"block_allocator.h"}, {"block_allocator.cc"}, {"block_allocator_test.cc"}},
      {"cb-scheduler", "continuous-batching step over kv-blocks: decode, chunked prefill, admission, preempt newest",
       {"scheduler.h"}, {"scheduler.cc"}, {"scheduler_test.cc"}},
      {"radix-cache", "radix-tree prefix cache: split-safe handles, locked paths, LRU leaf eviction by priority queue",
       {"radix_cache.h"}, {"radix_cache.cc"}, {"radix_cache_test.cc"}},
      {"prefix-router", "prefix-hash routing on hash-ring's ring and hash, with bounded loads over distinct replicas",
       {"prefix_router.h"}, {"prefix_router.cc"}, {"prefix_router_test.cc"}},
      {"spec-decode", "speculative decoding acceptance: closed form against a seeded simulation, chi-square, estimator bias",
       {"spec_decode.h"}, {"spec_decode.cc"}, {"spec_decode_test.cc"}},
      {"latency-sketch", "relative-error latency sketch (DDSketch construction) on a dense array, merged by adding counts",
       {"latency_sketch.h"}, {"latency_sketch.cc"}, {"latency_sketch_test.cc"}},
      {"burn-rate", "multiwindow burn-rate alerts on per-minute counts with running window sums",
       {"burn_rate.h"}, {"burn_rate.cc"}, {"burn_rate_test.cc"}},
      {"grad-buckets", "DDP gradient buckets in reverse order, one-stream all-reduce launches, exposed communication",
       {"grad_buckets.h"}, {"grad_buckets.cc"}, {"grad_buckets_test.cc"}},
      {"spsc-ring", "lock-free SPSC ring: release/acquire on monotonic counters, separate cache lines, TSan",
       {"spsc_ring.h"}, {"spsc_ring.cc"}, {"spsc_ring_test.cc"}},
  };
  return builds;
}

std::string accepted_ids() {
  std::string s;
  for (const auto& b : lab_builds()) s += (s.empty() ? "" : ", ") + std::string(b.id);
  return s;
}

const LabBuild* find_build(std::string_view id) {
  for (const auto& b : lab_builds()) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) {
    if (!cmd.empty()) cmd += ' ';
    cmd += shell_quote(a);
  }
  return cmd;
}

// Runs argv through the shell. With `stream` set, output goes there as it arrives;
// `captured` receives it too. Returns the exit status (127 if it could not start).
int run_process(const std::vector<std::string>& argv, bool merge_stderr, std::ostream* stream, std::string* captured) {
  const std::string cmd = command_line(argv) + (merge_stderr ? " 2>&1" : "");
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return 127;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    if (stream != nullptr) {
      stream->write(buf.data(), static_cast<std::streamsize>(n));
      stream->flush();
    }
    if (captured != nullptr) captured->append(buf.data(), n);
  }
  const int status = pclose(pipe);
  if (status == -1) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Where CMake put the built binaries: ${CMAKE_BINARY_DIR}/lab/<id>/, next to this
// executable (${CMAKE_BINARY_DIR}/ridge). RIDGE_LAB_BIN overrides the lab/ directory.
fs::path lab_bin_dir() {
  if (const char* env = std::getenv("RIDGE_LAB_BIN"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "lab";
  return exe.parent_path() / "lab";
}

// The source tree's lab/ (headers and tests). RIDGE_SOURCE_DIR in the environment
// overrides the tree this binary was built from.
fs::path lab_source_dir() {
  if (const char* env = std::getenv("RIDGE_SOURCE_DIR"); env != nullptr && *env != '\0') return fs::path(env) / "lab";
  return fs::path(ridge::source_dir()) / "lab";
}

fs::path built_binary(const LabBuild& b, std::string_view kind) {
  return lab_bin_dir() / std::string(b.id) / (std::string(b.id) + "-" + std::string(kind));
}

// lab/<id>/cases.jsonl: present for the builds that speak the language-neutral protocol.
fs::path cases_file(const LabBuild& b) { return lab_source_dir() / std::string(b.id) / "cases.jsonl"; }

bool has_cases(const LabBuild& b) {
  std::error_code ec;
  return fs::is_regular_file(cases_file(b), ec);
}

std::string protocol_ids() {
  std::string s;
  for (const auto& b : lab_builds()) {
    if (has_cases(b)) s += (s.empty() ? "" : ", ") + std::string(b.id);
  }
  return s;
}

}  // namespace ridge::cli::labs
