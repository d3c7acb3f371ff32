// Cluster calculators: ring all-reduce time, checkpoint interval (Young/Daly), failure
// rates scaled to another fleet, and the pipeline bubble.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "calc/common.h"
#include "calc/training.h"

namespace ridge::calc {
namespace {

using namespace detail;

std::vector<ParamSpec> allreduce_params() {
  return {
      number("bytes", Unit::kBytes, "message size, such as the gradients (16GB, 1.4e10)", 0, 1e18, "", true, "16GB"),
      count("ranks", Unit::kCount, "GPUs in the ring", 2, 1e7, "", true, "8"),
      number("bus-bandwidth", Unit::kBytesPerSecond,
             "NCCL bus bandwidth per rank (busbw), such as 400GB/s; or leave it out and give --gpu to read it from the "
             "catalog's fabric model",
             0, 1e15, "", false, "400GB/s"),
      optional_zero("latency", Unit::kSeconds, "fixed cost of each of the 2 × (N − 1) ring steps (accepts us); 0 ignores it", 1),
      gpu_param(false),
      count("ranks-per-node", Unit::kCount,
            "ranks of the ring inside one scale-up domain, with --gpu (default: all of them up to the domain's size; 1 "
            "for a data-parallel ring with tensor parallelism filling each node)",
            1, 1e7, "", false, "8"),
  };
}

Result<Derivation> allreduce(const Inputs& in, const Catalog&) {
  const double bytes = in.number("bytes"), ranks = in.number("ranks");
  double busbw = in.number("bus-bandwidth");
  if (!in.has("bus-bandwidth") && in.gpu() == nullptr) {
    return FieldError{"bus-bandwidth", "", "is missing", "a bus bandwidth such as 400GB/s, or --gpu to read it from the catalog"};
  }
  Derivation d("allreduce", "Ring all-reduce time");
  describe_inputs(d, in, allreduce_params());
  if (!in.has("bus-bandwidth")) {
    // The fabric model (hardware.h): the measured busbw at this size inside the scale-up domain,
    // the group's share of the NICs across domains (a ring spanning whole nodes uses all of each
    // node's NICs; one GPU per node uses one NIC).
    const Accelerator& gpu = *in.gpu();
    const double domain = gpu.has_system() ? gpu.system.scale_up_domain : 8;
    const double per_node = in.has("ranks-per-node") ? std::min(in.number("ranks-per-node"), ranks) : std::min(ranks, domain);
    CollectiveEstimate c = estimate_collective(gpu, "all_reduce", ranks, per_node, bytes, 0.7,
                                               in.number("latency") > 0 ? 2 * (ranks - 1) * in.number("latency") : 0);
    d.assume("fabric model for " + gpu.id + ": " + c.explanation +
             (c.measured ? "" : "; 0.7 of the link where nothing is measured (assumed)"));
    busbw = d.step("Bus bandwidth (fabric model)", c.measured ? "measured busbw at this message size" : "link × 0.7",
                   c.explanation.substr(0, 60), c.busbw, Unit::kBytesPerSecond);
  }
  d.assume("ring algorithm: reduce-scatter then all-gather, each N − 1 steps of S/N bytes");
  d.assume(in.number("latency") > 0 ? "bus bandwidth as NCCL's tests report busbw, plus a fixed latency per ring step"
                                    : "bus bandwidth as NCCL's tests report busbw; latency terms ignored (large messages)");
  double per_rank = d.step("Bytes sent per rank", "2 × (N − 1) / N × S",
                           "2 × " + num(ranks - 1) + " / " + num(ranks) + " × " + q(bytes, Unit::kBytes),
                           2 * (ranks - 1) / ranks * bytes, Unit::kBytes);
  const double latency = in.number("latency");
  double seconds;
  if (latency > 0) {
    seconds = d.step("Time", "2 × (N − 1) × latency + bytes per rank ÷ bus bandwidth",
                     "2 × " + num(ranks - 1) + " × " + q(latency, Unit::kSeconds) + " + " + q(per_rank, Unit::kBytes) + " ÷ " +
                         q(busbw, Unit::kBytesPerSecond),
                     2 * (ranks - 1) * latency + per_rank / busbw, Unit::kSeconds);
  } else {
    seconds = d.step("Time", "bytes per rank ÷ bus bandwidth",
                     q(per_rank, Unit::kBytes) + " ÷ " + q(busbw, Unit::kBytesPerSecond), per_rank / busbw, Unit::kSeconds);
  }
  d.result("bytes_per_rank", per_rank, Unit::kBytes);
  d.result("seconds", seconds, Unit::kSeconds);
  // The bus bandwidth used (typed or from the fabric model), so an answer's ratios name it.
  d.result("bus_bandwidth", busbw, Unit::kBytesPerSecond);
  return d;
}

std::vector<ParamSpec> checkpoint_params() {
  return {
      number("mtbf-hours", Unit::kHours, "mean time between failures of the whole job, in hours", 0, 1e7, "", true, "3"),
      number("write-seconds", Unit::kSeconds, "time the job stalls to write one checkpoint", 0, 1e7, "", true, "60"),
      optional_zero("restart-seconds", Unit::kSeconds, "time to detect a failure, restart and reload (lost per failure)", 1e7),
      optional_zero("interval-seconds", Unit::kSeconds, "evaluate this interval instead of the optimum (0: the optimum)", 1e9),
  };
}

Result<Derivation> checkpoint(const Inputs& in, const Catalog&) {
  const double mtbf_h = in.number("mtbf-hours"), write = in.number("write-seconds");
  const double mtbf = mtbf_h * 3600;
  Derivation d("checkpoint", "Checkpoint interval (Young/Daly)");
  describe_inputs(d, in, checkpoint_params());
  d.assume("Young's first-order optimum (1974): interval = sqrt(2 × write × MTBF), valid while write ≪ MTBF");
  d.assume("overhead = time writing + expected rework after a failure (half an interval) + restart time per failure");
  double optimum = d.step("Optimal interval", "sqrt(2 × write × MTBF)",
                          "sqrt(2 × " + num(write) + " s × " + num(mtbf) + " s)", std::sqrt(2 * write * mtbf),
                          Unit::kSeconds);
  const double chosen = in.number("interval-seconds"), restart = in.number("restart-seconds");
  double interval = chosen > 0 ? chosen : optimum;
  if (chosen > 0) d.assume("evaluated at the chosen interval of " + q(chosen, Unit::kSeconds) + ", not the optimum");
  double overhead;
  if (restart > 0) {
    overhead = d.step("Overhead", "write / interval + (interval / 2 + restart) / MTBF",
                      num(write) + " / " + num(std::round(interval)) + " + (" + num(std::round(interval)) + " / 2 + " +
                          num(restart) + ") / " + num(mtbf),
                      write / interval + (interval / 2 + restart) / mtbf, Unit::kRatio);
  } else {
    overhead = d.step("Overhead", "write / interval + interval / (2 × MTBF)",
                      num(write) + " / " + num(std::round(interval)) + " + " + num(std::round(interval)) + " / (2 × " +
                          num(mtbf) + ")",
                      write / interval + interval / (2 * mtbf), Unit::kRatio);
  }
  d.result("optimal_interval_seconds", optimum, Unit::kSeconds);
  // Range of validity, stated in the derivation rather than left to a silent number (issue 33
  // item 6). Young's sqrt(2δM) is the first term of a series in δ/M; Daly's higher-order
  // estimate (J. T. Daly, "A higher order estimate of the optimum checkpoint interval for
  // restart dumps", FGCS 22(3), 2006, eq. 37) is sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + δ/(18M)] − δ
  // for δ < 2M, and M beyond: quoted when the two part by more than the rounding.
  if (write * 10 > mtbf) {
    const double daly = write < 2 * mtbf
                            ? std::sqrt(2 * write * mtbf) * (1 + std::sqrt(write / (2 * mtbf)) / 3 + write / (18 * mtbf)) - write
                            : mtbf;
    d.assume("warning: the write time is over a tenth of the MTBF, where Young's first-order interval is optimistic; "
             "Daly's higher-order estimate (2006) is " + q(daly, Unit::kSeconds));
  }
  if (optimum >= mtbf) {
    d.assume("warning: the interval reaches the MTBF (the write takes at least half of it): Young's approximation does not "
             "hold; most intervals end in a failure before their checkpoint, and the figures are outside the formula's range");
  }
  if (overhead > 1) {
    d.assume("warning: the overhead is over 100%: writing and rework take more time than the work itself, so at this "
             "failure rate the job makes no progress; the figure is outside the model's range, not a prediction");
  }
  d.result("interval_seconds", interval, Unit::kSeconds);
  d.result("overhead_fraction", overhead, Unit::kRatio);
  return d;
}

std::vector<ParamSpec> transfer_params() {
  return {
      number("bytes", Unit::kBytes, "bytes to move (1.1TB, 16GB)", 0, 1e21, "", true, "1.1TB"),
      number("bandwidth", Unit::kBytesPerSecond, "aggregate bandwidth (100GB/s)", 0, 1e16, "", true, "100GB/s"),
      number("efficiency", Unit::kRatio, "fraction of the bandwidth reached", 0, 1, "1"),
      // One network (issue 32): a link the catalog holds is named by reference; storage and
      // wide-area rates are not in the catalog, and saying so lets `ridge check` tell them apart.
      choice("medium", {"link", "storage", "wan"}, "link",
             "what the bytes cross: link (a GPU's NVLink, NIC or PCIe: pass {{chip.*}} from the catalog), storage "
             "(a filesystem, object store or drive array), wan (between sites)"),
  };
}

Result<Derivation> transfer(const Inputs& in, const Catalog&) {
  const double bytes = in.number("bytes"), bw = in.number("bandwidth"), eff = in.number("efficiency");
  Derivation d("transfer", "Time to move the bytes");
  describe_inputs(d, in, transfer_params());
  double effective = d.step("Effective bandwidth", "bandwidth × efficiency", q(bw, Unit::kBytesPerSecond) + " × " + num(eff),
                            bw * eff, Unit::kBytesPerSecond);
  double seconds = d.step("Time", "bytes ÷ effective bandwidth", q(bytes, Unit::kBytes) + " ÷ " + q(effective, Unit::kBytesPerSecond),
                          bytes / effective, Unit::kSeconds);
  d.result("seconds", seconds, Unit::kSeconds);
  d.result("effective_bandwidth", effective, Unit::kBytesPerSecond);
  return d;
}

std::vector<ParamSpec> interruptions_params() {
  return {
      count("events", Unit::kCount, "interruptions observed", 0, 1e9, "", true, "419"),
      number("days", Unit::kDays, "days observed", 0, 1e5, "", true, "54"),
      count("gpus", Unit::kCount, "GPUs observed", 1, 1e8, "", true, "16384"),
      count("target-gpus", Unit::kCount, "GPUs in the fleet to predict for (default: as observed)", 1, 1e8),
      number("target-days", Unit::kDays, "days to predict for (default: 1)", 0, 1e5, "1"),
  };
}

Result<Derivation> interruptions(const Inputs& in, const Catalog&) {
  const double events = in.number("events"), days = in.number("days"), gpus = in.number("gpus");
  const double tgpus = in.has("target-gpus") ? in.number("target-gpus") : gpus;
  const double tdays = in.number("target-days");
  Derivation d("interruptions", "Interruption rate scaled to a fleet");
  describe_inputs(d, in, interruptions_params());
  d.assume("failures independent and proportional to GPU count (a Poisson rate per GPU-day)");
  double rate = d.step("Rate per GPU-day", "events ÷ (gpus × days)",
                       num(events) + " ÷ (" + num(gpus) + " × " + num(days) + ")", events / (gpus * days), Unit::kNone);
  double expected = d.step("Expected events", "rate × target GPUs × target days",
                           format_significant(rate, 4) + " × " + num(tgpus) + " × " + num(tdays), rate * tgpus * tdays,
                           Unit::kNone);
  double hours = expected > 0 ? tdays * 24 / expected : std::numeric_limits<double>::infinity();
  d.step("Hours between events", "target days × 24 ÷ expected", num(tdays) + " × 24 ÷ " + format_significant(expected, 4),
         hours, Unit::kHours);
  d.result("rate_per_gpu_day", rate, Unit::kNone);
  d.result("expected_events", expected, Unit::kNone);
  d.result("hours_between", expected > 0 ? hours : 0, Unit::kHours);
  if (expected <= 0) d.set_conclusion("No events observed: the rate is zero and the interval undefined (reported as 0).");
  return d;
}

std::vector<ParamSpec> bubble_params() {
  ParamSpec schedule = choice("schedule", {"1f1b", "gpipe", "interleaved"}, "1f1b",
                              "gpipe and 1f1b share the bubble; interleaved divides it by the virtual stages");
  return {
      count("stages", Unit::kCount, "pipeline stages p", 1, 4096, "", true, "8"),
      count("microbatches", Unit::kCount, "microbatches per step m", 1, 1e6, "", true, "32"),
      schedule,
      count("virtual-stages", Unit::kCount, "model chunks per GPU v (interleaved only)", 1, 128, "1"),
  };
}

Result<Derivation> pipeline_bubble(const Inputs& in, const Catalog&) {
  const double p = in.number("stages"), m = in.number("microbatches"), v = in.number("virtual-stages");
  const std::string& schedule = in.text("schedule");
  if (schedule != "interleaved" && v != 1) {
    return FieldError{"virtual-stages", in.raw().at("virtual-stages"), "applies only to --schedule interleaved", "1"};
  }
  Derivation d("pipeline-bubble", "Pipeline bubble");
  describe_inputs(d, in, bubble_params());
  d.assume("equal stage times, backward = 2 × forward; bubble from Narayanan et al. (2021), section 2.2");
  double fraction = bubble_fraction(p, m, v, d);
  const double idle = (p - 1) / v;
  d.result("bubble_fraction", fraction, Unit::kRatio);
  d.result("bubble_over_ideal", idle / m, Unit::kRatio);
  return d;
}

std::vector<ParamSpec> power_params() {
  return {
      gpu_param(),
      count("gpus", Unit::kCount, "accelerators in the cluster (or give --power-budget)", 1, 1e7, "", false, "1024"),
      number("power-budget", Unit::kWatts, "facility power available, W (accepts k, M): how many GPUs fit (instead of --gpus)",
             0, 1e11, "", false, "20M"),
      number("node-overhead", Unit::kNone,
             "multiplier for CPUs, NICs, fans, storage and switches per GPU watt (default: from the vendor's system power, "
             "else 1.5)",
             1, 5),
      number("pue", Unit::kNone, "power usage effectiveness of the facility (cooling, conversion)", 1, 3, "1.3"),
  };
}

Result<Derivation> cluster_power(const Inputs& in, const Catalog&) {
  const Accelerator& gpu = *in.gpu();
  if (gpu.power_watts <= 0) {
    return FieldError{"gpu", gpu.id, "has no published power figure in the catalog", "a chip with power_watts"};
  }
  if (in.has("gpus") == in.has("power-budget")) {
    return FieldError{in.has("gpus") ? "power-budget" : "gpus", in.has("gpus") ? in.raw().at("power-budget") : "",
                      in.has("gpus") ? "cannot be combined with --gpus" : "is required (or --power-budget)",
                      "either --gpus N or --power-budget W"};
  }
  const double pue = in.number("pue");
  const bool reverse = in.has("power-budget");
  Derivation d("cluster-power", reverse ? "GPUs that fit in " + q(in.number("power-budget"), Unit::kWatts) + " of " + gpu.id
                                        : "Power envelope of " + num(in.number("gpus")) + " × " + gpu.id);
  describe_gpu(d, gpu);
  describe_inputs(d, in, power_params());
  d.assume("every GPU at its rated power (" + q(gpu.power_watts, Unit::kWatts) + ", " + gpu.source + ")");
  // The node overhead: the vendor's system power over its GPUs' power, unless given.
  const SystemSpec& sys = gpu.system;
  const bool from_system = !in.has("node-overhead") && gpu.has_system();
  double overhead;
  if (in.has("node-overhead")) {
    overhead = in.number("node-overhead");
    d.assume("node overhead " + num(overhead) + " as given: a planning factor, not the vendor's system figure");
  } else if (from_system) {
    d.assume(sys.name + ": " + q(sys.power_watts, Unit::kWatts) + " maximum system power for " + num(sys.gpus) +
             " GPUs (" + sys.source + ", " + sys.as_of + "); the maximum, not a measured draw");
    double per_gpu = d.step("System power per GPU", "system power ÷ GPUs per system",
                            q(sys.power_watts, Unit::kWatts) + " ÷ " + num(sys.gpus), sys.power_per_gpu(), Unit::kWatts);
    overhead = d.step("Node overhead", "system power per GPU ÷ GPU power",
                      q(per_gpu, Unit::kWatts) + " ÷ " + q(gpu.power_watts, Unit::kWatts), per_gpu / gpu.power_watts,
                      Unit::kNone);
  } else {
    overhead = 1.5;
    d.assume("the catalog lists no system for " + gpu.id + ": node overhead 1.5 is a planning factor (give --node-overhead)");
  }
  d.assume("PUE is the site's figure; " + num(pue) + " is typical of an air-cooled facility");
  double gpus;
  if (reverse) {
    const double budget = in.number("power-budget");
    double it_budget = d.step("IT power in the budget", "budget ÷ PUE", q(budget, Unit::kWatts) + " ÷ " + num(pue),
                              budget / pue, Unit::kWatts);
    double per_gpu_it = d.step("IT power per GPU", "GPU power × node overhead",
                               q(gpu.power_watts, Unit::kWatts) + " × " + format_significant(overhead, 4),
                               gpu.power_watts * overhead, Unit::kWatts);
    if (from_system) {
      double systems = d.step("Whole systems", "floor(IT power ÷ system power)",
                              "floor(" + q(it_budget, Unit::kWatts) + " ÷ " + q(sys.power_watts, Unit::kWatts) + ")",
                              std::floor(it_budget / sys.power_watts + 1e-9), Unit::kCount);
      gpus = d.step("GPUs that fit", "whole systems × GPUs per system", num(systems) + " × " + num(sys.gpus),
                    systems * sys.gpus, Unit::kCount);
      d.result("systems", systems, Unit::kCount);
    } else {
      gpus = d.step("GPUs that fit", "floor(IT power ÷ IT power per GPU)",
                    "floor(" + q(it_budget, Unit::kWatts) + " ÷ " + q(per_gpu_it, Unit::kWatts) + ")",
                    std::floor(it_budget / per_gpu_it + 1e-9), Unit::kCount);
    }
    d.result("gpus", gpus, Unit::kCount);
  } else {
    gpus = in.number("gpus");
  }
  double gpu_w = d.step("GPU power", "gpus × rated power", num(gpus) + " × " + q(gpu.power_watts, Unit::kWatts),
                        gpus * gpu.power_watts, Unit::kWatts);
  double it_w = d.step("IT power", "GPU power × node overhead", q(gpu_w, Unit::kWatts) + " × " + format_significant(overhead, 4),
                       gpu_w * overhead, Unit::kWatts);
  double facility_w = d.step("Facility power", "IT power × PUE", q(it_w, Unit::kWatts) + " × " + num(pue), it_w * pue,
                             Unit::kWatts);
  d.result("gpu_watts", gpu_w, Unit::kWatts);
  d.result("it_watts", it_w, Unit::kWatts);
  d.result("facility_watts", facility_w, Unit::kWatts);
  d.result("node_overhead", overhead, Unit::kNone);
  if (reverse) {
    d.set_conclusion(num(gpus) + " × " + gpu.id + " fit in " + q(in.number("power-budget"), Unit::kWatts) + ", drawing " +
                     q(facility_w, Unit::kWatts) + " at the meter.");
  }
  return d;
}

std::vector<ParamSpec> replicas_params() {
  return {
      number("qps", Unit::kNone, "peak requests per second to serve", 0, 1e9, "", true, "100"),
      count("output-tokens", Unit::kTokens, "output tokens per request", 1, 1e7, "", true, "500"),
      number("tokens-per-second", Unit::kTokensPerSecond, "output tokens per second one replica sustains at the SLO", 0,
             1e12, "", true, "2000"),
      number("headroom", Unit::kRatio, "fraction of capacity held back for bursts and failures", 0, 0.9, "0.3"),
  };
}

Result<Derivation> replicas(const Inputs& in, const Catalog&) {
  const double qps = in.number("qps"), out = in.number("output-tokens"), tps = in.number("tokens-per-second");
  const double headroom = in.has("headroom") ? in.number("headroom") : 0;
  Derivation d("replicas", "Replicas for a request rate");
  describe_inputs(d, in, replicas_params());
  d.assume("decode throughput is the limit; the per-replica tokens/s is measured at the latency SLO, not at maximum batch");
  double demand = d.step("Token demand", "QPS × output tokens", num(qps) + " × " + num(out), qps * out,
                         Unit::kTokensPerSecond);
  double usable = d.step("Usable per replica", "tokens/s × (1 − headroom)", num(tps) + " × (1 − " + num(headroom) + ")",
                         tps * (1 - headroom), Unit::kTokensPerSecond);
  double n = d.step("Replicas", "ceil(demand ÷ usable)", "ceil(" + num(demand) + " ÷ " + num(usable) + ")",
                    std::ceil(demand / usable), Unit::kCount);
  d.result("tokens_per_second_needed", demand, Unit::kTokensPerSecond);
  d.result("replicas", n, Unit::kCount);
  return d;
}

}  // namespace

void register_cluster_calculators(Registry& r) {
  r.add({"allreduce", "Ring all-reduce: bytes each rank sends and the time at a bus bandwidth", allreduce_params(),
         {"bytes_per_rank", "seconds", "bus_bandwidth"}, "--bytes 16GB --ranks 8 --bus-bandwidth 400GB/s", allreduce});
  r.add({"checkpoint", "Checkpoint interval and overhead from the failure rate (Young/Daly)", checkpoint_params(),
         {"interval_seconds", "overhead_fraction", "optimal_interval_seconds"}, "--mtbf-hours 3 --write-seconds 60", checkpoint});
  r.add({"transfer", "Time to move bytes at a bandwidth: a checkpoint write, a weight load, a dataset read",
         transfer_params(), {"seconds", "effective_bandwidth"}, "--bytes 1.1TB --bandwidth 100GB/s", transfer});
  r.add({"interruptions", "Failure rate per GPU-day, scaled to another fleet size and duration", interruptions_params(),
         {"rate_per_gpu_day", "expected_events", "hours_between"},
         "--events 419 --days 54 --gpus 16384 --target-gpus 100000 --target-days 1", interruptions});
  r.add({"pipeline-bubble", "Idle fraction of a pipeline-parallel schedule (GPipe, 1F1B, interleaved)", bubble_params(),
         {"bubble_fraction", "bubble_over_ideal"}, "--stages 8 --microbatches 32", pipeline_bubble});
  r.add({"cluster-power", "Power envelope of a GPU cluster (GPUs, IT load with the system's overhead, facility with PUE), or the GPUs a power budget holds",
         power_params(), {"gpu_watts", "it_watts", "facility_watts", "node_overhead", "gpus", "systems"},
         "--gpu h100-sxm --gpus 1024", cluster_power});
  r.add({"replicas", "Serving replicas for a peak request rate at a per-replica throughput", replicas_params(),
         {"tokens_per_second_needed", "replicas"}, "--qps 100 --output-tokens 500 --tokens-per-second 2000",
         replicas});
}

}  // namespace ridge::calc

// ---- lab figures: a measured number from the lab's reference builds, for the coding
// questions to quote by reference instead of by hand.

namespace ridge::calc {
namespace {

std::vector<ParamSpec> lab_params() {
  ParamSpec build = choice("build",
                           {"hash-ring", "rate-limiter", "batcher", "work-queue", "sampler", "straggler", "jobs-api",
                            "tsdb", "intervals", "retry", "kv-versioned", "trace-parse"},
                           "", "the lab build whose measure program produced the figure");
  ParamSpec figure;
  figure.name = "figure";
  figure.type = ParamType::kText;
  figure.required = true;
  figure.example = "points_150.max_over_mean_8";
  figure.help = "dotted path of the figure in the build's measure output (ridge lab measure ID --json)";
  return {build, figure};
}

Result<Derivation> lab_figure(const Inputs& in, const Catalog& catalog) {
  if (!catalog.lab_figures) {
    return FieldError{"build", in.text("build"), "has no recorded figures: data/lab-figures.json is missing",
                      "run `ridge lab measure --all --json` and save it there"};
  }
  const nlohmann::json& root = *catalog.lab_figures;
  const std::string& build = in.text("build");
  const std::string& path = in.text("figure");
  const nlohmann::json& builds = root.at("builds");  // the loader checked it is there
  if (!builds.contains(build) || !builds.at(build).contains("figures")) {
    return FieldError{"build", build, "has no figures in data/lab-figures.json", "a build measured there"};
  }
  const nlohmann::json* node = &builds.at(build).at("figures");
  std::string walked;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t dot = path.find('.', pos);
    std::string key = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    if (!node->is_object() || !node->contains(key)) {
      std::string keys;
      if (node->is_object()) {
        for (const auto& [k, v] : node->items()) keys += (keys.empty() ? "" : ", ") + (walked.empty() ? k : walked + "." + k);
      }
      return FieldError{"figure", path, "is not a figure of " + build, keys.empty() ? "a dotted path" : keys};
    }
    node = &(*node)[key];
    walked += (walked.empty() ? "" : ".") + key;
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  if (!node->is_number()) {
    std::string keys;
    if (node->is_object()) {
      for (const auto& [k, v] : node->items()) keys += (keys.empty() ? "" : ", ") + walked + "." + k;
    }
    return FieldError{"figure", path, "is not a number", keys.empty() ? "a path to a number" : keys};
  }
  double value = node->get<double>();
  Derivation d("lab", "Measured by lab/" + build);
  d.add_input("build", build, build);
  d.add_input("figure", path, path);
  d.assume("measured on " + root.value("measured", std::string("?")) + ", " + root.value("machine", std::string("?")) +
           ": " + root.value("command", std::string("?")));
  d.assume(builds.at(build).value("title", std::string()));
  d.assume(root.value("note", std::string()));
  d.step(path, "the " + build + " measure program", format_significant(value, 6), value, Unit::kNone);
  d.result("value", value, Unit::kNone);
  return d;
}

}  // namespace

void register_lab_calculators(Registry& r) {
  r.add({"lab", "A figure measured by one of the lab's reference builds, as recorded when it ran", lab_params(),
         {"value"}, "--build hash-ring --figure points_150.max_over_mean_8", lab_figure});
}

}  // namespace ridge::calc
