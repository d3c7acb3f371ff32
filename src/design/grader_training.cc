// The training evaluation of the design grader: the layout's memory, the step, and failures
// against a hot-spare pool and the checkpoint interval.
#include "design/grader.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "design/grader_internal.h"

namespace ridge::design {

using namespace grader_detail;

namespace {

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

}  // namespace

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

}  // namespace ridge::design
