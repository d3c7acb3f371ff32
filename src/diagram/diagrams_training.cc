// The diagrams of a training step and what it loses: the pipeline schedule and its bubble, the
// ring all-reduce, the checkpoint interval's overhead and the step-time waterfall (MFU).
#include "diagram/diagrams_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "diagram/svg.h"

namespace ridge::diagram::detail {

// ---- pipeline ----
namespace {
struct Op {
  bool forward;
  int micro;
  int chunk = 0;  // the model chunk on this stage (interleaved: 0 .. v-1)
};
}  // namespace

Result<Rendered> pipeline(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o) {
  Given calc_params = params;
  auto bubble = registry.evaluate("pipeline-bubble", calc_params, catalog);
  if (!bubble) return bubble.errors();
  int S = static_cast<int>(input_value(registry, *bubble, "stages"));
  int M = static_cast<int>(input_value(registry, *bubble, "microbatches"));
  std::string schedule = params.count("schedule") ? params.at("schedule") : "1f1b";
  const bool interleaved = schedule == "interleaved";
  const int V = interleaved ? static_cast<int>(input_value(registry, *bubble, "virtual-stages")) : 1;
  if (S > 16 || M > 32) {
    return FieldError{S > 16 ? "stages" : "microbatches", std::to_string(S > 16 ? S : M), "is too many to draw",
                      "up to 16 stages and 32 microbatches"};
  }
  if (interleaved && (V > 8 || M % S != 0)) {
    // Megatron-LM's interleaved schedule takes microbatches in groups of the stage count.
    return V > 8 ? FieldError{"virtual-stages", std::to_string(V), "is too many to draw", "up to 8 chunks per stage"}
                 : FieldError{"microbatches", std::to_string(M), "is not a multiple of the stages (" + std::to_string(S) +
                                                                   "), as the interleaved schedule needs",
                              "a multiple of " + std::to_string(S)};
  }
  // Each stage's order of operations; then simulate with forward = 1 unit and backward = 2 per
  // microbatch and stage, a chunk taking 1/v of them. Interleaved 1F1B (Narayanan et al., "Efficient
  // Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", SC 2021, section 2.2;
  // Megatron-LM's forward_backward_pipelining_with_interleaving): stage s holds chunks s, s + S,
  // ...; forwards run chunk by chunk over groups of S microbatches, backwards the chunks in
  // reverse; (S - s - 1) × 2 + (v - 1) × S forwards warm up, then one forward, one backward.
  std::vector<std::vector<Op>> order(static_cast<size_t>(S));
  const int total = M * V;
  auto nth = [&](int i, bool forward) {
    int k = (i % (S * V)) / S;
    return Op{forward, (i / (S * V)) * S + i % S, forward ? k : V - 1 - k};
  };
  for (int s = 0; s < S; ++s) {
    auto& ops = order[static_cast<size_t>(s)];
    if (schedule == "gpipe") {
      for (int m = 0; m < M; ++m) ops.push_back({true, m});
      for (int m = 0; m < M; ++m) ops.push_back({false, m});
    } else {
      int warmup = std::min(interleaved ? (S - s - 1) * 2 + (V - 1) * S : S - s - 1, total), f = 0, b = 0;
      for (; f < warmup; ++f) ops.push_back(nth(f, true));
      while (f < total) {
        ops.push_back(nth(f++, true));
        ops.push_back(nth(b++, false));
      }
      while (b < total) ops.push_back(nth(b++, false));
    }
  }
  // By global chunk (k × S + s, the model's order) and microbatch: when its pass ended.
  const int chunks = S * V;
  std::vector<std::vector<double>> f_end(static_cast<size_t>(chunks), std::vector<double>(static_cast<size_t>(M), -1)),
      b_end = f_end;
  std::vector<size_t> next(static_cast<size_t>(S), 0);
  std::vector<double> free_at(static_cast<size_t>(S), 0);
  struct Box {
    int stage;
    double start, len;
    Op op;
  };
  std::vector<Box> boxes;
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = 0; s < S; ++s) {
      auto su = static_cast<size_t>(s);
      if (next[su] >= order[su].size()) continue;
      Op op = order[su][next[su]];
      auto mu = static_cast<size_t>(op.micro);
      const int g = op.chunk * S + s;
      auto gu = static_cast<size_t>(g);
      double ready;
      if (op.forward) {
        ready = g == 0 ? 0 : f_end[gu - 1][mu];
      } else {
        ready = g == chunks - 1 ? f_end[gu][mu] : b_end[gu + 1][mu];
      }
      if (ready < 0) continue;
      double start = std::max(ready, free_at[su]), len = (op.forward ? 1.0 : 2.0) / V;
      (op.forward ? f_end : b_end)[gu][mu] = start + len;
      free_at[su] = start + len;
      boxes.push_back({s, start, len, op});
      ++next[su];
      progress = true;
    }
  }
  double makespan = *std::max_element(free_at.begin(), free_at.end());
  const double W = 680, L = 70, R = 16, T = 36, rowh = 26, H = T + rowh * S + 56;
  double unit = (W - L - R) / makespan;
  Svg svg(W, H);
  for (int s = 0; s < S; ++s) {
    double y = T + rowh * s;
    svg.rect(L, y + 2, W - L - R, rowh - 4, "d-idle");
    svg.text(L - 8, y + rowh / 2 + 4, "stage " + std::to_string(s), "d-small", "end");
  }
  for (const auto& b : boxes) {
    double x = L + b.start * unit, y = T + rowh * b.stage;
    const std::string chunk = interleaved ? " of chunk " + std::to_string(b.op.chunk * S + b.stage) : "";
    svg.rect(x + 0.5, y + 2, b.len * unit - 1, rowh - 4, b.op.forward ? "d-f1" : "d-f2",
             std::string(b.op.forward ? "forward " : "backward ") + std::to_string(b.op.micro) + chunk);
    if (b.len * unit > 14) {
      svg.text(x + b.len * unit / 2, y + rowh / 2 + 4, (b.op.forward ? "F" : "B") + std::to_string(b.op.micro), "d-on", "middle");
    }
  }
  double fraction = result(*bubble, "bubble_fraction");
  std::string caption = schedule + ", " + std::to_string(S) + " stages" + (interleaved ? " of " + std::to_string(V) + " chunks" : "") +
                        ", " + std::to_string(M) + " microbatches: bubble " +
                        calc::format_significant(fraction * 100, 3) + "% of the step (grey)";
  svg.text(L, 22, caption, "d-title");
  svg.rect(L, H - 34, 12, 12, "d-f1");
  svg.text(L + 16, H - 24, "forward (1 unit)", "d-small");
  svg.rect(L + 130, H - 34, 12, 12, "d-f2");
  svg.text(L + 146, H - 24, "backward (2 units)", "d-small");
  svg.rect(L + 270, H - 34, 12, 12, "d-idle");
  svg.text(L + 286, H - 24, "idle", "d-small");
  std::string title = "Pipeline schedule: " + caption;
  std::string desc = interleaved
                         ? "Each row is a pipeline stage over time, holding " + std::to_string(V) +
                               " model chunks; a chunk's forward takes 1/" + std::to_string(V) + " unit and its backward 2/" +
                               std::to_string(V) + "; grey is idle. The step takes " + calc::format_significant(makespan, 4) +
                               " units, of which the bubble is " + calc::format_significant(fraction * 100, 3) +
                               "%, as (p - 1) / (v × m + p - 1) gives."
                         : "Each row is a pipeline stage over time. Forward boxes take one unit and backward boxes two; grey "
                           "is idle. The step takes " + calc::format_significant(makespan, 4) + " units, of which the bubble is " +
                               calc::format_significant(fraction * 100, 3) + "%, as (p - 1) / (m + p - 1) gives.";
  return Rendered{"pipeline", title, desc, svg.finish("pipeline", o.id, title, desc, o.standalone)};
}

// ---- ring ----
Result<Rendered> ring(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o) {
  auto d = registry.evaluate("allreduce", params, catalog);
  if (!d) return d.errors();
  int n = static_cast<int>(input_value(registry, *d, "ranks"));
  if (n > 16) return FieldError{"ranks", params.at("ranks"), "is too many to draw", "2 to 16"};
  double bytes = input_value(registry, *d, "bytes");
  const double W = 560, H = 420, cx = 180, cy = 210, r = 140;
  Svg svg(W, H);
  for (int i = 0; i < n; ++i) {
    double a0 = 2 * M_PI * i / n - M_PI / 2, a1 = 2 * M_PI * (i + 1) / n - M_PI / 2;
    double x0 = cx + r * std::cos(a0), y0 = cy + r * std::sin(a0), x1 = cx + r * std::cos(a1), y1 = cy + r * std::sin(a1);
    // an arc-ish arrow from rank i to rank i+1, shortened to clear the nodes
    double dx = x1 - x0, dy = y1 - y0, len = std::hypot(dx, dy), sh = std::min(22.0, len / 3);
    double ax = x0 + dx / len * sh, ay = y0 + dy / len * sh, bx = x1 - dx / len * sh, by = y1 - dy / len * sh;
    svg.line(ax, ay, bx, by, "d-arrow");
    double hx = bx - dx / len * 8, hy = by - dy / len * 8, px = -dy / len * 4, py = dx / len * 4;
    svg.path("M" + fmt(bx) + " " + fmt(by) + " L" + fmt(hx + px) + " " + fmt(hy + py) + " L" + fmt(hx - px) + " " + fmt(hy - py) + " Z",
             "d-f2");
  }
  for (int i = 0; i < n; ++i) {
    double a = 2 * M_PI * i / n - M_PI / 2;
    svg.circle(cx + r * std::cos(a), cy + r * std::sin(a), 16, "d-node");
    svg.text(cx + r * std::cos(a), cy + r * std::sin(a) + 4, std::to_string(i), "d-text", "middle");
  }
  double chunk = bytes / n;
  double per_rank = result(*d, "bytes_per_rank"), seconds = result(*d, "seconds");
  double tx = 360;
  svg.text(tx, 60, "Ring all-reduce, " + std::to_string(n) + " ranks", "d-title");
  svg.text(tx, 90, "1. reduce-scatter: " + std::to_string(n - 1) + " steps", "d-text");
  svg.text(tx, 108, "   each rank sends " + q(chunk, calc::Unit::kBytes) + " per step", "d-small");
  svg.text(tx, 134, "2. all-gather: " + std::to_string(n - 1) + " steps", "d-text");
  svg.text(tx, 152, "   each rank sends " + q(chunk, calc::Unit::kBytes) + " per step", "d-small");
  svg.text(tx, 186, "per rank: 2(N-1)/N x S = " + q(per_rank, calc::Unit::kBytes), "d-text");
  svg.text(tx, 206, "time: " + q(seconds, calc::Unit::kSeconds), "d-text");
  std::string title = "Ring all-reduce over " + std::to_string(n) + " ranks";
  std::string desc = "Ranks 0 to " + std::to_string(n - 1) + " pass chunks of " + q(chunk, calc::Unit::kBytes) +
                     " to their neighbour: " + std::to_string(n - 1) + " reduce-scatter steps, then " + std::to_string(n - 1) +
                     " all-gather steps. Each rank sends " + q(per_rank, calc::Unit::kBytes) + " in all, taking " +
                     q(seconds, calc::Unit::kSeconds) + " at the stated bus bandwidth.";
  return Rendered{"ring", title, desc, svg.finish("ring", o.id, title, desc, o.standalone)};
}

// ---- checkpoint ----
Result<Rendered> checkpoint(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o) {
  params.erase("interval-seconds");
  auto d = registry.evaluate("checkpoint", params, catalog);
  if (!d) return d.errors();
  double opt = result(*d, "optimal_interval_seconds"), best = result(*d, "overhead_fraction");
  double mtbf = input_value(registry, *d, "mtbf-hours") * 3600;
  double write = input_value(registry, *d, "write-seconds");
  double restart = input_value(registry, *d, "restart-seconds");
  auto overhead = [&](double t) { return write / t + (t / 2 + restart) / mtbf; };
  const double W = 640, H = 380, L = 70, R = 20, T = 36, B = 50;
  double x0 = std::log10(opt / 10), x1 = std::log10(opt * 10);
  double ymax = std::min(1.0, overhead(opt / 10)) * 1.1;
  auto X = [&](double t) { return L + (std::log10(t) - x0) / (x1 - x0) * (W - L - R); };
  auto Y = [&](double v) { return H - B - std::min(v, ymax) / ymax * (H - T - B); };
  Svg svg(W, H);
  std::string pts;
  for (int i = 0; i <= 80; ++i) {
    double t = std::pow(10, x0 + (x1 - x0) * i / 80);
    if (i) pts += ' ';
    pts += fmt(X(t)) + ',' + fmt(Y(overhead(t)));
  }
  for (int i = 0; i <= 4; ++i) {
    double v = ymax * i / 4;
    svg.line(L, Y(v), W - R, Y(v), "d-grid");
    svg.text(L - 6, Y(v) + 4, calc::format_significant(v * 100, 2) + "%", "d-small", "end");
  }
  for (double t : {opt / 10, opt / 3, opt, opt * 3, opt * 10}) {
    svg.text(X(t), H - B + 16, q(t, calc::Unit::kSeconds), "d-small", "middle");
  }
  svg.line(L, H - B, W - R, H - B, "d-axis");
  svg.line(L, T, L, H - B, "d-axis");
  svg.polyline(pts, "d-s1");
  svg.line(X(opt), Y(best), X(opt), H - B, "d-grid");
  svg.circle(X(opt), Y(best), 5, "d-f2");
  svg.text(X(opt) + 8, Y(best) - 10, "optimum " + q(opt, calc::Unit::kSeconds) + ", " +
                                         calc::format_significant(best * 100, 3) + "% lost", "d-text");
  svg.text((L + W - R) / 2, H - 12, "checkpoint interval (log)", "d-text", "middle");
  svg.text(L, 22, "Expected time lost against checkpoint interval", "d-title");
  std::string title = "Checkpoint interval: optimum " + q(opt, calc::Unit::kSeconds);
  std::string desc = "Time lost to writing checkpoints falls as the interval grows, and rework after a failure rises. "
                     "Their sum is lowest at " + q(opt, calc::Unit::kSeconds) + " (Young/Daly), where " +
                     calc::format_significant(best * 100, 3) + "% of the run is lost.";
  return Rendered{"checkpoint", title, desc, svg.finish("checkpoint", o.id, title, desc, o.standalone)};
}

// ---- step-waterfall ----
Result<Rendered> waterfall(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o) {
  // The mfu calculator's inputs give the ideal compute time; every other key is a named loss in seconds.
  Given mfu_params;
  std::vector<std::pair<std::string, double>> losses;
  for (const auto& [k, v] : params) {
    if (k == "params" || k == "tokens" || k == "gpu" || k == "gpus" || k == "seconds" || k == "dtype") {
      mfu_params[k] = v;
      continue;
    }
    char* end = nullptr;
    double s = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != 0 || !(s >= 0) || !std::isfinite(s)) {
      return FieldError{k, v, "is not a loss in seconds", "params, tokens, gpu, gpus, seconds, dtype, or NAME=SECONDS"};
    }
    losses.emplace_back(k, s);
  }
  auto d = registry.evaluate("mfu", mfu_params, catalog);
  if (!d) return d.errors();
  double step = mfu_params.count("seconds") ? std::stod(mfu_params.at("seconds")) : 0;
  if (!(step > 0)) return FieldError{"seconds", "", "is required: the measured step time", "seconds > 0"};
  double mfu = result(*d, "mfu"), ideal = mfu * step;
  double named = 0;
  for (const auto& l : losses) named += l.second;
  double unexplained = step - ideal - named;
  std::vector<std::pair<std::string, double>> bars = {{"compute at peak", ideal}};
  bars.insert(bars.end(), losses.begin(), losses.end());
  if (std::fabs(unexplained) > 1e-12) bars.emplace_back(unexplained >= 0 ? "unexplained" : "over-attributed", unexplained);
  const double W = 680, T = 40, B = 80, L = 60, R = 20, H = 360;
  double bw = (W - L - R) / static_cast<double>(bars.size() + 1);
  auto Y = [&](double v) { return H - B - v / (step * 1.1) * (H - T - B); };
  Svg svg(W, H);
  double acc = 0;
  for (size_t i = 0; i < bars.size(); ++i) {
    double v = bars[i].second, x = L + bw * static_cast<double>(i);
    double lo = std::min(acc, acc + v), hi = std::max(acc, acc + v);
    svg.rect(x + 6, Y(hi), bw - 12, Y(lo) - Y(hi), i == 0 ? "d-f3" : (v < 0 ? "d-bad" : "d-f2"),
             bars[i].first + " " + q(v, calc::Unit::kSeconds));
    svg.text(x + bw / 2, Y(hi) - 6, q(v, calc::Unit::kSeconds), "d-small", "middle");
    svg.text(x + bw / 2, H - B + 16, bars[i].first, "d-small", "middle");
    acc += v;
  }
  double x = L + bw * static_cast<double>(bars.size());
  svg.rect(x + 6, Y(step), bw - 12, Y(0) - Y(step), "d-f1", "measured step");
  svg.text(x + bw / 2, Y(step) - 6, q(step, calc::Unit::kSeconds), "d-small", "middle");
  svg.text(x + bw / 2, H - B + 16, "measured step", "d-small", "middle");
  svg.line(L, H - B, W - R, H - B, "d-axis");
  std::string headline = "Where the step goes: MFU " + calc::format_significant(mfu * 100, 3) + "%";
  svg.text(L, 22, headline, "d-title");
  std::string desc = "A measured step of " + q(step, calc::Unit::kSeconds) + " starts from " + q(ideal, calc::Unit::kSeconds) +
                     " of compute at the chip's peak (MFU " + calc::format_significant(mfu * 100, 3) + "%)";
  for (const auto& l : losses) desc += ", plus " + l.first + " " + q(l.second, calc::Unit::kSeconds);
  desc += std::fabs(unexplained) > 1e-12 ? ", and " + q(unexplained, calc::Unit::kSeconds) + " unexplained." : ".";
  return Rendered{"step-waterfall", headline, desc, svg.finish("step-waterfall", o.id, headline, desc, o.standalone)};
}

}  // namespace ridge::diagram::detail
