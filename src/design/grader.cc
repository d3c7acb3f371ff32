#include "design/grader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

namespace ridge::design {
namespace {

using calc::Given;

std::string fmt(double v) {
  std::ostringstream os;
  const double a = std::fabs(v);
  os.setf(std::ios::fixed);
  os.precision(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 5);
  os << v;
  return os.str();
}

// A count as written: "4", not "4.00".
std::string cnt(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

double num(const std::map<std::string, std::string, std::less<>>& m, const std::string& key, double fallback = 0) {
  auto it = m.find(key);
  if (it == m.end()) return fallback;
  try {
    return std::stod(it->second);
  } catch (...) {
    return fallback;
  }
}

std::string text(const std::map<std::string, std::string, std::less<>>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

double result(const calc::Derivation& d, const char* key) {
  const calc::NamedResult* r = d.find(key);
  return r ? r->value : 0;
}

double step_value(const calc::Derivation& d, const std::string& label) {
  for (const auto& s : d.steps()) {
    if (s.label == label) return s.value;
  }
  return 0;
}

std::string first_error(const calc::Errors& e) { return e.empty() ? "" : e.front().to_string(); }

constexpr double kHoursPerMonth = 730;  // 8,760 h ÷ 12

// The 99th percentile of a Poisson count with mean m, by the normal approximation with a
// continuity margin (m + 2.326·√m); exact enough above m ≈ 5, conservative below.
double poisson_p99(double m) { return m + 2.326 * std::sqrt(m); }

// P(a Poisson(m) count >= k), summed exactly (k is bounded by the spares, at most 2,048 nodes).
double poisson_at_least(double m, int k) {
  if (k <= 0) return 1;
  double term = std::exp(-m), below = 0;
  for (int i = 0; i < k; ++i) {
    below += term;
    term *= m / (i + 1);
  }
  return std::max(0.0, 1 - below);
}

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

Trust trust_from_validate_json(const std::string& json_text) {
  Trust t;
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.contains("regimes") || !j["regimes"].is_object()) return t;
  for (const auto& [group, regimes] : j["regimes"].items()) {
    if (!regimes.is_object()) continue;
    for (const auto& [regime, halves] : regimes.items()) {
      RegimeError e;
      for (const char* half : {"held-out", "all"}) {
        if (!halves.contains(half)) continue;
        const auto& h = halves[half];
        const int n = h.value("n", 0);
        if (n == 0) continue;
        e.mean = h.value("mean_abs_error", 0.0);
        e.worst = h.value("worst_abs_error", 0.0);
        e.n = n;
        e.half = half;
        break;
      }
      if (e.n > 0) t[group + "/" + regime] = e;
    }
  }
  return t;
}

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

// ---- training ----
// `layout` says whether the plan fits in memory; `step` predicts the iteration; failures come
// from the challenge's rate per GPU-day, with a hot-spare pool as an M/G/∞ repair system (nodes
// in repair ~ Poisson(failure rate × repair time)): a failure finds no spare node with
// probability P(Poisson ≥ spare nodes) and then waits for the repair; the checkpoint interval's
// overhead is Young/Daly's (the checkpoint calculator).
Evaluation evaluate_training(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat) {
  Evaluation ev;
  const std::string model = text(c.fixed, "model"), gpu = text(d, "gpu");
  const double gpus = num(d, "gpus"), spares = num(d, "spares");
  const double seq = num(c.fixed, "seq"), gb = num(c.fixed, "global_batch"), tokens = num(c.fixed, "tokens");
  Given common = {{"model", model},         {"gpu", gpu},           {"gpus", text(d, "gpus")},
                  {"tp", text(d, "tp")},    {"pp", text(d, "pp")},  {"vp", text(d, "vp")},
                  {"seq", cnt(seq)},        {"global-batch", cnt(gb)}, {"micro-batch", text(d, "micro_batch")},
                  {"recompute", text(d, "recompute")}};
  if (text(d, "pipeline_split") == "embedding-and-loss") {
    common["account-for-embedding"] = "on";
    common["account-for-loss"] = "on";
  }
  Given lay = common;
  lay["zero-stage"] = text(d, "zero_stage");
  auto l = r.evaluate("layout", lay, cat);
  if (!l) {
    ev.runs = false;
    ev.failure = first_error(l.errors());
    ev.failure_binding = "memory";
    return ev;
  }
  if (result(*l, "fits") < 1) {
    ev.runs = false;
    ev.failure = "does not fit: " + fmt(result(*l, "memory_bytes_per_gpu") / 1e9) + " GB per GPU (state " +
                 fmt(result(*l, "state_bytes_per_gpu") / 1e9) + " GB + activations " +
                 fmt(result(*l, "activation_bytes_per_gpu") / 1e9) + " GB) against " +
                 fmt(result(*l, "gpu_memory_bytes") / 1e9) + " GB";
    ev.failure_binding = "memory";
    return ev;
  }
  Given st = common;
  st["dtype"] = text(d, "dtype");
  if (num(d, "nic_gbps") > 0) st["scale-out-bandwidth"] = fmt(num(d, "nic_gbps") * 1e9 / 8);
  auto s = r.evaluate("step", st, cat);
  if (!s) {
    ev.runs = false;
    ev.failure = first_error(s.errors());
    ev.failure_binding = "compute";
    return ev;
  }
  const double step_s = result(*s, "step_seconds"), bubble = result(*s, "bubble_fraction");
  const double comm = result(*s, "exposed_comm_seconds");
  const double steps = tokens / (gb * seq);

  // Failures.
  const double per_gpu_day = num(c.fixed, "gpu_failures_per_1000_gpu_days") / 1000;
  const double fail_per_s = per_gpu_day * gpus / 86400;
  const double repair_s = num(c.fixed, "repair_hours") * 3600;
  const int spare_nodes = static_cast<int>(spares / 8);
  const double in_repair = fail_per_s * repair_s;  // mean nodes in repair, Little's law
  const double no_spare = poisson_at_least(in_repair, spare_nodes);
  const double restart = num(c.fixed, "restart_seconds") + no_spare * repair_s;
  const double mtbf_h = 1 / fail_per_s / 3600;
  calc::Given ck = {{"mtbf-hours", fmt(mtbf_h)},
                    {"write-seconds", fmt(num(c.fixed, "checkpoint_write_seconds"))},
                    {"restart-seconds", fmt(restart)},
                    {"interval-seconds", fmt(num(d, "checkpoint_minutes") * 60)}};
  auto k = r.evaluate("checkpoint", ck, cat);
  if (!k) {
    ev.runs = false;
    ev.failure = first_error(k.errors());
    ev.failure_binding = "failures";
    return ev;
  }
  // Range of validity (issue 33): at an overhead of 100% or more, writing and rework take all
  // the time and the job never finishes; the time to train was a silent figure at a clamped
  // 99% before, so the design is said not to run, with the overhead named.
  if (result(*k, "overhead_fraction") >= 1) {
    ev.runs = false;
    ev.failure = "the checkpoint overhead is " + fmt(result(*k, "overhead_fraction") * 100) +
                 "% of the run (job MTBF " + fmt(mtbf_h) + " h, each failure costs " + fmt(restart) + " s with " +
                 std::to_string(spare_nodes) + " spare nodes): writing and rework take all the time, so the run never finishes";
    ev.failure_binding = "failures";
    return ev;
  }
  const double overhead = result(*k, "overhead_fraction");
  MetricValue good;
  good.value = 1 - overhead;
  good.binding = "failures";
  good.derivation = "job MTBF 1 ÷ (" + fmt(per_gpu_day) + " per GPU-day × " + fmt(gpus) + " GPUs) = " + fmt(mtbf_h) +
                    " h; nodes in repair " + fmt(in_repair) + ", P(no spare among " + std::to_string(spare_nodes) +
                    " nodes) = " + fmt(no_spare) + ", so each failure costs " + fmt(restart) + " s; Young/Daly overhead " +
                    "write/interval + (interval/2 + restart)/MTBF at a " + fmt(num(d, "checkpoint_minutes")) +
                    "-minute interval (optimum " + fmt(result(*k, "optimal_interval_seconds") / 60) + " min) = " +
                    fmt(overhead) + "; goodput " + fmt(good.value);
  ev.metrics["goodput"] = good;

  MetricValue ttt;
  const double wall_s = steps * step_s / good.value;
  ttt.value = wall_s / 86400;
  ttt.derivation = fmt(tokens) + " tokens ÷ (" + fmt(gb) + " × " + fmt(seq) + ") = " + fmt(steps) + " steps × " + fmt(step_s) +
                   " s (compute " + fmt(result(*s, "compute_seconds")) + " s, exposed communication " + fmt(comm) +
                   " s, bubble " + fmt(bubble * 100) + "%) ÷ goodput " + fmt(good.value) + " = " + fmt(ttt.value) + " days";
  {
    const double comm_share = comm / step_s, fail_share = overhead;
    if (fail_share > std::max(comm_share, bubble) && fail_share > 0.15) ttt.binding = "failures";
    else if (bubble > comm_share && bubble > 0.15) ttt.binding = "bubble";
    else if (comm_share > 0.2) ttt.binding = "communication";
    else ttt.binding = "compute";
  }
  ev.metrics["time_to_train_days"] = ttt;

  MetricValue mfu;
  mfu.value = result(*s, "mfu");
  mfu.binding = ttt.binding == "failures" ? "compute" : ttt.binding;
  mfu.derivation = "model FLOPs per GPU per second ÷ peak, from the step (" + fmt(step_s) + " s per step)";
  ev.metrics["mfu"] = mfu;

  const double price = c.prices.count(gpu) ? c.prices.at(gpu) : 0;
  MetricValue cost;
  cost.value = (gpus + spares) * price * wall_s / 3600;
  cost.derivation = "(" + fmt(gpus) + " + " + fmt(spares) + " spare) GPUs × $" + fmt(price) + "/GPU-h × " + fmt(wall_s / 3600) +
                    " h = $" + fmt(cost.value);
  cost.binding = "cost";
  ev.metrics["training_cost_usd"] = cost;

  calc::Given pw = {{"gpu", gpu}, {"gpus", cnt(gpus + spares)}};
  if (c.fixed.count("pue")) pw["pue"] = text(c.fixed, "pue");
  auto p = r.evaluate("cluster-power", pw, cat);
  MetricValue power;
  power.binding = "power";
  if (p) {
    power.value = result(*p, "facility_watts") / 1e6;
    power.derivation = fmt(gpus + spares) + " GPUs: " + fmt(result(*p, "gpu_watts") / 1e6) + " MW of GPUs × node overhead " +
                       fmt(result(*p, "node_overhead")) + " × PUE = " + fmt(power.value) + " MW at the facility";
  } else {
    power.unbounded = true;
    power.derivation = first_error(p.errors());
  }
  ev.metrics["facility_power_mw"] = power;
  return ev;
}

Evaluation evaluate(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat) {
  return c.kind == Kind::kServing ? evaluate_serving(c, d, r, cat) : evaluate_training(c, d, r, cat);
}

namespace {

// How far an objective misses: predicted ÷ target for a ceiling, target ÷ predicted for a
// floor; 1 or below passes; an unbounded prediction is infinitely far.
double miss(const Objective& o, const MetricValue& m) {
  if (m.unbounded) return std::numeric_limits<double>::infinity();
  if (o.at_most) return m.value / o.target;
  return m.value > 0 ? o.target / m.value : std::numeric_limits<double>::infinity();
}

std::vector<ObjectiveVerdict> judge(const Challenge& c, const Evaluation& ev) {
  std::vector<ObjectiveVerdict> out;
  for (const auto& o : c.objectives) {
    ObjectiveVerdict v;
    v.name = o.metric;
    v.unit = metric_unit(o.metric);
    v.target = o.target;
    v.at_most = o.at_most;
    if (!ev.runs) {
      v.unbounded = true;
      v.binding = ev.failure_binding;
      v.derivation = "the design cannot run: " + ev.failure;
    } else {
      const MetricValue& m = ev.metrics.at(o.metric);
      v.predicted = m.value;
      v.unbounded = m.unbounded;
      v.binding = m.binding;
      v.derivation = m.derivation;
      v.pass = miss(o, m) <= 1;
    }
    out.push_back(v);
  }
  return out;
}

std::string cost_metric(const Challenge& c) { return c.kind == Kind::kServing ? "monthly_cost_usd" : "training_cost_usd"; }

// The neighbourhood: one field changed to an adjacent value open in the challenge. Text fields
// (GPU, dtypes, recompute) try every other open value; counts try the neighbours in their list,
// or ±1, ×2 and ÷2 in their range. Deterministic order; at most kMaxEvaluations.
std::vector<std::pair<std::string, std::string>> neighbours(const Challenge& c, const Design& d) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [field, range] : c.ranges) {
    const double v = num(d, field);
    for (double cand : {v + 1, v * 2, v - 1, std::floor(v / 2)}) {
      if (cand >= range.first && cand <= range.second && cand != v) {
        const std::string s = cnt(cand);
        if (std::find(out.begin(), out.end(), std::make_pair(field, s)) == out.end()) out.emplace_back(field, s);
      }
    }
  }
  for (const auto& [field, values] : c.choices) {
    const std::string cur = text(d, field);
    auto it = std::find(values.begin(), values.end(), cur);
    const auto* spec_list = &submission_fields(c.kind);
    auto spec = std::find_if(spec_list->begin(), spec_list->end(), [&](const FieldSpec& s) { return s.name == field; });
    const bool numeric = spec != spec_list->end() && spec->numeric;
    if (numeric && it != values.end()) {
      if (it + 1 != values.end()) out.emplace_back(field, *(it + 1));
      if (it != values.begin()) out.emplace_back(field, *(it - 1));
    } else {
      for (const auto& v : values) {
        if (v != cur) out.emplace_back(field, v);
      }
    }
  }
  if (out.size() > static_cast<size_t>(kMaxEvaluations)) out.resize(kMaxEvaluations);
  return out;
}

std::string regime_of(const Challenge& c, const std::string& metric, const Design& d, const calc::Catalog& cat) {
  if (c.kind == Kind::kServing) {
    if (metric == "ttft_p99_ms") return "serving/prefill aggregated";
    if (metric == "tpot_p99_ms") return "serving/decode aggregated";
    return "serving/end-to-end aggregated";
  }
  const calc::ModelArch* m = cat.find_model(text(c.fixed, "model"));
  const bool moe = m && m->is_moe();
  return std::string("training/") + (moe ? "MoE " : "dense ") + text(d, "dtype");
}

}  // namespace

Verdict grade(const Challenge& c, const Design& d, const calc::Registry& r, const calc::Catalog& cat,
              const Trust& trust) {
  Verdict v;
  v.challenge = c.id;
  const Evaluation ev = evaluate(c, d, r, cat);
  v.evaluations = 1;
  v.runs = ev.runs;
  v.failure = ev.failure;
  v.objectives = judge(c, ev);
  v.pass = ev.runs && std::all_of(v.objectives.begin(), v.objectives.end(), [](const auto& o) { return o.pass; });
  if (ev.runs) v.cost_usd = ev.metrics.at(cost_metric(c)).value;

  for (auto& o : v.objectives) {
    o.regime = regime_of(c, o.name, d, cat);
    if (o.name.find("cost") != std::string::npos || o.name == "facility_power_mw") o.regime.clear();
  }
  std::vector<std::string> seen;
  for (const auto& o : v.objectives) {
    if (o.regime.empty() || std::find(seen.begin(), seen.end(), o.regime) != seen.end()) continue;
    seen.push_back(o.regime);
    auto t = trust.find(o.regime);
    if (t == trust.end()) {
      v.trust.push_back(o.regime + ": no published run of this regime in the ledger; treat a near miss with care");
    } else {
      v.trust.push_back(o.regime + ": the model's mean error is " + fmt(t->second.mean * 100) + "% (worst " +
                        fmt(t->second.worst * 100) + "%) on " + std::to_string(t->second.n) + " " + t->second.half +
                        " published run" + (t->second.n == 1 ? "" : "s"));
    }
  }
  if (v.pass) return v;

  // The worst failing objective: the largest miss (cannot-run designs: every objective fails,
  // and the search looks for the change that makes the design run and meets the most).
  int worst = -1;
  double worst_miss = 0;
  for (size_t i = 0; i < c.objectives.size(); ++i) {
    if (v.objectives[i].pass) continue;
    const double m = ev.runs ? miss(c.objectives[i], ev.metrics.at(c.objectives[i].metric))
                             : std::numeric_limits<double>::infinity();
    if (worst < 0 || m > worst_miss) {
      worst = static_cast<int>(i);
      worst_miss = m;
    }
  }
  struct Candidate {
    std::string field, value;
    bool fixes = false, all = false;
    int passing = 0;
    double cost = 0, worst_miss = 0;  // the worst objective's miss after the change
    ObjectiveVerdict worst_after;
  };
  std::optional<Candidate> best;
  for (const auto& [field, value] : neighbours(c, d)) {
    Design changed = d;
    changed[field] = value;
    auto ok = validate_submission(c, changed);
    if (!ok) continue;
    const Evaluation e = evaluate(c, *ok, r, cat);
    ++v.evaluations;
    if (!e.runs) continue;
    Candidate cand;
    cand.field = field;
    cand.value = value;
    auto verdicts = judge(c, e);
    cand.fixes = verdicts[static_cast<size_t>(worst)].pass;
    cand.passing = static_cast<int>(std::count_if(verdicts.begin(), verdicts.end(), [](const auto& o) { return o.pass; }));
    cand.all = cand.passing == static_cast<int>(verdicts.size());
    cand.cost = e.metrics.at(cost_metric(c)).value;
    cand.worst_after = verdicts[static_cast<size_t>(worst)];
    cand.worst_miss = miss(c.objectives[static_cast<size_t>(worst)], e.metrics.at(c.objectives[static_cast<size_t>(worst)].metric));
    auto better = [](const Candidate& a, const Candidate& b) {
      if (a.fixes != b.fixes) return a.fixes;
      if (a.all != b.all) return a.all;
      if (a.passing != b.passing) return a.passing > b.passing;
      if (!a.fixes && a.worst_miss != b.worst_miss) return a.worst_miss < b.worst_miss;
      return a.cost < b.cost;
    };
    if (!best || better(cand, *best)) best = cand;
  }
  // A change that fixes the worst objective; else the one that brings it closest (said so), as
  // long as it improves on the submission.
  if (best && (best->fixes || !ev.runs || best->worst_miss < worst_miss)) {
    Suggestion s;
    s.field = best->field;
    s.from = text(d, best->field);
    s.to = best->value;
    s.objective = v.objectives[static_cast<size_t>(worst)].name;
    s.passes_all = best->all;
    s.fixes = best->fixes;
    const auto& before = v.objectives[static_cast<size_t>(worst)];
    auto shown = [](const ObjectiveVerdict& o) { return o.unbounded ? std::string("unbounded") : fmt(o.predicted); };
    s.effect = s.objective + " " + (ev.runs ? shown(before) : std::string("(cannot run)")) + " -> " + shown(best->worst_after) +
               " " + before.unit + " (target " + (before.at_most ? "at most " : "at least ") + fmt(before.target) + ")" +
               (s.passes_all ? "; the design then passes every objective"
                             : best->fixes ? "; other objectives still fail"
                                           : "; the closest single change, not yet enough");
    v.suggestion = s;
  }
  return v;
}

std::string verdict_json(const Verdict& v, int indent) {
  nlohmann::json j;
  j["challenge"] = v.challenge;
  j["grader_version"] = v.grader_version;
  j["pass"] = v.pass;
  j["runs"] = v.runs;
  j["failure"] = v.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.failure);
  j["objectives"] = nlohmann::json::array();
  for (const auto& o : v.objectives) {
    j["objectives"].push_back({{"name", o.name},
                               {"predicted", o.unbounded ? nlohmann::json(nullptr) : nlohmann::json(o.predicted)},
                               {"target", o.target},
                               {"at_most", o.at_most},
                               {"unit", o.unit},
                               {"pass", o.pass},
                               {"binding", o.binding},
                               {"derivation", o.derivation}});
  }
  if (v.suggestion) {
    j["suggestion"] = {{"field", v.suggestion->field},     {"from", v.suggestion->from},
                       {"to", v.suggestion->to},           {"objective", v.suggestion->objective},
                       {"effect", v.suggestion->effect},   {"passes_all", v.suggestion->passes_all},
                       {"fixes", v.suggestion->fixes}};
  } else {
    j["suggestion"] = nullptr;
  }
  j["trust"] = v.trust;
  j["cost_usd"] = v.cost_usd;
  j["evaluations"] = v.evaluations;
  return j.dump(indent);
}

}  // namespace ridge::design
