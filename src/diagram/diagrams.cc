#include "diagram/diagrams.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "diagram/svg.h"

namespace ridge::diagram {

using calc::Derivation;
using calc::Errors;
using calc::FieldError;
using calc::Given;
using calc::Result;

namespace {

// Pulls the diagram's own keys out of `params`, leaving the calculator's.
std::string take(Given& params, const std::string& key, const std::string& fallback = "") {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  std::string v = it->second;
  params.erase(it);
  return v;
}

Result<double> take_number(Given& params, const std::string& key, double fallback, double lo, double hi) {
  std::string v = take(params, key);
  if (v.empty()) return fallback;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != 0 || !std::isfinite(d) || d < lo || d > hi) {
    return FieldError{key, v, "is not a number in range", calc::format_significant(lo, 6) + " to " + calc::format_significant(hi, 6)};
  }
  return d;
}

double result(const Derivation& d, const char* key) {
  const calc::NamedResult* r = d.find(key);
  return r ? r->value : 0;
}

std::string q(double v, calc::Unit u) { return calc::format_quantity(v, u); }

// A numeric input of a derivation, parsed with its calculator's own spec (so "3h", "32Ki"
// and "70B" mean what they meant to the calculator).
double input_value(const calc::Registry& registry, const Derivation& d, const std::string& name) {
  const calc::Calculator* c = registry.find(d.calculator());
  if (c == nullptr) return 0;
  for (const auto& in : d.inputs()) {
    if (in.name != name) continue;
    for (const auto& spec : c->params) {
      if (spec.name != name) continue;
      auto v = calc::parse_number(spec, in.raw);
      return v.ok() ? *v : 0;
    }
  }
  for (const auto& spec : c->params) {  // not given: the default
    if (spec.name == name && !spec.default_value.empty()) {
      auto v = calc::parse_number(spec, spec.default_value);
      return v.ok() ? *v : 0;
    }
  }
  return 0;
}

// ---- roofline ----
Result<Rendered> roofline(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o) {
  std::string gpus = take(params, "gpu", "h100-sxm");
  std::string dtype = take(params, "dtype", "bf16");
  std::string kernels = take(params, "kernels");
  if (!params.empty()) {
    return FieldError{params.begin()->first, params.begin()->second, "is not a roofline diagram parameter",
                      "gpu (comma-separated, up to 4), dtype, kernels (name@intensity,...), from"};
  }
  struct Chip {
    std::string id;
    double peak, bw, ridge;
  };
  std::vector<Chip> chips;
  std::stringstream list(gpus);
  std::string id;
  Errors errors;
  while (std::getline(list, id, ',')) {
    auto d = registry.evaluate("roofline", {{"gpu", id}, {"dtype", dtype}}, catalog);
    if (!d) {
      errors.insert(errors.end(), d.errors().begin(), d.errors().end());
      continue;
    }
    chips.push_back({id, result(*d, "peak_flops"), result(*d, "bandwidth"), result(*d, "ridge_flops_per_byte")});
  }
  if (!errors.empty()) return errors;
  if (chips.empty() || chips.size() > 4) return FieldError{"gpu", gpus, "needs one to four chips", "a comma-separated list of ids"};
  struct Point {
    std::string name;
    double intensity;
  };
  std::vector<Point> points;
  std::stringstream ks(kernels);
  std::string k;
  while (std::getline(ks, k, ',')) {
    if (k.empty()) continue;
    size_t at = k.find('@');
    char* end = nullptr;
    double v = at == std::string::npos ? 0 : std::strtod(k.c_str() + at + 1, &end);
    if (at == std::string::npos || end == k.c_str() + at + 1 || *end != 0 || !(v > 0) || !std::isfinite(v)) {
      return FieldError{"kernels", k, "is not name@intensity", "such as softmax@1.25,gemm@340"};
    }
    points.push_back({k.substr(0, at), v});
  }
  // Axes: intensity 0.1 to 10^4 FLOP/B, FLOP/s from a decade under the lowest knee.
  const double W = 640, H = 400, L = 70, R = 20, T = 30, B = 50;
  double ymax = 0, ymin = 1e30;
  for (const auto& c : chips) {
    ymax = std::max(ymax, c.peak);
    ymin = std::min(ymin, c.bw * 0.1);
  }
  double lx0 = -1, lx1 = 4, ly1 = std::ceil(std::log10(ymax * 1.5)), ly0 = std::floor(std::log10(ymin));
  auto X = [&](double v) { return L + (std::log10(v) - lx0) / (lx1 - lx0) * (W - L - R); };
  auto Y = [&](double v) { return H - B - (std::log10(v) - ly0) / (ly1 - ly0) * (H - T - B); };
  Svg svg(W, H);
  for (int e = static_cast<int>(lx0); e <= lx1; ++e) {
    double x = X(std::pow(10, e));
    svg.line(x, T, x, H - B, "d-grid");
    svg.text(x, H - B + 16, calc::format_significant(std::pow(10, e), 3), "d-small", "middle");
  }
  for (int e = static_cast<int>(ly0); e <= ly1; ++e) {
    double y = Y(std::pow(10, e));
    svg.line(L, y, W - R, y, "d-grid");
    svg.text(L - 6, y + 4, calc::format_quantity(std::pow(10, e), calc::Unit::kFlopPerSecond, 2), "d-small", "end");
  }
  svg.line(L, H - B, W - R, H - B, "d-axis");
  svg.line(L, T, L, H - B, "d-axis");
  svg.text((L + W - R) / 2, H - 12, "arithmetic intensity (FLOP per byte, log)", "d-text", "middle");
  std::string desc = "Roofline in " + dtype + ": ";
  for (size_t i = 0; i < chips.size(); ++i) {
    const Chip& c = chips[i];
    std::string cls = "d-s" + std::to_string(i + 1);
    double x0 = std::pow(10, lx0), x1 = std::pow(10, lx1);
    std::string pts = fmt(X(x0)) + "," + fmt(Y(std::max(x0 * c.bw, std::pow(10, ly0)))) + " " + fmt(X(c.ridge)) + "," +
                      fmt(Y(c.peak)) + " " + fmt(X(x1)) + "," + fmt(Y(c.peak));
    svg.polyline(pts, cls);
    svg.circle(X(c.ridge), Y(c.peak), 4, "d-f" + std::to_string(i + 1));
    // Legend, top left, one line per chip.
    double ly = T + 14 + 16.0 * static_cast<double>(i);
    svg.line(L + 10, ly - 4, L + 30, ly - 4, cls);
    svg.text(L + 36, ly, c.id + ": peak " + q(c.peak, calc::Unit::kFlopPerSecond) + ", ridge " +
                             calc::format_significant(c.ridge, 3) + " FLOP/B", "d-text");
    desc += c.id + " peaks at " + q(c.peak, calc::Unit::kFlopPerSecond) + " with " + q(c.bw, calc::Unit::kBytesPerSecond) +
            " of memory bandwidth, ridge point " + calc::format_significant(c.ridge, 3) + " FLOP/B; ";
  }
  for (const auto& p : points) {
    const Chip& c = chips.front();
    double y = std::min(c.peak, p.intensity * c.bw);
    svg.circle(X(p.intensity), Y(y), 5, "d-mark");
    svg.text(X(p.intensity), Y(y) + 18, p.name, "d-small", "middle");
    desc += p.name + " at " + calc::format_significant(p.intensity, 3) + " FLOP/B is " +
            (p.intensity >= c.ridge ? "compute-bound" : "memory-bound") + " on " + c.id + "; ";
  }
  std::string title = "Roofline: " + gpus + " (" + dtype + ")";
  return Rendered{"roofline", title, desc, svg.finish("roofline", o.id, title, desc, o.standalone)};
}

// ---- pipeline ----
struct Op {
  bool forward;
  int micro;
  int chunk = 0;  // the model chunk on this stage (interleaved: 0 .. v-1)
};

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

// ---- kv-blocks ----
// Sequence colours skip green, which marks shared prefix blocks.
std::string owner_class(int sequence) {
  static const char* classes[] = {"d-f1", "d-f2", "d-f4", "d-f5"};
  return classes[sequence % 4];
}

Result<Rendered> kv_blocks(Given params, const Options& o) {
  std::string tokens = take(params, "tokens", "40,25,33");
  auto block = take_number(params, "block-size", 16, 1, 256);
  auto shared = take_number(params, "shared-prefix", 0, 0, 1e6);
  if (!block) return block.errors();
  if (!shared) return shared.errors();
  if (!params.empty()) {
    return FieldError{params.begin()->first, params.begin()->second, "is not a kv-blocks parameter",
                      "tokens (per sequence, comma-separated), block-size, shared-prefix"};
  }
  std::vector<int> lengths;
  std::stringstream ss(tokens);
  std::string t;
  while (std::getline(ss, t, ',')) {
    char* end = nullptr;
    long v = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != 0 || v < 1 || v > 4096) return FieldError{"tokens", t, "is not a sequence length", "1 to 4096 per sequence"};
    lengths.push_back(static_cast<int>(v));
  }
  if (lengths.empty() || lengths.size() > 6) return FieldError{"tokens", tokens, "needs one to six sequences", "such as 40,25,33"};
  int bs = static_cast<int>(*block), prefix = static_cast<int>(*shared);
  int shared_blocks = prefix / bs;  // only whole blocks can be shared
  for (int len : lengths) {
    if (len < prefix) return FieldError{"shared-prefix", std::to_string(prefix), "is longer than a sequence", "at most the shortest sequence"};
  }
  // Allocate physical blocks as tokens arrive, round-robin across sequences (as a scheduler
  // interleaves them); shared prefix blocks first, once.
  std::vector<std::vector<int>> table(lengths.size());
  int next_block = 0;
  for (int b = 0; b < shared_blocks; ++b) {
    for (auto& row : table) row.push_back(next_block);
    ++next_block;
  }
  std::vector<int> owner(static_cast<size_t>(shared_blocks), -1);
  bool more = true;
  for (int b = shared_blocks; more; ++b) {
    more = false;
    for (size_t s = 0; s < lengths.size(); ++s) {
      int needed = (lengths[s] + bs - 1) / bs;
      if (b < needed) {
        table[s].push_back(next_block++);
        owner.push_back(static_cast<int>(s));
        more = true;
      }
    }
  }
  int total_slots = next_block * bs, used = 0;
  for (int len : lengths) used += len;
  used -= shared_blocks * bs * (static_cast<int>(lengths.size()) - 1);
  int waste = total_slots - used;
  const double cell = 30, W = 680, L = 90, T = 50;
  double left_w = 0;
  for (const auto& row : table) left_w = std::max(left_w, static_cast<double>(row.size()));
  int cols = 8;
  int rows = (next_block + cols - 1) / cols;
  double H = std::max(T + (cell + 10) * static_cast<double>(lengths.size()), T + (cell + 6) * rows) + 70;
  Svg svg(W, H);
  svg.text(L, 24, "Logical blocks (block table)", "d-title");
  double px = std::max(L + left_w * cell + 60, L + 230);
  svg.text(px, 24, "Physical blocks", "d-title");
  for (size_t s = 0; s < table.size(); ++s) {
    double y = T + (cell + 10) * static_cast<double>(s);
    svg.text(L - 8, y + cell / 2 + 4, "seq " + std::to_string(s) + " (" + std::to_string(lengths[s]) + ")", "d-small", "end");
    for (size_t b = 0; b < table[s].size(); ++b) {
      bool is_shared = static_cast<int>(b) < shared_blocks;
      svg.rect(L + cell * static_cast<double>(b), y, cell - 3, cell - 3, is_shared ? "d-shared" : owner_class(static_cast<int>(s)));
      svg.text(L + cell * static_cast<double>(b) + (cell - 3) / 2, y + cell / 2 + 2, std::to_string(table[s][b]), "d-on", "middle");
    }
  }
  for (int p = 0; p < next_block; ++p) {
    double x = px + cell * (p % cols), y = T + (cell + 6) * (p / cols);
    int own = owner[static_cast<size_t>(p)];
    svg.rect(x, y, cell - 3, cell - 3, own < 0 ? "d-shared" : owner_class(own));
    svg.text(x + (cell - 3) / 2, y + cell / 2 + 2, std::to_string(p), "d-on", "middle");
  }
  // The legend names green only when a green (shared) block is drawn.
  std::string caption = std::to_string(next_block) + " blocks of " + std::to_string(bs) + " tokens; " +
                        (shared_blocks > 0 ? std::to_string(shared_blocks) + " shared prefix block" + (shared_blocks == 1 ? "" : "s") + " (green); "
                                           : std::string("no shared prefix; ")) +
                        std::to_string(waste) + " empty slots in partly filled last blocks";
  svg.text(L, H - 20, caption, "d-text");
  std::string title = "Paged KV cache: " + std::to_string(lengths.size()) + " sequences in " + std::to_string(next_block) + " blocks";
  std::string desc = "Each sequence's logical blocks map through its block table to physical blocks allocated as tokens "
                     "arrive. " + caption + ".";
  return Rendered{"kv-blocks", title, desc, svg.finish("kv-blocks", o.id, title, desc, o.standalone)};
}

// ---- memory ----
Result<Rendered> memory(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o) {
  auto d = registry.evaluate("fit", params, catalog);
  if (!d) return d.errors();
  double weights = result(*d, "weights_bytes"), kv = result(*d, "kv_bytes_total"), budget = result(*d, "budget_bytes");
  double gpus = input_value(registry, *d, "gpus");
  double capacity = result(*d, "gpu_memory_bytes") * gpus;
  double reserve = capacity - budget;
  double top = std::max(capacity, weights + kv + reserve) * 1.05;
  const double W = 560, H = 420, L = 200, T = 40, B = 40, barw = 120;
  auto Y = [&](double v) { return H - B - v / top * (H - T - B); };
  Svg svg(W, H);
  double y = 0;
  auto seg = [&](double v, const char* cls, const std::string& label) {
    if (v <= 0) return;
    svg.rect(L, Y(y + v), barw, Y(y) - Y(y + v), cls, label);
    svg.text(L + barw + 12, (Y(y) + Y(y + v)) / 2 + 4, label, "d-text");
    y += v;
  };
  seg(weights, "d-f1", "weights " + q(weights, calc::Unit::kBytes));
  seg(kv, "d-f2", "KV cache " + q(kv, calc::Unit::kBytes));
  seg(reserve, "d-idle", "reserve " + q(reserve, calc::Unit::kBytes));
  svg.line(L - 20, Y(capacity), L + barw + 20, Y(capacity), "d-s4");
  svg.text(L - 24, Y(capacity) + 4, "capacity " + q(capacity, calc::Unit::kBytes), "d-text", "end");
  svg.line(L, H - B, L + barw, H - B, "d-axis");
  bool fits = result(*d, "fits") != 0;
  svg.text(L, 24, d->title() + (fits ? " Yes." : " No."), "d-title");
  std::string desc = "Stacked bar of memory on " + calc::format_significant(gpus, 4) + " GPU(s): weights " +
                     q(weights, calc::Unit::kBytes) + ", KV cache " + q(kv, calc::Unit::kBytes) + ", reserve " +
                     q(reserve, calc::Unit::kBytes) + ", against a capacity of " + q(capacity, calc::Unit::kBytes) + ". " +
                     d->conclusion();
  return Rendered{"memory", d->title(), desc, svg.finish("memory", o.id, d->title(), desc, o.standalone)};
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

}  // namespace

const std::vector<std::string>& kinds() {
  static const std::vector<std::string> k = {"roofline", "pipeline", "ring", "kv-blocks", "memory", "checkpoint", "step-waterfall"};
  return k;
}

Given inputs_of(const Derivation& d) {
  Given g;
  for (const auto& in : d.inputs()) g[in.name] = in.raw;
  return g;
}

std::optional<std::string> kind_for_calculator(const std::string& calculator) {
  static const std::map<std::string, std::string> m = {{"fit", "memory"},        {"roofline", "roofline"},
                                                       {"checkpoint", "checkpoint"}, {"pipeline-bubble", "pipeline"},
                                                       {"allreduce", "ring"}};
  auto it = m.find(calculator);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

Result<Rendered> draw(const std::string& kind, const Given& given, const calc::Registry& registry,
                      const calc::Catalog& catalog, const Options& options, const Derivation* from) {
  Given params;
  for (const auto& [k, v] : given) params[calc::normalize_param_name(k)] = v;
  std::string from_id = params.count("from") ? params.at("from") : "";
  params.erase("from");
  if (from != nullptr) {
    static const std::map<std::string, std::string> source = {{"roofline", "roofline"}, {"pipeline", "pipeline-bubble"},
                                                              {"ring", "allreduce"},    {"memory", "fit"},
                                                              {"checkpoint", "checkpoint"}, {"step-waterfall", "mfu"}};
    auto expected = source.find(kind);
    if (expected == source.end() || expected->second != from->calculator()) {
      return FieldError{"from", from_id, "is a " + from->calculator() + " block; a " + kind + " diagram " +
                                              (expected == source.end() ? "takes only its own parameters"
                                                                        : "draws from a " + expected->second + " block"),
                        expected == source.end() ? "no from=" : "from=ID of a " + expected->second + " block"};
    }
    for (const auto& [k, v] : inputs_of(*from)) params.emplace(k, v);
    if (kind == "roofline" && from->calculator() == "roofline" && from->find("intensity") && !params.count("kernels")) {
      params["kernels"] = "kernel@" + calc::format_significant(from->find("intensity")->value, 6);
      params.erase("flops");
      params.erase("bytes");
    }
  }
  if (kind == "roofline") return roofline(params, registry, catalog, options);
  if (kind == "pipeline") return pipeline(params, registry, catalog, options);
  if (kind == "ring") return ring(params, registry, catalog, options);
  if (kind == "kv-blocks") return kv_blocks(params, options);
  if (kind == "memory") return memory(params, registry, catalog, options);
  if (kind == "checkpoint") return checkpoint(params, registry, catalog, options);
  if (kind == "step-waterfall") return waterfall(params, registry, catalog, options);
  std::string list;
  for (const auto& k : kinds()) list += (list.empty() ? "" : ", ") + k;
  return FieldError{"kind", kind, "is not a diagram kind", list};
}

}  // namespace ridge::diagram
