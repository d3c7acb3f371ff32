// Scheduler: one step of a continuous-batching engine over lab/kv-blocks/'s paged KV pool.
//
// Contract:
// - The pool is a BlockAllocator the caller owns and the scheduler uses alone (it must
//   outlive the scheduler). A running sequence holds blocks for its prompt plus the tokens
//   generated so far; prompt blocks are taken at admission, in full, even though the
//   prefill is chunked.
// - step() runs, in this order:
//   (1) decode: every running sequence whose prompt is fully prefilled decodes one token,
//       oldest admitted first (each costs one token of the step's budget, so decode stops
//       when the budget is spent, which max_seqs <= token_budget rules out). A token that
//       starts a new block takes one; if none is free, the most recently admitted running
//       sequence is preempted (possibly the one decoding): its blocks are released and it
//       rejoins the FRONT of the queue, to be recomputed from its prompt plus every token
//       it generated. A sequence that reaches its output length finishes and frees its
//       blocks in the same step.
//   (2) prefill: unfinished prefills continue, oldest admitted first, in chunks that fit the
//       budget left.
//   (3) admission: queued requests are admitted in queue order while the batch has fewer
//       than max_seqs sequences, budget is left, and the rule allows. Head-of-line on
//       purpose: the first request that does not fit stops admission (no jumping).
//       kGreedy: the prompt's blocks fit. kWatermark: they fit with floor(watermark × pool)
//       blocks still free afterwards. kReserveMax: prompt + max_tokens fits in what no
//       running sequence has reserved; a sequence admitted this way never waits for a block.
// - A request's output length is what the "model" will produce; the scheduler does not use
//   it to decide anything, only to know when the sequence ends (at most max_tokens).
// - Not thread-safe: one engine loop calls submit() and step().
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "kv-blocks/block_allocator.h"

namespace ridge::lab {

enum class Admit { kGreedy, kWatermark, kReserveMax };

struct SchedulerConfig {
  Admit rule = Admit::kGreedy;
  double watermark = 0.10;  // kWatermark: the share of the pool kept free after an admission
  int max_seqs = 64;
  int token_budget = 2048;  // decode tokens + prefill tokens per step
  int max_tokens = 1024;    // a sequence stops after this many generated tokens
};

struct Request {
  int id = 0;
  std::vector<int> prompt;  // at least one token
  int output = 1;           // tokens the model will generate (>= 1); unknown to the policy
};

struct StepResult {
  std::vector<int> decoded;    // ids that got one token this step, in decode order
  std::vector<int> finished;   // ids that generated their last token this step
  std::vector<int> preempted;  // ids sent back to the front of the queue, in order
  std::vector<int> admitted;   // ids admitted this step, in order
  int prefill_tokens = 0;      // prompt tokens prefilled this step (recomputation included)
};

class Scheduler {
 public:
  // Throws std::invalid_argument for max_seqs < 1, token_budget < 1, max_tokens < 1 or a
  // watermark outside [0, 1).
  Scheduler(BlockAllocator& kv, SchedulerConfig config);

  // Joins the back of the queue. Throws std::invalid_argument for an empty prompt or output < 1.
  void submit(Request r);
  StepResult step();

  bool idle() const { return running_.empty() && waiting_.empty(); }
  int running() const { return static_cast<int>(running_.size()); }
  int waiting() const { return static_cast<int>(waiting_.size()); }
  // The queue, front first, by id.
  std::vector<int> queue_ids() const;
  // Tokens a sequence will prefill when (re)admitted: its prompt plus what it generated.
  // -1 for an id that is not queued.
  int queued_prefill(int id) const;
  std::int64_t preemptions() const { return preemptions_; }
  std::int64_t recomputed_tokens() const { return recomputed_; }

 private:
  struct Seq {
    int id = 0;
    BlockAllocator::Seq kv;  // tokens: prompt + generated so far
    int prompt = 0;          // tokens to prefill at this admission
    int prefilled = 0;
    int generated = 0;
    int target = 0;          // min(output, max_tokens)
    int reserved = 0;        // kReserveMax: blocks still reserved for future tokens
    std::int64_t admitted_at = -1;
  };

  // Preempts the newest running sequence; answers the index it had in running_.
  std::size_t preempt_newest(StepResult& out);
  bool admit_front(int& budget, StepResult& out);
  int blocks_for(int tokens) const;

  BlockAllocator& kv_;
  SchedulerConfig cfg_;
  std::vector<Seq> running_;  // admission order: oldest first, newest last
  std::deque<Seq> waiting_;
  int reserved_ = 0;          // sum of running_[i].reserved
  std::int64_t admissions_ = 0;
  std::int64_t preemptions_ = 0;
  std::int64_t recomputed_ = 0;
};

}  // namespace ridge::lab
