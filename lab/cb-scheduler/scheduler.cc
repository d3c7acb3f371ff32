#include "scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ridge::lab {

Scheduler::Scheduler(BlockAllocator& kv, SchedulerConfig config) : kv_(kv), cfg_(config) {
  if (cfg_.max_seqs < 1) throw std::invalid_argument("max_seqs = " + std::to_string(cfg_.max_seqs) + ": must be >= 1");
  if (cfg_.token_budget < 1) {
    throw std::invalid_argument("token_budget = " + std::to_string(cfg_.token_budget) + ": must be >= 1");
  }
  if (cfg_.max_tokens < 1) {
    throw std::invalid_argument("max_tokens = " + std::to_string(cfg_.max_tokens) + ": must be >= 1");
  }
  if (!(cfg_.watermark >= 0 && cfg_.watermark < 1)) {
    throw std::invalid_argument("watermark = " + std::to_string(cfg_.watermark) + ": must be in [0, 1)");
  }
}

void Scheduler::submit(Request r) {
  if (r.prompt.empty()) throw std::invalid_argument("request " + std::to_string(r.id) + ": empty prompt");
  if (r.output < 1) {
    throw std::invalid_argument("request " + std::to_string(r.id) + ": output = " + std::to_string(r.output) +
                                ": must be >= 1");
  }
  Seq s;
  s.id = r.id;
  s.kv.tokens = std::move(r.prompt);
  s.prompt = static_cast<int>(s.kv.tokens.size());
  s.target = std::min(r.output, cfg_.max_tokens);
  waiting_.push_back(std::move(s));
}

std::vector<int> Scheduler::queue_ids() const {
  std::vector<int> ids;
  for (const Seq& s : waiting_) ids.push_back(s.id);
  return ids;
}

int Scheduler::queued_prefill(int id) const {
  for (const Seq& s : waiting_) {
    if (s.id == id) return s.prompt;
  }
  return -1;
}

int Scheduler::blocks_for(int tokens) const { return (tokens + kv_.block_size() - 1) / kv_.block_size(); }

std::size_t Scheduler::preempt_newest(StepResult& out) {
  const std::size_t v = running_.size() - 1;  // the newest admitted: least work lost, least waited
  Seq victim = std::move(running_[v]);
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(v));
  const int total = static_cast<int>(victim.kv.tokens.size());
  recomputed_ += victim.prefilled + (total - victim.prompt);
  kv_.release(victim.kv);  // keeps victim.kv.tokens: prompt + everything generated
  reserved_ -= victim.reserved;
  victim.reserved = 0;
  victim.prompt = total;  // recompute the prompt and what it generated
  victim.prefilled = 0;
  victim.admitted_at = -1;
  ++preemptions_;
  out.preempted.push_back(victim.id);
  waiting_.push_front(std::move(victim));  // the front: it has waited already
  return v;
}

bool Scheduler::admit_front(int& budget, StepResult& out) {
  Seq& s = waiting_.front();
  const int want = blocks_for(s.prompt);
  const int reserve_total = blocks_for(s.prompt + cfg_.max_tokens - s.generated);
  const int available = kv_.free_blocks() - reserved_;
  switch (cfg_.rule) {
    case Admit::kGreedy:
      if (want > available) return false;
      break;
    case Admit::kWatermark:
      if (want > available - static_cast<int>(cfg_.watermark * kv_.num_blocks())) return false;
      break;
    case Admit::kReserveMax:
      if (reserve_total > available) return false;
      break;
  }
  auto table = kv_.allocate(s.kv.tokens);
  if (!table) return false;
  s.kv = std::move(*table);
  if (cfg_.rule == Admit::kReserveMax) {
    s.reserved = reserve_total - static_cast<int>(s.kv.table.size());
    reserved_ += s.reserved;
  }
  s.admitted_at = admissions_++;
  s.prefilled = std::min(s.prompt, budget);
  budget -= s.prefilled;
  out.prefill_tokens += s.prefilled;
  out.admitted.push_back(s.id);
  running_.push_back(std::move(s));
  waiting_.pop_front();
  return true;
}

StepResult Scheduler::step() {
  StepResult out;
  int budget = cfg_.token_budget;
  // (1) decode, oldest admitted first: the newest are both the victims and the last to run.
  for (std::size_t k = 0; k < running_.size() && budget > 0; ++k) {
    if (running_[k].prefilled < running_[k].prompt) continue;
    const std::size_t blocks_before = running_[k].kv.table.size();
    const int token = running_[k].id * 7919 + running_[k].generated;  // stands in for the sampled token
    bool self_preempted = false;
    while (!kv_.append(running_[k].kv, token)) {
      const std::size_t v = preempt_newest(out);
      if (v == k) {
        self_preempted = true;  // it was the victim: it is back in the queue
        break;
      }
      if (v < k) --k;
    }
    if (self_preempted) {
      --k;  // the next sequence now sits at index k (none, when the victim was the newest)
      continue;
    }
    Seq& s = running_[k];
    if (s.kv.table.size() > blocks_before && s.reserved > 0) {
      --s.reserved;
      --reserved_;
    }
    ++s.generated;
    --budget;
    out.decoded.push_back(s.id);
  }
  // Finished sequences free their blocks and any reservation left.
  for (std::size_t k = 0; k < running_.size();) {
    Seq& s = running_[k];
    if (s.generated >= s.target) {
      kv_.release(s.kv);
      reserved_ -= s.reserved;
      out.finished.push_back(s.id);
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      ++k;
    }
  }
  // (2) continue chunked prefills within the budget left.
  for (Seq& s : running_) {
    const int chunk = std::min(s.prompt - s.prefilled, budget);
    s.prefilled += chunk;
    budget -= chunk;
    out.prefill_tokens += chunk;
  }
  // (3) admit in queue order; the first request that does not fit stops admission.
  while (!waiting_.empty() && static_cast<int>(running_.size()) < cfg_.max_seqs && budget > 0) {
    if (!admit_front(budget, out)) break;
  }
  return out;
}

}  // namespace ridge::lab
