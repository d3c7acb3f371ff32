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
mutant kv-blocks release-first-block-first block_allocator.cc \
  's|s.table.rbegin(); it != s.table.rend()|s.table.begin(); it != s.table.end()|'
mutant cb-scheduler preempts-the-oldest scheduler.cc \
  's|const std::size_t v = running_.size() - 1;|const std::size_t v = 0;|' \
  ../kv-blocks/block_allocator.cc
# The split keeps the head in the old node and moves the tail to a new child: the handle a
# running request holds now names the head, and its unlock leaves the tail locked.
radix_split_rewrites_node='/^RadixCache::Node\* RadixCache::split(/,/^}/c\
RadixCache::Node* RadixCache::split(Node* c, std::size_t k) {\
  auto tail = std::make_unique<Node>();  // the old node keeps the head: its handles go stale\
  tail->edge.assign(c->edge.begin() + static_cast<std::ptrdiff_t>(k), c->edge.end());\
  tail->kids = std::move(c->kids);\
  for (auto& [tok, g] : tail->kids) g->parent = tail.get();\
  tail->parent = c;\
  tail->ref = c->ref;\
  tail->used = c->used;\
  c->edge.resize(k);\
  c->kids.clear();\
  Node* raw = tail.get();\
  c->kids[raw->edge.front()] = std::move(tail);\
  requeue(raw);\
  requeue(c);\
  return c;\
}'
mutant radix-cache split-rewrites-the-node radix_cache.cc "$radix_split_rewrites_node"
mutant prefix-router key-hashes-the-whole-prompt prefix_router.cc \
  's|const std::uint64_t h = key(tokens, key_tokens);|const std::uint64_t h = key(tokens, static_cast<int>(tokens.size()));|' \
  ../hash-ring/stable_hash.cc ../hash-ring/hash_ring.cc
mutant prefix-router cap-without-the-routed-request prefix_router.cc \
  's|(in_flight + 1) / n_|in_flight / n_|' \
  ../hash-ring/stable_hash.cc ../hash-ring/hash_ring.cc
mutant spec-decode target-token-dropped spec_decode.cc \
  's|    sum += emitted;|    sum += accepted;|'
mutant spec-decode divide-by-zero-at-a-1 spec_decode.cc \
  's|if (a >= 1.0) return k + 1.0;|if (false) return k + 1.0;|'
mutant latency-sketch rank-with-floor latency_sketch.cc \
  's|std::ceil(q \* static_cast<double>(n_))|std::floor(q * static_cast<double>(n_))|'
mutant burn-rate long-window-alone burn_rate.cc \
  's| \&\& burn(r.short_min) > r.threshold||'
mutant grad-buckets forward-order grad_buckets.cc \
  's|const bool walk_reverse = reverse;|const bool walk_reverse = false;|'
mutant spsc-ring full-check-off-by-one spsc_ring.cc \
  's|if (t - head_cache_ == slots_.size())|if (t - head_cache_ > slots_.size())|'
# spsc-ring: a relaxed publish passes the two-thread stress test on x86, which keeps stores in
# order, so this mutant runs the suite under ThreadSanitizer (a compiler wrapper passed as CXX),
# which must report the data race on the slot that the missing release leaves.
tsan_cxx="$tmp/cxx-tsan"
printf '#!/bin/sh\nexec %s -fsanitize=thread "$@"\n' "${CXX:-g++}" > "$tsan_cxx"
chmod +x "$tsan_cxx"
spsc_src="$lab/spsc-ring/spsc_ring.cc" spsc_dst="$tmp/spsc-ring-relaxed-publish-spsc_ring.cc"
sed 's|tail_.store(t + 1, std::memory_order_release);|tail_.store(t + 1, std::memory_order_relaxed);|' "$spsc_src" > "$spsc_dst"
if cmp -s "$spsc_src" "$spsc_dst"; then
  echo "FAIL: spsc-ring/relaxed-publish: the sed expression no longer changes spsc_ring.cc"
  fail=1
else
  out=$(CXX="$tsan_cxx" "$ridge" lab test spsc-ring --impl "$spsc_dst" 2>&1)
  rc=$?
  if [[ $rc -ne 0 && "$out" == *"ThreadSanitizer: data race"* ]]; then
    echo "ok: spsc-ring/relaxed-publish is caught: ThreadSanitizer reports a data race (exit $rc)"
  else
    echo "FAIL: spsc-ring/relaxed-publish survived under ThreadSanitizer (exit $rc):"
    printf '%s\n' "$out" | tail -20
    fail=1
  fi
fi

exit $fail
