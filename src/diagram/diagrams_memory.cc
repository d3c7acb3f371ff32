// The memory diagrams: a GPU's memory as weights, KV cache and headroom (the fit calculator),
// and a paged KV cache's block tables.
#include "diagram/diagrams_internal.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "diagram/svg.h"

namespace ridge::diagram::detail {

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

// ---- kv-blocks ----
namespace {
// Sequence colours skip green, which marks shared prefix blocks.
std::string owner_class(int sequence) {
  static const char* classes[] = {"d-f1", "d-f2", "d-f4", "d-f5"};
  return classes[sequence % 4];
}
}  // namespace

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

}  // namespace ridge::diagram::detail
