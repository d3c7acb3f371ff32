#!/usr/bin/env bash
# Every build's tests must be able to fail. For each build, take the reference
# implementation, plant one classic bug with sed (the bug the interview asks about),
# and run `ridge lab test ID --impl MUTANT`: the tests must fail. A mutant identical to
# the reference (the sed no longer matches after a refactor) is itself a failure.
set -u
ridge="$1"
lab="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0

# mutant ID NAME FILE SED-EXPRESSION [OTHER-IMPL-FILES...]
# FILE is relative to lab/ID/: a C++ source runs the gtest suite (and the cases, for a build
# that has them); ref/NAME.py, a build's Python reference, runs its cases (lab/ID/cases.jsonl).
mutant() {
  local id="$1" name="$2" file="$3" expr="$4"
  shift 4
  local src="$lab/$id/$file" dst="$tmp/$id-$name-${file##*/}"
  sed "$expr" "$src" > "$dst"
  if cmp -s "$src" "$dst"; then
    echo "FAIL: $id/$name: the sed expression no longer changes $file"
    fail=1
    return
  fi
  local impl=(--impl "$dst")
  for other in "$@"; do impl+=(--impl "$lab/$id/$other"); done
  local out
  out=$("$ridge" lab test "$id" "${impl[@]}" 2>&1)
  local rc=$?
  if [[ $rc -eq 1 && ( "$out" == *"FAILED"* || "$out" == *"  FAIL  "* ) ]]; then
    echo "ok: $id/$name is caught: $(printf '%s\n' "$out" | grep -m1 -E '^\[  FAILED  \]|^FAILED|^  FAIL  ' )"
  else
    echo "FAIL: $id/$name survived (exit $rc):"
    printf '%s\n' "$out" | tail -20
    fail=1
  fi
}

mutant intervals touching-not-merged ref/intervals.py \
  's|if out and s <= out\[-1\]\[1\]:|if out and s < out[-1][1]:|'
mutant rate-limiter retry-after-rounded-down ref/token_bucket.py \
  's|-(-deficit // self.rate)|deficit // self.rate|'
mutant retry sleeps-past-the-deadline ref/retry.py \
  's|if now + sleep >= deadline_at:|if False:|'
mutant kv-versioned future-version-reads-latest ref/versioned_kv.py \
  's|if v > self.version:|if False:|'
mutant hash-ring no-wrap-around ref/hash_ring.py \
  's|i = 0  # past the largest point|i = len(self.points) - 1  # past the largest point|'

mutant rate-limiter retry-after-rounded-down token_bucket.cc \
  's|(deficit + rate_ - 1) / rate_|deficit / rate_|'
mutant batcher batch-function-runs-under-the-lock batcher.cc \
  's|^    lock.unlock();  // the batch function runs unlocked.*$||; s|^    lock.lock();$||'
mutant work-queue try-push-off-by-one bounded_queue.cc \
  's|if (tasks_.size() >= capacity_) return PushResult::kFull;|if (tasks_.size() > capacity_) return PushResult::kFull;|' \
  worker_pool.cc
mutant hash-ring no-wrap-around hash_ring.cc \
  's|if (it == points_.end()) it = points_.begin();|if (it == points_.end()) it = points_.end() - 1;|' \
  stable_hash.cc
mutant sampler temperature-ignored sampler.cc \
  's|static_cast<double>(logits\[i\]) / params.temperature|static_cast<double>(logits[i])|'
mutant straggler on-threshold-is-late straggler_detector.cc \
  's|if (arrivals_us\[i\] > r.threshold_us)|if (arrivals_us[i] >= r.threshold_us)|' \
  normal_quantile.cc
mutant jobs-api cursor-repeats-last-item job_service.cc \
  's|jobs_.upper_bound(after)|jobs_.lower_bound(after)|' \
  job_state.cc
mutant tsdb compaction-drops-straddling-segment segment_store.cc \
  's|return s->max_time() < cutoff;|return s->min_time() < cutoff;|' \
  segment.cc
mutant intervals touching-not-merged intervals.cc \
  's|i.start_us <= r.intervals.back().end_us|i.start_us < r.intervals.back().end_us|'
mutant retry sleeps-past-the-deadline retry.cc \
  's|if (clock.now() + sleep >= deadline_at) {|if (false) {|'
mutant kv-versioned future-version-reads-latest versioned_kv.cc \
  's|if (v > version_) return ReadStatus::kFutureVersion;|if (false) return ReadStatus::kFutureVersion;|'
mutant trace-parse streams-not-merged trace_summary.cc \
  's|if (!merged.empty() \&\& b.start <= merged.back().end) {|if (false) {|'
mutant ring-sim remainder-dropped ring_sim.cc \
  's|extra = S % n;|extra = 0;|'
mutant ring-sim gather-sends-wrong-chunk ring_sim.cc \
  's|(phase == 1 ? 1 : 0)|0|'
mutant check-then-act lock-off-the-check gpu_pool.cc \
  's|^  before_lock();  // outside the lock.*$|  if (free_ < n) return false;  // the check, off the lock\n  before_lock();|; s|^  if (free_ < n) return false;  // check, under the lock$||'
mutant check-then-act cas-without-a-loop gpu_pool.cc \
  's|  while (seen >= n) {|  if (seen >= n) {|'
mutant tenant-limiter refund-past-capacity tenant_limiter.cc \
  's|tokens = std::min(capacity, tokens + n);|tokens += n;|'
mutant tenant-limiter fixed-service-order tenant_limiter.cc \
  's|    cursor = (start + 1) % n;|    cursor = 0;|'
mutant credit-scheduler stale-ranking credit_scheduler.cc \
  's|    rank\[i\] -= cost;  // the pick sees.*$|    (void)cost;|'
mutant credit-scheduler no-decay credit_scheduler.cc \
  's|tm.balance = tm.balance \* d_ + |tm.balance = tm.balance + |'
mutant gang-placement no-climb-to-the-pod gang_placer.cc \
  's|  if (best_pod >= 0) {|  if (false) {|'
mutant gang-placement loosest-rack-not-tightest gang_placer.cc \
  's#(best < 0 || rack_free(r) < rack_free(best))#(best < 0 || rack_free(r) > rack_free(best))#'
mutant xid-parse requires-pci-prefix xid_parser.cc \
  's|Xid \\(((?:PCI:)?|Xid \\((PCI:|'
mutant xid-parse lines-not-events xid_parser.cc \
  's|it != last.end() \&\& t - it->second.first < 1.0|false|'
mutant reshard offsets-assume-equal-pieces reshard.cc \
  's|row\[t\] + (hi(t, r) - lo(t, r)) \* tensors_\[t\].elem_bytes;|row[t] + (tensors_[t].count / static_cast<std::uint64_t>(ranks)) * tensors_[t].elem_bytes;|'
mutant reshard remainder-on-the-last-rank reshard.cc \
  's|return rr \* base + std::min(rr, extra);|return rr == n ? tensors_[t].count : rr * base;|'
mutant failure-detector no-min-sd-floor failure_detector.cc \
  's|return std::max(min_sd_, fitted);|return fitted;|'
mutant failure-detector window-never-slides failure_detector.cc \
  's|    if (iv_.size() > window_) {|    if (false) {|'
mutant dag-runner one-failure-fails-the-run dag_runner.cc \
  's|      skip_descendants(r.task);  // only what.*$|      for (auto\& s : st) if (s == State::kPending) s = State::kSkipped;|'
mutant dag-runner priority-by-id dag_runner.cc \
  's|if (policy == Policy::kCriticalPath \&\& level\[ua\] != level\[ub\])|if (false)|'

exit $fail
