// The serving evaluation of the design grader: a deployment at a request rate, from the static
// per-step times of the `serve` calculator and the queueing approximations below.
#include "design/grader.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "design/grader_internal.h"

namespace ridge::design {

using namespace grader_detail;

namespace {

double step_value(const calc::Derivation& d, const std::string& label) {
  for (const auto& s : d.steps()) {
    if (s.label == label) return s.value;
  }
  return 0;
}

constexpr double kHoursPerMonth = 730;  // 8,760 h ÷ 12

// The 99th percentile of a Poisson count with mean m, by the normal approximation with a
// continuity margin (m + 2.326·√m); exact enough above m ≈ 5, conservative below.
double poisson_p99(double m) { return m + 2.326 * std::sqrt(m); }

// Erlang C: the probability an arrival waits in an M/M/c queue with offered load a = λ/μ
// (Kleinrock 1975, Queueing Systems vol. 1, eq. 3.40), through the Erlang B recursion
// B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)), stable for large c; C = c·B / (c − a·(1 − B)).
double erlang_c(double a, int c) {
  double b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  return c * b / (c - a * (1 - b));
}

// One static serve evaluation at `batch` concurrent sequences.
struct ServePoint {
  double ttft = 0, tpot = 0;
  double gemm = 0, attn = 0, comm = 0, overhead = 0;
  bool ok = false;
  std::string error;
};

}  // namespace

// ---- serving ----
// The model (calculators_perf.cc, `serve`) predicts a static batch: the prefill of `batch`
// prompts and one decode step of `batch` sequences. A deployment at a request rate runs
// continuous batching (Yu et al. 2022, Orca: iteration-level scheduling): each request holds one
// of the replica's `max_batch` slots from its prefill to its last token. The grader derives the
// deployment's figures from the static per-step times with stated approximations:
//  - occupancy: Little's law, n = λ_r × S(n), S(n) = TTFT(1) + (O − 1) × TPOT(n), solved by
//    fixed-point iteration (at most 6 steps: TPOT grows slowly with the batch);
//  - the slots are an M/M/c queue (c = the batch cap, or fewer when the KV cache holds fewer):
//    waiting p99 from Erlang C, P(W > t) = C·e^(−(cμ − λ)t) (Kleinrock 1975, §3.5);
//  - prefills run one at a time ahead of decode (vLLM's default scheduler without chunked
//    prefill): an M/M/1 queue of service TTFT(1), p99 wait ln(100ρ)/(μ − λ) when ρ > 1%, and a
//    new request waits up to one decode step for its iteration;
//  - TPOT at p99: the step time at the p99 occupancy (occupancy of an M/G/∞ system is Poisson
//    with mean λ·E[S], Takács 1962), stretched by the share of time prefills stall decode, ρ.
//  - end-to-end p99 ≈ TTFT p99 + (O − 1) × TPOT p99 (the sum of tails: an upper bound).
Evaluation evaluate_serving(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat) {
  Evaluation ev;
  const std::string model = text(c.fixed, "model"), gpu = text(d, "gpu");
  const double in_tok = num(c.fixed, "input_tokens"), out_tok = num(c.fixed, "output_tokens");
  const double rate = num(c.fixed, "request_rate");
  const double tp = num(d, "tp", 1), replicas = num(d, "replicas", 1), cap = num(d, "max_batch", 1);
  Given base = {{"model", model},
                {"gpu", gpu},
                {"weights-dtype", text(d, "weights_dtype")},
                {"kv-dtype", text(d, "kv_dtype")}};

  Given fit = base;
  fit["gpus"] = cnt(tp);
  fit["context"] = cnt(in_tok + out_tok);
  fit["sequences"] = cnt(cap);
  auto f = r.evaluate("fit", fit, cat);
  if (!f) {
    ev.runs = false;
    ev.failure = first_error(f.errors());
    ev.failure_binding = "memory";
    return ev;
  }
  const double max_seq = std::floor(result(*f, "max_sequences"));
  if (max_seq < 1) {
    ev.runs = false;
    ev.failure = "the weights (" + fmt(result(*f, "weights_bytes") / 1e9) + " GB) leave no room for one sequence's KV cache on " +
                 cnt(tp) + " × " + gpu + " (" + fmt(result(*f, "budget_bytes") / 1e9) + " GB usable): more GPUs per replica, or smaller weights";
    ev.failure_binding = "memory";
    return ev;
  }
  const double slots = std::min(cap, max_seq);
  const bool kv_limited = max_seq < cap;

  auto point = [&](double batch) {
    ServePoint p;
    Given g = base;
    g["tp"] = cnt(tp);
    g["batch"] = cnt(std::max(1.0, std::ceil(batch)));
    g["input-tokens"] = cnt(in_tok);
    g["output-tokens"] = cnt(out_tok);
    auto s = r.evaluate("serve", g, cat);
    if (!s) {
      p.error = first_error(s.errors());
      return p;
    }
    p.ok = true;
    p.ttft = result(*s, "ttft_seconds");
    p.tpot = result(*s, "tpot_seconds");
    p.gemm = step_value(*s, "Decode GEMMs per step");
    p.attn = step_value(*s, "Decode attention per step");
    p.comm = step_value(*s, "Decode TP all-reduces");
    p.overhead = p.tpot - p.gemm - p.attn - p.comm;
    return p;
  };
  const ServePoint one = point(1);
  if (!one.ok) {
    ev.runs = false;
    ev.failure = one.error;
    ev.failure_binding = "memory";
    return ev;
  }
  const double lam = rate / replicas;  // Poisson arrivals split evenly over the replicas
  auto service = [&](const ServePoint& p) { return one.ttft + (out_tok - 1) * p.tpot; };
  double n = lam * service(one);
  ServePoint at = one;
  for (int i = 0; i < 6; ++i) {
    at = point(std::min(n, slots));
    if (!at.ok) break;
    const double next = lam * service(at);
    if (std::fabs(next - n) < 0.5) {
      n = next;
      break;
    }
    n = next;
  }
  const ServePoint full = point(slots);
  if (!at.ok || !full.ok) {
    ev.runs = false;
    ev.failure = !at.ok ? at.error : full.error;
    ev.failure_binding = "memory";
    return ev;
  }
  // Capacity: every slot busy, each request holding its slot S(slots).
  const double s_full = service(full);
  const double capacity_rps = slots / s_full;
  const double mu = 1 / service(at);  // per-slot service rate at the operating point
  const double a = lam / mu;          // offered load in slots
  const double rho_p = lam * one.ttft;  // share of time a prefill runs
  std::ostringstream occ;
  occ << "per replica λ = " << fmt(rate) << " ÷ " << cnt(replicas) << " = " << fmt(lam) << " req/s; slots c = min(batch cap "
      << cnt(cap) << ", KV holds " << cnt(max_seq) << ") = " << cnt(slots) << "; occupancy n = λ × (TTFT1 " << fmt(one.ttft * 1e3)
      << " ms + " << cnt(out_tok - 1) << " × TPOT(n) " << fmt(at.tpot * 1e3) << " ms) = " << fmt(n)
      << "; capacity c ÷ S(c) = " << cnt(slots) << " ÷ " << fmt(s_full) << " s = " << fmt(capacity_rps) << " req/s";
  const bool stable = lam < capacity_rps && a < slots && rho_p < 1;
  const std::string queue_binding = kv_limited ? "memory" : "queueing";

  MetricValue ttft, tpot, e2e;
  if (!stable) {
    ttft.unbounded = tpot.unbounded = e2e.unbounded = true;
    const std::string why = rho_p >= 1 ? "prefills alone need " + fmt(rho_p * 100) + "% of the replica's time"
                                       : "arrivals " + fmt(lam) + " req/s reach the capacity " + fmt(capacity_rps) + " req/s";
    ttft.binding = tpot.binding = e2e.binding = rho_p >= 1 ? "compute" : queue_binding;
    ttft.derivation = tpot.derivation = e2e.derivation =
        occ.str() + "; " + why + ": the queue never drains, so the latency has no finite p99" +
        (kv_limited ? " (the KV cache, not the batch cap, limits the slots)" : "");
  } else {
    const int c_slots = static_cast<int>(slots);
    const double pw = erlang_c(a, c_slots);
    const double slot_wait = pw > 0.01 ? std::log(pw / 0.01) / (c_slots * mu - lam) : 0;
    const double mu_p = 1 / one.ttft;
    const double prefill_wait = rho_p > 0.01 ? std::log(100 * rho_p) / (mu_p - lam) : 0;
    ttft.value = (slot_wait + prefill_wait + one.ttft + at.tpot) * 1e3;
    std::ostringstream t;
    t << occ.str() << "; slot wait p99 (Erlang C = " << fmt(pw) << ") " << fmt(slot_wait * 1e3) << " ms + prefill queue p99 (ρ = "
      << fmt(rho_p) << ") " << fmt(prefill_wait * 1e3) << " ms + prefill " << fmt(one.ttft * 1e3) << " ms + one decode step "
      << fmt(at.tpot * 1e3) << " ms = " << fmt(ttft.value) << " ms";
    ttft.derivation = t.str();
    ttft.binding = (slot_wait + prefill_wait) > one.ttft ? queue_binding : "compute";

    const double n99 = std::min(slots, poisson_p99(n));
    const ServePoint p99 = point(n99);
    const ServePoint& q = p99.ok ? p99 : at;
    tpot.value = q.tpot * (1 + rho_p) * 1e3;
    std::ostringstream u;
    u << "p99 occupancy min(c, n + 2.326√n) = " << fmt(n99) << "; decode step there " << fmt(q.tpot * 1e3) << " ms (GEMMs "
      << fmt(q.gemm * 1e3) << " + attention/KV " << fmt(q.attn * 1e3) << " + TP all-reduces " << fmt(q.comm * 1e3)
      << " + per-layer cost " << fmt(q.overhead * 1e3) << ") × (1 + prefill share " << fmt(rho_p) << ") = " << fmt(tpot.value)
      << " ms";
    tpot.derivation = u.str();
    const double terms[4] = {q.gemm, q.attn, q.comm, q.tpot * rho_p};
    const int top = static_cast<int>(std::max_element(terms, terms + 4) - terms);
    tpot.binding = top == 0 ? "bandwidth" : top == 1 ? "bandwidth" : top == 2 ? "communication" : "queueing";
    e2e.value = (ttft.value + (out_tok - 1) * tpot.value) / 1e3;
    e2e.derivation = "TTFT p99 " + fmt(ttft.value) + " ms + " + cnt(out_tok - 1) + " × TPOT p99 " + fmt(tpot.value) +
                     " ms = " + fmt(e2e.value) + " s (the sum of the tails: an upper bound)";
    e2e.binding = (out_tok - 1) * tpot.value > ttft.value ? tpot.binding : ttft.binding;
  }
  ev.metrics["ttft_p99_ms"] = ttft;
  ev.metrics["tpot_p99_ms"] = tpot;
  ev.metrics["e2e_p99_s"] = e2e;

  MetricValue thr;
  thr.value = replicas * capacity_rps * out_tok;
  thr.derivation = cnt(replicas) + " replicas × " + fmt(capacity_rps) + " req/s at full slots × " + cnt(out_tok) +
                   " output tokens = " + fmt(thr.value) + " tokens/s";
  thr.binding = kv_limited ? "memory" : full.comm > std::max(full.gemm, full.attn) ? "communication" : "bandwidth";
  ev.metrics["throughput_tokens_per_s"] = thr;

  const double price = c.prices.count(gpu) ? c.prices.at(gpu) : 0;
  MetricValue cost;
  cost.value = replicas * tp * price * kHoursPerMonth;
  cost.derivation = cnt(replicas) + " replicas × " + cnt(tp) + " GPUs × $" + fmt(price) + "/GPU-h × 730 h = $" + fmt(cost.value);
  cost.binding = "cost";
  ev.metrics["monthly_cost_usd"] = cost;
  MetricValue per_m;
  const double tokens_month = rate * out_tok * kHoursPerMonth * 3600;
  per_m.value = cost.value / tokens_month * 1e6;
  per_m.derivation = "$" + fmt(cost.value) + " ÷ (" + fmt(rate) + " req/s × " + cnt(out_tok) + " tokens × 730 h) × 1e6 = $" +
                     fmt(per_m.value) + " per million output tokens";
  per_m.binding = "cost";
  ev.metrics["cost_per_mtok_usd"] = per_m;
  return ev;
}

}  // namespace ridge::design
