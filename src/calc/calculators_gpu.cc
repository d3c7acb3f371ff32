// GPU memory-access analysers as calculators: coalescing (the sectors one warp-wide global
// access touches), shared-memory bank conflicts (the wavefronts one warp-wide shared access
// needs) and occupancy (the blocks and warps one SM holds). Each models one warp or one SM
// from the rules NVIDIA documents; lab/kernels shows the same effects measured on a GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "calc/common.h"

namespace ridge::calc {
namespace {

using namespace detail;

constexpr int kWarpSize = 32;
// Global memory moves 32-byte sectors; an L1/L2 cache line is 128 bytes, four sectors
// (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory"; Nsight Compute's
// memory tables count "sectors per request").
constexpr uint64_t kSectorBytes = 32;
constexpr uint64_t kLineBytes = 128;
// Shared memory: 32 banks, each 4 bytes wide; successive 4-byte words map to successive banks
// (CUDA C++ Programming Guide, "Shared Memory" for compute capability 5.x and later).
constexpr uint64_t kBanks = 32;
constexpr uint64_t kBankBytes = 4;


ParamSpec element_bytes_param() {
  return choice("element-bytes", {"1", "2", "4", "8", "16"}, "4",
                "bytes per element: 1 (int8), 2 (half), 4 (float), 8 (float2, double), 16 (float4)");
}

std::string hex32(uint32_t v) {
  static const char* kDigits = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) out += kDigits[(v >> shift) & 0xf];
  return out;
}

// A byte count given as a number parameter must be whole: half a byte has no address.
Result<uint64_t> whole_bytes(const Inputs& in, const std::string& field) {
  const double v = in.number(field);
  if (v != std::floor(v)) {
    return FieldError{field, in.raw().at(field), "is not a whole number of bytes", "a whole number of bytes, such as 4096 or 4KiB"};
  }
  return static_cast<uint64_t>(v);
}

// ---------------------------------------------------------------- coalescing

// The lane masks the form offers. The parameter parser has no free-form hexadecimal type, so
// the mask is a choice among the patterns interviews ask about (see the report of issue 7).
const std::vector<std::string> kLaneMasks = {
    "0xffffffff",  // every lane
    "0x0000ffff",  // lower half (lanes 0-15), e.g. a tail or a branch on lane < 16
    "0xffff0000",  // upper half
    "0x55555555",  // even lanes (a branch on lane % 2)
    "0xaaaaaaaa",  // odd lanes
    "0x11111111",  // every fourth lane
    "0x000000ff",  // first 8 lanes
    "0x0000000f",  // first 4 lanes
    "0x00000001",  // lane 0 only
    "0x7fffffff",  // all but the last lane
    "0x80000000",  // lane 31 only
};

std::vector<ParamSpec> coalescing_params() {
  return {
      optional_zero("base", Unit::kBytes, "byte address lane 0 accesses; a multiple of the element size", 281474976710656.0),
      count("stride", Unit::kCount, "elements between consecutive lanes (1: contiguous; 0: every lane the same element)", 0,
            1e6, "1"),
      element_bytes_param(),
      choice("active-mask", kLaneMasks, "0xffffffff",
             "which of the 32 lanes execute the access (bit i is lane i), as hexadecimal"),
  };
}

Result<Derivation> coalescing(const Inputs& in, const Catalog&) {
  auto base_or = whole_bytes(in, "base");
  if (!base_or) return base_or.errors();
  const uint64_t base = *base_or;
  const uint64_t stride = static_cast<uint64_t>(in.number("stride"));
  const uint64_t element = std::stoull(in.text("element-bytes"));
  const uint32_t mask = static_cast<uint32_t>(std::stoul(in.text("active-mask"), nullptr, 16));
  if (base % element != 0) {
    return FieldError{"base", in.raw().at("base"),
                      "is not a multiple of the " + std::to_string(element) +
                          "-byte element: CUDA requires naturally aligned accesses (a misaligned address faults)",
                      "a multiple of " + std::to_string(element) + " bytes"};
  }

  std::set<uint64_t> elements, sectors, lines;
  uint64_t first = UINT64_MAX, last = 0;
  int active = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (((mask >> lane) & 1u) == 0) continue;
    ++active;
    const uint64_t addr = base + static_cast<uint64_t>(lane) * stride * element;
    elements.insert(addr);
    first = std::min(first, addr);
    last = std::max(last, addr + element - 1);
    for (uint64_t s = addr / kSectorBytes; s <= (addr + element - 1) / kSectorBytes; ++s) sectors.insert(s);
    for (uint64_t l = addr / kLineBytes; l <= (addr + element - 1) / kLineBytes; ++l) lines.insert(l);
  }

  Derivation d("coalescing", "Sectors one warp's access touches");
  describe_inputs(d, in, coalescing_params());
  d.assume("one warp-wide load or store; active lane i accesses the element at base + i × stride × element bytes");
  d.assume("global memory moves 32-byte sectors and caches 128-byte lines of 4 sectors (CUDA C++ Best Practices "
           "Guide, 'Coalesced Access to Global Memory'); a sector is moved whole even when one byte of it is used");
  d.assume("inactive lanes make no request; lanes that name the same element share it (requested bytes count it once)");

  d.step("Active lanes", "popcount(active mask)", "popcount(" + hex32(mask) + ")", active, Unit::kCount);
  d.step("Span", "last byte − first byte + 1", num(static_cast<double>(last)) + " − " + num(static_cast<double>(first)) + " + 1",
         static_cast<double>(last - first + 1), Unit::kBytes);
  const double requested =
      d.step("Bytes requested", "distinct elements × element bytes",
             num(static_cast<double>(elements.size())) + " × " + num(static_cast<double>(element)) + " B",
             static_cast<double>(elements.size() * element), Unit::kBytes);
  const double n_sectors =
      d.step("Sectors", "distinct floor(byte ÷ 32) over the active lanes' bytes",
             "sectors " + num(static_cast<double>(*sectors.begin())) + " to " + num(static_cast<double>(*sectors.rbegin())) +
                 ": " + num(static_cast<double>(sectors.size())) + " distinct",
             static_cast<double>(sectors.size()), Unit::kCount);
  const double n_lines =
      d.step("Lines", "distinct floor(byte ÷ 128) over the active lanes' bytes",
             "lines " + num(static_cast<double>(*lines.begin())) + " to " + num(static_cast<double>(*lines.rbegin())) + ": " +
                 num(static_cast<double>(lines.size())) + " distinct",
             static_cast<double>(lines.size()), Unit::kCount);
  const double moved = d.step("Bytes moved", "sectors × 32 B", num(n_sectors) + " × 32 B", n_sectors * kSectorBytes, Unit::kBytes);
  const double efficiency =
      d.step("Efficiency", "bytes requested ÷ bytes moved", num(requested) + " B ÷ " + num(moved) + " B", requested / moved, Unit::kRatio);

  d.result("sectors", n_sectors, Unit::kCount);
  d.result("lines", n_lines, Unit::kCount);
  d.result("bytes_requested", requested, Unit::kBytes);
  d.result("bytes_moved", moved, Unit::kBytes);
  d.result("efficiency", efficiency, Unit::kRatio);

  const double ideal = std::ceil(requested / kSectorBytes);
  if (n_sectors <= ideal) {
    d.set_conclusion("Coalesced: " + num(n_sectors) + " sectors carry the " + num(requested) +
                     " bytes asked for, the fewest possible; every byte moved is used.");
  } else {
    d.set_conclusion(num(n_sectors) + " sectors where " + num(ideal) + " would carry the " + num(requested) + " bytes: " +
                     format_significant(efficiency * 100, 3) + "% of the bytes moved are used (" +
                     format_significant(n_sectors / ideal, 3) + "× the traffic of a coalesced access).");
  }
  return d;
}

// ---------------------------------------------------------------- bank conflicts

std::vector<ParamSpec> bank_params() {
  return {
      count("tile-width", Unit::kCount, "elements per row of the shared-memory tile (32 for float tile[32][32])", 1, 65536,
            "32"),
      element_bytes_param(),
      choice("walk", {"row", "column"}, "row",
             "row: lane i reads element i of a row; column: lane i reads row i of one column (a transpose's read)"),
      count("padding", Unit::kCount, "elements added to each row (1 for the tile[32][33] trick)", 0, 1024, "0"),
  };
}

Result<Derivation> bank_conflicts(const Inputs& in, const Catalog&) {
  const uint64_t width = static_cast<uint64_t>(in.number("tile-width"));
  const uint64_t padding = static_cast<uint64_t>(in.number("padding"));
  const uint64_t element = std::stoull(in.text("element-bytes"));
  const bool row_walk = in.text("walk") == "row";
  const uint64_t pitch = width + padding;  // elements from one row's start to the next

  // bank -> the distinct 4-byte words the warp asks of it.
  std::map<uint64_t, std::set<uint64_t>> words_per_bank;
  uint64_t lane1_offset = 0;
  for (uint64_t lane = 0; lane < kWarpSize; ++lane) {
    const uint64_t row = row_walk ? lane / width : lane;
    const uint64_t col = row_walk ? lane % width : 0;
    const uint64_t offset = (row * pitch + col) * element;
    if (lane == 1) lane1_offset = offset;
    for (uint64_t w = offset / kBankBytes; w <= (offset + element - 1) / kBankBytes; ++w) {
      words_per_bank[w % kBanks].insert(w);
    }
  }
  uint64_t degree = 0, worst_bank = 0;
  for (const auto& [bank, words] : words_per_bank) {
    if (words.size() > degree) {
      degree = words.size();
      worst_bank = bank;
    }
  }
  const uint64_t warp_bytes = kWarpSize * element;
  // 32 banks × 4 bytes deliver 128 bytes per wavefront, so a warp's 8- or 16-byte elements
  // need 2 or 4 wavefronts even without a conflict.
  const uint64_t ideal = std::max<uint64_t>(1, (warp_bytes + kBanks * kBankBytes - 1) / (kBanks * kBankBytes));

  Derivation d("bank-conflicts", "Shared-memory wavefronts for one warp");
  describe_inputs(d, in, bank_params());
  d.assume("32 banks of 4 bytes; bank = (byte offset ÷ 4) mod 32 (CUDA C++ Programming Guide, shared memory for compute "
           "capability 5.x and later)");
  d.assume("lanes that read the same 4-byte word are served by one broadcast, not a conflict");
  d.assume(row_walk ? "row walk: lane i reads element i in row-major order (row i ÷ width, column i mod width)"
                    : "column walk: lane i reads row i of column 0");
  d.assume("conflict degree = the most distinct words any bank must deliver; each costs one wavefront. For 8- and "
           "16-byte elements the hardware splits the warp into halves or quarters, which can add a wavefront when "
           "the phases are uneven (not modeled)");
  d.step("Row pitch", "(tile width + padding) × element bytes",
         "(" + num(static_cast<double>(width)) + " + " + num(static_cast<double>(padding)) + ") × " +
             num(static_cast<double>(element)) + " B",
         static_cast<double>(pitch * element), Unit::kBytes);
  d.step("Lane stride", "byte offset of lane 1 − lane 0",
         row_walk ? "element bytes = " + num(static_cast<double>(element)) + " B"
                  : "row pitch = " + num(static_cast<double>(pitch * element)) + " B",
         static_cast<double>(lane1_offset), Unit::kBytes);
  d.step("Banks used", "distinct (offset ÷ 4) mod 32 over the 32 lanes", num(static_cast<double>(words_per_bank.size())) + " of 32",
         static_cast<double>(words_per_bank.size()), Unit::kCount);
  const double conflict = d.step("Conflict degree", "max over banks of distinct words requested",
                                 "bank " + num(static_cast<double>(worst_bank)) + ": " +
                                     num(static_cast<double>(degree)) + " distinct words",
                                 static_cast<double>(degree), Unit::kCount);
  const double ideal_wf = d.step("Ideal wavefronts", "ceil(32 × element bytes ÷ 128 B)",
                                 "ceil(" + num(static_cast<double>(warp_bytes)) + " B ÷ 128 B)", static_cast<double>(ideal),
                                 Unit::kCount);
  d.result("conflict_degree", conflict, Unit::kCount);
  d.result("wavefronts", conflict, Unit::kCount);
  d.result("ideal_wavefronts", ideal_wf, Unit::kCount);
  if (degree <= ideal) {
    d.set_conclusion("No bank conflict: " + num(conflict) + (conflict == 1 ? " wavefront" : " wavefronts") +
                     ", the fewest the warp's " + num(static_cast<double>(warp_bytes)) + " bytes need.");
  } else {
    d.set_conclusion(num(conflict) + "-way bank conflict: " + num(conflict) + " wavefronts where " + num(ideal_wf) +
                     " would do, so the access takes " + format_significant(conflict / ideal_wf, 3) + "× as long." +
                     (row_walk ? std::string()
                               : std::string(" Padding each row by one element (the +1 in tile[32][33]) or an odd "
                                             "width spreads a column over the banks.")));
  }
  return d;
}

// ---------------------------------------------------------------- occupancy

// Per compute capability, as cuda_occupancy.h (CUDA 13.0: cudaOccMaxBlocksPerMultiprocessor
// for the block limits, cudaOccAlignUpShmemSizeVoltaPlus for the carveouts) and the CUDA C++
// Programming Guide's "Technical Specifications per Compute Capability" table (warps per SM:
// 2,048 threads on 8.0, 9.0 and 10.0, 1,536 on 8.6 and 8.9) give them. Shared memory per SM is
// the largest carveout; a block may have that less the 1 KB the driver reserves per block.
// The tuning guides say so per architecture: Ampere, "A100 supports shared memory capacity of
// 0, 8, 16, 32, 64, 100, 132 or 164 KB per SM ... 8.6 ... 0, 8, 16, 32, 64 or 100 KB" (quoted
// in numba/numba#7897); Ada, "a single thread block [may] address up to 99 KB ... The 1 KB ...
// is reserved for system use"; Blackwell, "Both the NVIDIA H100 GPU and the NVIDIA B200 GPU
// support shared memory capacities of 0, 8, 16, 32, 64, 100, 132, 164, 196 and 228 KB per SM.
// CUDA reserves 1 KB of shared memory per thread block. Hence, the B200 GPU enables a single
// thread block to address up to 227 KB" (quoted in NVIDIA/cudnn-frontend#1164). A B200's
// device properties (pytorch/ao#4002): 2,048 threads and 228 KB per SM, 65,536 registers.
struct SmLimits {
  const char* cc;
  const char* chips;
  int max_warps;
  int max_blocks;
  uint64_t shared_per_sm;
  uint64_t shared_per_block;  // opt-in maximum a kernel may request
};

constexpr SmLimits kSmLimits[] = {
    {"8.0", "A100", 64, 32, 164 * 1024, 163 * 1024},
    {"8.6", "RTX 30 series, A10, A40", 48, 16, 100 * 1024, 99 * 1024},
    {"8.9", "L4, L40S, RTX 40 series", 48, 24, 100 * 1024, 99 * 1024},
    {"9.0", "H100, H200", 64, 32, 228 * 1024, 227 * 1024},
    {"10.0", "B200, GB200", 64, 32, 228 * 1024, 227 * 1024},
};

// The same for every capability above (cuda_occupancy.h: cudaOccRegAllocationGranularity,
// cudaOccSubPartitionsPerMultiprocessor, cudaOccSMemAllocationGranularity; the Programming
// Guide's table for the register file, 255 registers per thread and 1,024 threads per block).
constexpr int kRegistersPerSm = 65536;
constexpr int kRegistersPerBlock = 65536;
constexpr int kRegisterGranularity = 256;  // registers, allocated per warp
constexpr int kSubPartitions = 4;          // the register file is split across 4 schedulers
constexpr uint64_t kSharedGranularity = 128;
constexpr uint64_t kSharedReserved = 1024;  // per block, by the driver (cudaDevAttrReservedSharedMemoryPerBlock)
constexpr uint64_t kSharedDefaultLimit = 48 * 1024;  // above this a kernel must opt in

std::vector<std::string> cc_choices() {
  std::vector<std::string> out;
  for (const auto& l : kSmLimits) out.emplace_back(l.cc);
  return out;
}

std::vector<ParamSpec> occupancy_params() {
  return {
      choice("cc", cc_choices(), "9.0",
             "compute capability: 8.0 A100, 8.6 RTX 30/A10/A40, 8.9 L4/L40S/RTX 40, 9.0 H100/H200, 10.0 B200/GB200"),
      count("threads-per-block", Unit::kCount, "threads per block (blockDim.x × y × z)", 1, 1024, "", true, "256"),
      count("registers-per-thread", Unit::kCount, "registers per thread, as ptxas -v or Nsight Compute report them", 1, 255,
            "", true, "32"),
      optional_zero("shared-bytes-per-block", Unit::kBytes,
                    "static plus dynamic shared memory per block (accepts KiB); over 48 KiB needs the opt-in", 227 * 1024),
  };
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

Result<Derivation> occupancy(const Inputs& in, const Catalog&) {
  const std::string& cc = in.text("cc");
  const SmLimits& sm = *std::find_if(std::begin(kSmLimits), std::end(kSmLimits),
                                     [&](const SmLimits& l) { return cc == l.cc; });
  const int64_t threads = static_cast<int64_t>(in.number("threads-per-block"));
  const int64_t regs = static_cast<int64_t>(in.number("registers-per-thread"));
  auto shared_or = whole_bytes(in, "shared-bytes-per-block");
  if (!shared_or) return shared_or.errors();
  const int64_t shared = static_cast<int64_t>(*shared_or);

  Derivation d("occupancy", "Occupancy on compute capability " + cc);
  describe_inputs(d, in, occupancy_params());
  d.assume("compute capability " + cc + " (" + sm.chips + "): " + std::to_string(sm.max_warps) + " warps and " +
           std::to_string(sm.max_blocks) + " blocks per SM, 65,536 registers per SM and per block, " +
           std::to_string(sm.shared_per_sm / 1024) + " KB of shared memory per SM, " +
           std::to_string(sm.shared_per_block / 1024) +
           " KB per block (CUDA C++ Programming Guide, 'Technical Specifications per Compute Capability')");
  d.assume("registers are allocated per warp in units of 256, from 4 sub-partitions of 16,384 each; the driver reserves "
           "1 KB of shared memory per block and allocates in units of 128 bytes (the rules of cuda_occupancy.h, which "
           "cudaOccupancyMaxActiveBlocksPerMultiprocessor and Nsight Compute's occupancy calculator implement)");
  d.assume("the shared-memory carveout is the largest the chip offers (the driver picks it when a kernel needs it); "
           "no thread-block clusters, no block barriers beyond the default");
  if (shared > static_cast<int64_t>(kSharedDefaultLimit)) {
    d.assume("over 48 KB per block: the kernel opts in with cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)");
  }

  const int64_t warps_per_block =
      static_cast<int64_t>(d.step("Warps per block", "ceil(threads ÷ 32)", "ceil(" + num(threads) + " ÷ 32)",
                                  static_cast<double>((threads + kWarpSize - 1) / kWarpSize), Unit::kCount));
  const int64_t by_warps = static_cast<int64_t>(
      d.step("Blocks by warp slots", "min(floor(max warps ÷ warps per block), max blocks)",
             "min(floor(" + num(sm.max_warps) + " ÷ " + num(warps_per_block) + "), " + num(sm.max_blocks) + ")",
             static_cast<double>(std::min<int64_t>(sm.max_warps / warps_per_block, sm.max_blocks)), Unit::kCount));

  const int64_t regs_per_warp = static_cast<int64_t>(
      d.step("Registers per warp", "ceil(registers × 32 ÷ 256) × 256", "ceil(" + num(regs) + " × 32 ÷ 256) × 256",
             static_cast<double>(round_up(regs * kWarpSize, kRegisterGranularity)), Unit::kCount));
  d.step("Registers per block", "registers per warp × warps per block", num(regs_per_warp) + " × " + num(warps_per_block),
         static_cast<double>(regs_per_warp * warps_per_block), Unit::kCount);
  // The launch check rounds the warps up to the 4 sub-partitions (cuda_occupancy.h,
  // "regsAssumedPerCTA"): 1,024 threads at 65 registers fails although 64 fits.
  const bool regs_fit = regs_per_warp * round_up(warps_per_block, kSubPartitions) <= kRegistersPerBlock;
  int64_t by_regs = 0;
  if (regs_fit) {
    const int64_t warps_by_regs = static_cast<int64_t>(
        d.step("Warps by registers", "floor(16,384 ÷ registers per warp) × 4 sub-partitions",
               "floor(16,384 ÷ " + num(regs_per_warp) + ") × 4",
               static_cast<double>(kRegistersPerSm / kSubPartitions / regs_per_warp * kSubPartitions), Unit::kCount));
    by_regs = static_cast<int64_t>(d.step("Blocks by registers", "floor(warps by registers ÷ warps per block)",
                                          "floor(" + num(warps_by_regs) + " ÷ " + num(warps_per_block) + ")",
                                          static_cast<double>(warps_by_regs / warps_per_block), Unit::kCount));
  } else {
    d.step("Blocks by registers", "0: registers per warp × warps rounded up to 4 exceeds 65,536 per block",
           num(regs_per_warp) + " × " + num(round_up(warps_per_block, kSubPartitions)) + " = " +
               num(regs_per_warp * round_up(warps_per_block, kSubPartitions)) + " > 65,536",
           0, Unit::kCount);
  }

  const int64_t shared_alloc = static_cast<int64_t>(
      d.step("Shared memory per block", "ceil((shared + 1 KB reserved) ÷ 128 B) × 128 B",
             "ceil((" + num(shared) + " + 1,024) ÷ 128) × 128",
             static_cast<double>(round_up(shared + static_cast<int64_t>(kSharedReserved), kSharedGranularity)), Unit::kBytes));
  const bool shared_fits = shared <= static_cast<int64_t>(sm.shared_per_block);
  int64_t by_shared = 0;
  if (shared_fits) {
    by_shared = static_cast<int64_t>(
        d.step("Blocks by shared memory", "floor(shared memory per SM ÷ shared memory per block)",
               "floor(" + num(static_cast<double>(sm.shared_per_sm)) + " ÷ " + num(shared_alloc) + ")",
               static_cast<double>(static_cast<int64_t>(sm.shared_per_sm) / shared_alloc), Unit::kCount));
  } else {
    d.step("Blocks by shared memory", "0: more than the per-block maximum",
           num(shared) + " B > " + num(static_cast<double>(sm.shared_per_block)) + " B", 0, Unit::kCount);
  }

  const int64_t blocks = static_cast<int64_t>(
      d.step("Blocks per SM", "min(by warp slots, by registers, by shared memory)",
             "min(" + num(by_warps) + ", " + num(by_regs) + ", " + num(by_shared) + ")",
             static_cast<double>(std::min({by_warps, by_regs, by_shared})), Unit::kCount));
  const double warps = d.step("Warps per SM", "blocks × warps per block", num(blocks) + " × " + num(warps_per_block),
                              static_cast<double>(blocks * warps_per_block), Unit::kCount);
  const double occ = d.step("Occupancy", "warps ÷ max warps", num(warps) + " ÷ " + num(sm.max_warps), warps / sm.max_warps,
                            Unit::kRatio);

  // Ties name the first limit in this order: warp and block slots, registers, shared memory.
  const int limiting = blocks == by_warps ? 0 : blocks == by_regs ? 1 : 2;
  static const char* kLimitNames[] = {"threads and block slots", "registers", "shared memory"};
  d.result("blocks_per_sm", static_cast<double>(blocks), Unit::kCount);
  d.result("warps_per_sm", warps, Unit::kCount);
  d.result("occupancy", occ, Unit::kRatio);
  d.result("limiting", limiting, Unit::kNone);

  if (!regs_fit) {
    d.set_conclusion("The block cannot launch: " + num(threads) + " threads at " + num(regs) +
                     " registers need more than the 65,536 registers a block may hold ('too many resources requested "
                     "for launch'); limited by registers.");
  } else if (!shared_fits) {
    d.set_conclusion("The block cannot launch: " + num(shared) + " bytes of shared memory exceed the " +
                     num(static_cast<double>(sm.shared_per_block)) + " bytes a block may have on compute capability " + cc +
                     "; limited by shared memory.");
  } else {
    std::string also;
    for (int i = limiting + 1; i < 3; ++i) {
      const int64_t other = i == 1 ? by_regs : by_shared;
      if (other == blocks) also += std::string(also.empty() ? " (" : ", ") + kLimitNames[i] + " also allow only " + num(blocks);
    }
    if (!also.empty()) also += ")";
    d.set_conclusion(num(blocks) + (blocks == 1 ? " block" : " blocks") + " of " + num(threads) + " threads per SM: " +
                     num(warps) + " of " + num(sm.max_warps) + " warps, " + format_significant(occ * 100, 3) +
                     "% occupancy; limited by " + kLimitNames[limiting] + also + ".");
  }
  return d;
}

}  // namespace

void register_gpu_calculators(Registry& r) {
  r.add({"coalescing", "Sectors, lines and bytes one warp's global-memory access moves, and the efficiency",
         coalescing_params(), {"sectors", "lines", "bytes_requested", "bytes_moved", "efficiency"},
         "--stride 2 --element-bytes 4", coalescing});
  r.add({"bank-conflicts", "Shared-memory bank conflicts of a warp walking a tile by row or column", bank_params(),
         {"conflict_degree", "wavefronts", "ideal_wavefronts"}, "--tile-width 32 --walk column", bank_conflicts});
  r.add({"occupancy", "Blocks and warps per SM from threads, registers and shared memory (CUDA occupancy rules)",
         occupancy_params(), {"blocks_per_sm", "warps_per_sm", "occupancy", "limiting"},
         "--cc 9.0 --threads-per-block 256 --registers-per-thread 64 --shared-bytes-per-block 16KiB", occupancy});
}

}  // namespace ridge::calc
