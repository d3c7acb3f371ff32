#include "scheduler.h"

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

// Prompts of distinct tokens per request, so nothing is shared unless a test wants it.
Request req(int id, int prompt_tokens, int output) {
  Request r;
  r.id = id;
  for (int i = 0; i < prompt_tokens; ++i) r.prompt.push_back(id * 100'000 + i);
  r.output = output;
  return r;
}

SchedulerConfig config(Admit rule, int budget = 2048, int max_seqs = 64, int max_tokens = 1024) {
  SchedulerConfig c;
  c.rule = rule;
  c.token_budget = budget;
  c.max_seqs = max_seqs;
  c.max_tokens = max_tokens;
  return c;
}

bool has(const std::vector<int>& v, int id) { return std::find(v.begin(), v.end(), id) != v.end(); }

// Two sequences of one full block each in a pool of 4: both take a second block at their
// first decode, fill it, and at the second boundary the pool is empty.
struct TwoFull {
  BlockAllocator kv{4, 4};
  Scheduler s{kv, config(Admit::kGreedy)};
  std::vector<StepResult> steps;
  TwoFull() {
    s.submit(req(1, 4, 100));
    s.submit(req(2, 4, 100));
    s.submit(req(3, 16, 10));  // 4 blocks: waits behind them
    for (int i = 0; i < 6; ++i) steps.push_back(s.step());
  }
};

TEST(Scheduler, PreemptOldestBugVictimIsTheNewestAdmitted) {
  TwoFull t;
  EXPECT_EQ(t.steps[0].admitted, (std::vector<int>{1, 2}));
  EXPECT_TRUE(t.steps[4].preempted.empty());
  EXPECT_EQ(t.steps[5].preempted, (std::vector<int>{2}));  // the 9th token of 1 needs a block
  EXPECT_EQ(t.steps[5].decoded, (std::vector<int>{1}));
  EXPECT_EQ(t.s.running(), 1);
  EXPECT_EQ(t.s.preemptions(), 1);
}

TEST(Scheduler, RecomputePromptOnlyBugPreemptedSequenceRecomputesWhatItGenerated) {
  TwoFull t;
  // Sequence 2 had a 4-token prompt and generated 4 tokens: it recomputes all 8.
  EXPECT_EQ(t.s.queued_prefill(2), 8);
  EXPECT_EQ(t.s.recomputed_tokens(), 8);
}

TEST(Scheduler, BackOfQueueBugPreemptedSequenceRejoinsTheFront) {
  TwoFull t;
  EXPECT_EQ(t.s.queue_ids(), (std::vector<int>{2, 3}));
}

TEST(Scheduler, NewestSequenceNeedingABlockPreemptsItself) {
  BlockAllocator kv(2, 4);
  Scheduler s(kv, config(Admit::kGreedy));
  s.submit(req(1, 3, 10));  // room for one more token in its block
  s.submit(req(2, 4, 10));  // full: its first token needs a block
  EXPECT_EQ(s.step().admitted, (std::vector<int>{1, 2}));
  const StepResult r = s.step();
  EXPECT_EQ(r.decoded, (std::vector<int>{1}));
  EXPECT_EQ(r.preempted, (std::vector<int>{2}));
  // Its recomputed prompt (4 tokens, nothing generated) fits the block it freed: readmitted
  // in the same step's admission, as the newest again.
  EXPECT_EQ(r.admitted, (std::vector<int>{2}));
  EXPECT_EQ(s.running(), 2);
  EXPECT_EQ(s.preemptions(), 1);
}

TEST(Scheduler, JumpingTheQueueBugAdmissionIsHeadOfLine) {
  BlockAllocator kv(4, 4);
  Scheduler s(kv, config(Admit::kGreedy));
  s.submit(req(1, 8, 50));   // 2 blocks
  s.submit(req(2, 12, 50));  // 3 blocks: does not fit after 1
  s.submit(req(3, 4, 50));   // 1 block: would fit, must not jump 2
  const StepResult r = s.step();
  EXPECT_EQ(r.admitted, (std::vector<int>{1}));
  EXPECT_EQ(s.queue_ids(), (std::vector<int>{2, 3}));
  EXPECT_EQ(kv.free_blocks(), 2);
}

TEST(Scheduler, UnboundedPrefillBugPromptIsChunkedWithinTheBudget) {
  BlockAllocator kv(64, 4);
  Scheduler s(kv, config(Admit::kGreedy, /*budget=*/10));
  s.submit(req(1, 2, 50));
  EXPECT_EQ(s.step().prefill_tokens, 2);
  s.submit(req(2, 25, 50));
  // Each step: one decode for sequence 1, then at most 9 prompt tokens of sequence 2.
  std::vector<int> prefill;
  int first_decode_of_2 = -1;
  for (int i = 0; i < 5; ++i) {
    const StepResult r = s.step();
    EXPECT_TRUE(has(r.decoded, 1)) << "step " << i;
    EXPECT_LE(static_cast<int>(r.decoded.size()) + r.prefill_tokens, 10);
    prefill.push_back(r.prefill_tokens);
    if (first_decode_of_2 < 0 && has(r.decoded, 2)) first_decode_of_2 = i;
  }
  EXPECT_EQ(prefill, (std::vector<int>{9, 9, 7, 0, 0}));
  EXPECT_EQ(first_decode_of_2, 3);
}

TEST(Scheduler, WatermarkKeepsAShareOfThePoolFree) {
  for (const auto& [rule, free_after] : std::vector<std::pair<Admit, int>>{{Admit::kGreedy, 0}, {Admit::kWatermark, 2}}) {
    BlockAllocator kv(10, 4);
    SchedulerConfig c = config(rule);
    c.watermark = 0.2;  // 2 of 10 blocks
    Scheduler s(kv, c);
    for (int id = 1; id <= 12; ++id) s.submit(req(id, 4, 100));
    s.step();
    EXPECT_EQ(kv.free_blocks(), free_after);
    EXPECT_EQ(s.running(), 10 - free_after);
  }
}

TEST(Scheduler, ReserveMaxNeverPreemptsAndHoldsFewerSequences) {
  std::map<Admit, std::int64_t> preemptions;
  std::map<Admit, int> first_batch;
  for (Admit rule : {Admit::kGreedy, Admit::kReserveMax}) {
    BlockAllocator kv(8, 4);
    Scheduler s(kv, config(rule, 2048, 64, /*max_tokens=*/8));
    for (int id = 1; id <= 8; ++id) s.submit(req(id, 4, 8));
    first_batch[rule] = static_cast<int>(s.step().admitted.size());
    for (int i = 0; i < 1000 && !s.idle(); ++i) s.step();
    EXPECT_TRUE(s.idle());
    EXPECT_EQ(kv.free_blocks(), 8);
    preemptions[rule] = s.preemptions();
  }
  EXPECT_EQ(first_batch[Admit::kGreedy], 8);
  EXPECT_EQ(first_batch[Admit::kReserveMax], 2);  // 3 blocks each (4 + 8 tokens) of 8
  EXPECT_GT(preemptions[Admit::kGreedy], 0);
  EXPECT_EQ(preemptions[Admit::kReserveMax], 0);
}

TEST(Scheduler, EveryRequestGetsExactlyItsTokensAndNoBlockLeaks) {
  std::mt19937_64 rng(20261201);
  BlockAllocator kv(24, 4);
  Scheduler s(kv, config(Admit::kGreedy, 64, 8, 40));
  std::map<int, int> want, got;
  for (int id = 1; id <= 60; ++id) {
    const int prompt = 1 + static_cast<int>(rng() % 20);
    const int output = 1 + static_cast<int>(rng() % 60);
    want[id] = std::min(output, 40);
    s.submit(req(id, prompt, output));
  }
  std::map<int, int> finished;
  for (int i = 0; i < 100'000 && !s.idle(); ++i) {
    const StepResult r = s.step();
    for (int id : r.decoded) ++got[id];
    for (int id : r.finished) ++finished[id];
  }
  ASSERT_TRUE(s.idle());
  EXPECT_EQ(got, want);  // a restarted count would decode the preempted ones again
  for (const auto& [id, n] : finished) EXPECT_EQ(n, 1) << "request " << id;
  EXPECT_EQ(static_cast<int>(finished.size()), 60);
  EXPECT_EQ(kv.free_blocks(), 24);
  EXPECT_GT(s.preemptions(), 0);  // the pool is tight enough that the path above ran
}

TEST(Scheduler, BadInputIsRefused) {
  BlockAllocator kv(4, 4);
  SchedulerConfig c;
  c.watermark = 1.0;
  EXPECT_THROW((Scheduler{kv, c}), std::invalid_argument);
  c = SchedulerConfig{};
  c.max_seqs = 0;
  EXPECT_THROW((Scheduler{kv, c}), std::invalid_argument);
  Scheduler s(kv, SchedulerConfig{});
  EXPECT_THROW(s.submit(req(1, 0, 5)), std::invalid_argument);
  EXPECT_THROW(s.submit(req(1, 4, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace ridge::lab
