// Figures for the continuous-batching scheduler: three admission rules at two loads over a
// pool of 2,048 blocks of 16 tokens (lab/kv-blocks/), the table the question quotes.
// Time is counted in decode steps; a step that prefills p tokens takes 1 + p / 2048 of them.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/report.h"
#include "scheduler.h"

namespace {

using ridge::lab::Admit;
using ridge::lab::BlockAllocator;
using ridge::lab::Request;
using ridge::lab::Scheduler;
using ridge::lab::SchedulerConfig;

constexpr int kBlocks = 2048;
constexpr int kBlockSize = 16;
constexpr int kRequests = 600;

struct Arrival {
  int prompt;
  int output;
  double at;
};

struct Row {
  double time = 0, tokens_per_time = 0, mean_batch = 0, ttft_mean = 0, ttft_p90 = 0, stall_p99 = 0;
  std::int64_t preemptions = 0, recomputed = 0;
};

Row simulate(const std::vector<Arrival>& arrivals, Admit rule) {
  BlockAllocator kv(kBlocks, kBlockSize);
  SchedulerConfig c;
  c.rule = rule;
  c.watermark = 0.10;
  Scheduler s(kv, c);
  const int n = static_cast<int>(arrivals.size());
  std::vector<double> first(n, -1), last(n, -1), worst_gap(n, 0);
  int next = 0, done = 0;
  std::int64_t steps = 0, batch_sum = 0, generated = 0;
  double now = 0;
  while (done < n) {
    for (; next < n && arrivals[next].at <= now; ++next) {
      Request r;
      r.id = next;
      for (int i = 0; i < arrivals[next].prompt; ++i) r.prompt.push_back(next * 10'000 + i);  // distinct prompts
      r.output = arrivals[next].output;
      s.submit(std::move(r));
    }
    const auto step = s.step();
    for (int id : step.decoded) {
      if (first[id] < 0) first[id] = now;
      if (last[id] >= 0) worst_gap[id] = std::max(worst_gap[id], now - last[id]);
      last[id] = now;
    }
    generated += static_cast<std::int64_t>(step.decoded.size());
    done += static_cast<int>(step.finished.size());
    batch_sum += s.running();
    ++steps;
    now += 1.0 + static_cast<double>(step.prefill_tokens) / c.token_budget;
  }
  std::vector<double> ttft, stall;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    ttft.push_back(first[i] - arrivals[i].at);
    stall.push_back(worst_gap[i]);
    sum += ttft.back();
  }
  std::sort(ttft.begin(), ttft.end());
  std::sort(stall.begin(), stall.end());
  Row r;
  r.time = now;
  r.tokens_per_time = static_cast<double>(generated) / now;
  r.mean_batch = static_cast<double>(batch_sum) / static_cast<double>(steps);
  r.ttft_mean = sum / n;
  r.ttft_p90 = ttft[ttft.size() * 9 / 10];
  r.stall_p99 = stall[stall.size() * 99 / 100];
  r.preemptions = s.preemptions();
  r.recomputed = s.recomputed_tokens();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  ridge::lab::Report report("cb-scheduler", "continuous batching over a paged KV pool: three admission rules, two loads");
  report.note("pool 2,048 blocks of 16 tokens; batch <= 64; 2,048 tokens per step; max_tokens 1,024; 600 requests, "
              "prompts 200 to 1,000 tokens, outputs 50 to 800 (seed 20261201), each prompt distinct");
  report.note("time unit = one decode step; a step that prefills p tokens takes 1 + p / 2048; stall = a request's "
              "longest gap between two tokens");
  for (int gap : {16, 12}) {
    std::mt19937_64 rng(20261201);
    std::vector<Arrival> arrivals;
    for (int i = 0; i < kRequests; ++i) {
      const int prompt = 200 + static_cast<int>(rng() % 801);
      const int output = 50 + static_cast<int>(rng() % 751);
      arrivals.push_back({prompt, output, static_cast<double>(gap) * i});
    }
    report.section("one arrival per " + std::to_string(gap) + " time units");
    struct Policy {
      const char* key;
      Admit rule;
    };
    for (const Policy& p : {Policy{"greedy", Admit::kGreedy}, Policy{"watermark_10pct", Admit::kWatermark},
                            Policy{"reserve_max_tokens", Admit::kReserveMax}}) {
      const Row r = simulate(arrivals, p.rule);
      const std::string k = "gap_" + std::to_string(gap) + "/" + p.key + "/";
      const std::string name = p.key;
      report.add(k + "time", r.time, "steps", name + ": time to finish", 0);
      report.add(k + "tokens_per_time", r.tokens_per_time, "tokens/step", name + ": throughput", 1);
      report.add(k + "mean_batch", r.mean_batch, "sequences", name + ": mean batch", 1);
      report.add(k + "ttft_mean", r.ttft_mean, "steps", name + ": TTFT mean", 1);
      report.add(k + "ttft_p90", r.ttft_p90, "steps", name + ": TTFT p90", 1);
      report.add(k + "stall_p99", r.stall_p99, "steps", name + ": p99 of the longest stall", 1);
      report.add(k + "preemptions", r.preemptions, "", name + ": preemptions");
      report.add(k + "recomputed_tokens", r.recomputed, "tokens", name + ": tokens recomputed");
    }
  }
  return report.print(argc, argv);
}
