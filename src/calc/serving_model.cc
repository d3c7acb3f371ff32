// Serving as deployed: the queueing model stated in serving_model.h.
#include "calc/serving_model.h"

#include <algorithm>
#include <cmath>

namespace ridge::calc::serving {
namespace {

// z of the 99th percentile of a standard normal.
constexpr double kZ99 = 2.326;
// Sequences above which a fixed-point search stops looking for a steady batch: no KV cache holds
// ten million sequences, so a batch that needs more is a saturated decode.
constexpr double kBatchCeiling = 1e7;

struct Prefill {
  double mean = 0, second_moment = 0;
};

// The service time of one prompt at the mean length and its second moment: S is linear in the
// length, so Var[S] = (per_token × mean × cv)².
Prefill prefill_moments(const PrefillCost& p, const Load& load) {
  const double mean = prefill_seconds(p, load.input_tokens);
  const double sd = p.per_token_seconds * load.input_tokens * length_cv(load.input_lengths);
  return {mean, mean * mean + sd * sd};
}

// The 99th percentile of an M/G/1 wait whose mean is `mean_wait` at utilisation `rho`.
double wait_p99(double mean_wait, double rho) {
  if (rho <= 0.01 || mean_wait <= 0) return 0;
  return mean_wait / rho * std::log(rho / 0.01);
}

// The steady decode batch: the B with B = a × step(B), a = sequences admitted per second of step
// time, searched geometrically (x1.25 up to the ceiling: at most about 75 probes) for a B whose
// step is long enough, then halved 60 times. Returns a negative number when there is none below
// `cap` (the decode saturates or the cache is full).
double steady_batch(double a, double cap, const DecodeCost& c, const Speculation& s) {
  auto excess = [&](double b) { return a * speculative_step_seconds(c, s, b) - b; };
  if (excess(0) <= 0) return 0;
  double lo = 0, hi = 1;
  while (excess(hi) > 0) {
    lo = hi;
    hi *= 1.25;
    if (hi > cap) {
      if (excess(cap) > 0) return -1;
      hi = cap;
      break;
    }
  }
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (excess(mid) > 0 ? lo : hi) = mid;
  }
  return hi;
}

double cap_of(const Load& load) { return load.max_batch > 0 ? load.max_batch : kBatchCeiling; }

}  // namespace

double length_cv(Lengths l) { return l == Lengths::kExponential ? 1.0 : 0.0; }

double length_p99(Lengths l, double mean) { return l == Lengths::kExponential ? mean * std::log(100.0) : mean; }

double experts_touched(double experts, double top_k, double tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  return experts * (1 - std::pow(1 - std::min(top_k, experts) / experts, tokens));
}

double decode_step_seconds(const DecodeCost& c, double batch, double tokens_per_sequence) {
  const double tokens = batch * tokens_per_sequence;
  const double expert_bw = c.expert_bandwidth > 0 ? c.expert_bandwidth : c.bandwidth;
  const double weights_seconds = c.dense_weight_bytes / c.bandwidth +
                                 c.expert_bytes * experts_touched(c.experts, c.top_k, tokens) / expert_bw;
  // The busiest expert-parallel rank sets the step: its routed GEMMs carry imbalance × the mean.
  const double flops = tokens * (c.flops_per_token + (std::max(1.0, c.imbalance) - 1) * c.expert_flops_per_token);
  const double gemm = std::max(weights_seconds, c.flop_rate > 0 ? flops / c.flop_rate : 0);
  return gemm + batch * c.kv_bytes_per_sequence / c.bandwidth + tokens * c.comm_seconds_per_token + c.fixed_seconds;
}

double tokens_per_step(const Speculation& s) {
  if (s.draft_tokens <= 0) return 1;
  if (s.acceptance >= 1) return s.draft_tokens + 1;
  return (1 - std::pow(s.acceptance, s.draft_tokens + 1)) / (1 - s.acceptance);
}

double speculative_step_seconds(const DecodeCost& c, const Speculation& s, double batch) {
  if (s.draft_tokens <= 0) return decode_step_seconds(c, batch, 1);
  // The draft's k steps, each a fraction of a plain target step at this batch, then the target
  // verifies k + 1 tokens per sequence in one pass (the cache read once, the GEMMs on k + 1 tokens).
  return s.draft_tokens * s.draft_cost * decode_step_seconds(c, batch, 1) +
         decode_step_seconds(c, batch, s.draft_tokens + 1);
}

double prefill_seconds(const PrefillCost& p, double input_tokens) {
  return p.fixed_seconds + p.per_token_seconds * input_tokens;
}

LoadPoint aggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec, const Load& load) {
  LoadPoint out;
  const Prefill s = prefill_moments(prefill, load);
  const double lambda = load.rate, E = tokens_per_step(spec);
  const double rho = lambda * s.mean;
  out.prefill_utilisation = rho;
  if (rho >= 1) {
    out.why = "prefill saturates (rate × prefill time ≥ 1)";
    return out;
  }
  // Decode steps run in the 1 − rho of the time prefills leave: a sequence lives
  // (output ÷ E) steps of step ÷ (1 − rho) each.
  const double steps = load.output_tokens / E;
  const double batch = steady_batch(lambda * steps / (1 - rho), cap_of(load), decode, spec);
  if (batch < 0) {
    out.why = load.max_batch > 0 ? "the KV cache is full before the decode batch is steady" : "decode saturates";
    return out;
  }
  const double step = speculative_step_seconds(decode, spec, batch);
  const double wait = lambda * s.second_moment / (2 * (1 - rho));
  const double p99_prompt = prefill_seconds(prefill, length_p99(load.input_lengths, load.input_tokens));
  out.stable = true;
  out.rate = lambda;
  out.batch = batch;
  out.step_seconds = step;
  // A prompt also waits for the decode step in flight: half a step on average while decoding runs.
  out.ttft_mean = wait + s.mean + (batch > 0 ? (1 - rho) * step / 2 : 0);
  out.ttft_p99 = wait_p99(wait, rho) + p99_prompt + (batch > 0 ? step : 0);
  out.tpot_mean = step / E / (1 - rho);
  const double life = steps * step / (1 - rho);
  const double m = lambda * life;
  out.tpot_p99 = step / E + (m + kZ99 * std::sqrt(m)) * s.mean / load.output_tokens;
  out.output_tokens_per_second = lambda * load.output_tokens;
  return out;
}

LoadPoint disaggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec,
                        const Load& load, const Disaggregation& dis) {
  LoadPoint out;
  const Prefill s = prefill_moments(prefill, load);
  const double lambda_p = load.rate / dis.prefill_replicas, lambda_d = load.rate / dis.decode_replicas;
  const double E = tokens_per_step(spec);
  const double rho = lambda_p * s.mean;
  out.prefill_utilisation = rho;
  if (rho >= 1) {
    out.why = "the prefill pool saturates (rate ÷ prefill replicas × prefill time ≥ 1)";
    return out;
  }
  const double steps = load.output_tokens / E;
  const double batch = steady_batch(lambda_d * steps, cap_of(load), decode, spec);
  if (batch < 0) {
    out.why = load.max_batch > 0 ? "the decode replicas' KV cache is full before the batch is steady"
                                 : "the decode pool saturates";
    return out;
  }
  const double step = speculative_step_seconds(decode, spec, batch);
  auto transfer = [&](double tokens) {
    return dis.transfer_bandwidth > 0 ? dis.transfer_latency + tokens * dis.kv_bytes_per_prompt_token / dis.transfer_bandwidth
                                      : 0.0;
  };
  const double wait = lambda_p * s.second_moment / (2 * (1 - rho));
  const double p99_len = length_p99(load.input_lengths, load.input_tokens);
  out.stable = true;
  out.rate = load.rate;
  out.batch = batch;
  out.step_seconds = step;
  out.kv_transfer_seconds = transfer(load.input_tokens);
  out.handoff_seconds = dis.handoff_seconds + dis.handoff_decode_steps * step;
  out.ttft_mean = wait + s.mean + out.kv_transfer_seconds + out.handoff_seconds;
  out.ttft_p99 = wait_p99(wait, rho) + prefill_seconds(prefill, p99_len) + transfer(p99_len) + out.handoff_seconds;
  out.tpot_mean = step / E;
  out.tpot_p99 = step / E;  // no prefill ever stalls a decode replica
  out.output_tokens_per_second = lambda_d * load.output_tokens;
  return out;
}

namespace {

bool within(const LoadPoint& p, const Slo& slo) {
  return p.stable && (slo.ttft_p99 <= 0 || p.ttft_p99 <= slo.ttft_p99) && (slo.tpot_p99 <= 0 || p.tpot_p99 <= slo.tpot_p99);
}

// The largest rate in [0, hi] for which `ok` holds, 60 halvings (the predicate is monotone: more
// load never lowers a latency in this model).
template <typename Ok>
double highest(double hi, Ok ok) {
  if (!(hi > 0) || !ok(hi * 1e-9)) return 0;
  double lo = hi * 1e-9;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (ok(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The closed loop's rate: clients(lambda) = lambda × (TTFT + (output − 1) × TPOT) grows with
// lambda; find where it equals C, or run at saturation with the rest queued.
template <typename At>
LoadPoint closed_loop(double clients, double output, double saturation, At at) {
  auto held = [&](const LoadPoint& p) { return p.rate * (p.ttft_mean + (output - 1) * p.tpot_mean); };
  LoadPoint top = at(saturation);
  if (!top.stable) return top;
  if (held(top) < clients) {
    const double extra = clients / saturation - (output - 1) * top.tpot_mean;
    top.saturated = true;
    top.ttft_p99 += std::max(0.0, extra - top.ttft_mean);
    top.ttft_mean = std::max(top.ttft_mean, extra);
    return top;
  }
  double lo = 0, hi = saturation;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    const LoadPoint p = at(mid);
    (p.stable && held(p) < clients ? lo : hi) = mid;
  }
  return at(hi);
}

}  // namespace

LoadPoint closed_loop_aggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec,
                                 Load load, double concurrency, double saturation) {
  return closed_loop(concurrency, load.output_tokens, saturation, [&](double r) {
    load.rate = r;
    return aggregated(decode, prefill, spec, load);
  });
}

LoadPoint closed_loop_disaggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec,
                                    Load load, const Disaggregation& dis, double concurrency, double saturation) {
  return closed_loop(concurrency, load.output_tokens, saturation, [&](double r) {
    load.rate = r;
    return disaggregated(decode, prefill, spec, load, dis);
  });
}

double max_rate_aggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec, Load load,
                           const Slo& slo, double replicas) {
  const double s = prefill_seconds(prefill, load.input_tokens);
  if (!(s > 0) || replicas <= 0) return 0;
  return replicas * highest(1 / s, [&](double r) {
           load.rate = r;
           return within(aggregated(decode, prefill, spec, load), slo);
         });
}

double max_rate_disaggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec, Load load,
                              const Disaggregation& dis, const Slo& slo) {
  const double s = prefill_seconds(prefill, load.input_tokens);
  if (!(s > 0)) return 0;
  return highest(dis.prefill_replicas / s, [&](double r) {
    load.rate = r;
    return within(disaggregated(decode, prefill, spec, load, dis), slo);
  });
}

}  // namespace ridge::calc::serving
