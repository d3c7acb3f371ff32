// A forward pass's GEMMs priced by their output tiles and the waves of tiles the SMs run
// (issue 31, perf8s): the shape term a FLOP count at a share of peak leaves out. Pure numbers, no
// derivation text; O(number of GEMMs), never a loop on a request's figure.
//
// A GEMM's output (M × N) is cut into tiles of tm × tn, one thread block (CTA) each; each tile
// walks the whole depth K. The SMs take one tile each at a time, so the tiles run in
// waves = ceil(tiles ÷ SMs), and a partial last wave costs as much as a full one (NVIDIA, Matrix
// Multiplication Background User's Guide, DU-09799-001, 2023: section 3.1 tile quantization,
// ceil(M ÷ tm) × ceil(N ÷ tn) tiles whatever the rows actually used; section 3.2 wave
// quantization). Time = waves × one tile's K-loop, 2 × tm × tn × K FLOPs at one SM's share of the
// GEMMs' rate (the chip's rate ÷ SMs), or the GEMM's weight read at the bandwidth if that is
// longer (a pass reads each weight once whatever the tiles).
//
// A prefill of 128 tokens has M = 128 rows: on an H100 (132 SMs) Llama 2 7B's QKV (N = 12,288 at
// 128 × 128 tiles) is 96 tiles, one wave at 96 of 132 SMs, and its O projection (N = 4,096) 32
// tiles, a wave at a quarter of the SMs. At M = 2,048 the same GEMMs are 12 and 4 full waves.
// Not modelled: split-K and stream-K schedules, which a library may pick for a short, deep GEMM
// to fill the idle SMs (CUTLASS's stream-K; cuBLAS heuristics); they would shorten the short
// prefills' GEMMs below this price.
#pragma once

#include <string>
#include <vector>

#include "calc/model.h"

namespace ridge::calc::waves {

// The output tile of one thread block. Hopper FP8 and BF16 wgmma kernels tile 64-256 rows by
// 128-256 columns (CUTLASS's examples/54_hopper_fp8_warp_specialized_gemm: TileShape 64 × 128 × 128);
// the default, and why, is in serve_internal.h.
struct Tile {
  double m = 128, n = 128;
};

// One GEMM of a forward pass on one GPU: N output columns, depth K, `count` times a pass (once per
// layer); price() takes the bytes per weight.
struct Gemm {
  std::string name;
  double n = 0, k = 0, count = 1;
};

struct Priced {
  double tiles = 0, waves = 0;  // per GEMM
  double seconds = 0;           // all `count` of them: count × max(waves × tile, weights ÷ bandwidth)
};

// `m` rows (the pass's tokens), `sms` SMs, `sm_rate` FLOP/s of one SM (the GEMMs' rate ÷ SMs),
// weights read at `bandwidth` B/s at `weight_bytes` each.
Priced price(double m, const Gemm& g, const Tile& t, double sms, double sm_rate, double weight_bytes,
             double bandwidth);

// A dense transformer's GEMMs on one GPU of a tp-way tensor-parallel replica: per layer QKV
// (N = (heads + 2 × KV heads) × head dim ÷ tp, K = hidden), O (N = hidden, K = heads × head dim ÷
// tp), the MLP's up (and gate) (N = (2 or 1) × width ÷ tp, K = hidden) and down (N = hidden,
// K = width ÷ tp), then the LM head once (N = vocab ÷ tp, K = hidden). Empty for a model whose
// layers are not all softmax attention and one dense MLP (MoE, MLA, linear attention, state
// space): those keep the FLOP count.
std::vector<Gemm> dense_transformer_gemms(const ModelArch& m, double tp);

}  // namespace ridge::calc::waves
