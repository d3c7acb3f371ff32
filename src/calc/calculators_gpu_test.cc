// The GPU analysers: coalescing, bank-conflicts, occupancy. Every expectation is derived by
// hand in the comment above it. Sectors are 32 bytes, lines 128; shared memory has 32 banks
// of 4 bytes; occupancy follows cuda_occupancy.h (CUDA 13.0) and the CUDA C++ Programming
// Guide's per-capability table (9.0: 64 warps, 32 blocks, 228 KB per SM; 8.0: 164 KB;
// 8.6/8.9: 48 warps, 16/24 blocks, 100 KB), 1 KB reserved per block, 128-byte granules.
#include <gtest/gtest.h>

#include <string>

#include "calc/test_catalog.h"

namespace ridge::calc {
namespace {

using testing::errors_of;
using testing::result;
using testing::run;

// The value of the step labelled `label`; fails the test when there is none.
double step(const Derivation& d, std::string_view label) {
  for (const auto& s : d.steps()) {
    if (s.label == label) return s.value;
  }
  ADD_FAILURE() << "no step '" << label << "' in " << d.calculator();
  return -1;
}

bool mentions(const std::string& text, std::string_view fragment) { return text.find(fragment) != std::string::npos; }

// ---------------------------------------------------------------- coalescing

TEST(GpuCoalescing, ContiguousFloatsAreOneLine) {
  // 32 lanes × 4 B from byte 0: bytes 0..127, sectors 0..3 (4), line 0 (1); 128 requested,
  // 4 × 32 = 128 moved, 100%.
  Derivation d = run("coalescing", {});
  EXPECT_EQ(result(d, "sectors"), 4);
  EXPECT_EQ(result(d, "lines"), 1);
  EXPECT_EQ(result(d, "bytes_requested"), 128);
  EXPECT_EQ(result(d, "bytes_moved"), 128);
  EXPECT_DOUBLE_EQ(result(d, "efficiency"), 1.0);
  EXPECT_EQ(step(d, "Active lanes"), 32);
  EXPECT_TRUE(mentions(d.conclusion(), "Coalesced")) << d.conclusion();
}

TEST(GpuCoalescing, StrideTwoHalvesTheEfficiency) {
  // Lane i at 8i: bytes 0..251, sectors 0..7 (8), lines 0..1 (2); 128 requested of 256 moved.
  Derivation d = run("coalescing", {{"stride", "2"}});
  EXPECT_EQ(result(d, "sectors"), 8);
  EXPECT_EQ(result(d, "lines"), 2);
  EXPECT_EQ(result(d, "bytes_moved"), 256);
  EXPECT_DOUBLE_EQ(result(d, "efficiency"), 0.5);
  EXPECT_EQ(step(d, "Span"), 252);
}

TEST(GpuCoalescing, StrideThirtyTwoTouchesASectorPerLane) {
  // Lane i at 128i: every lane its own sector and line: 32 sectors, 32 lines,
  // 1,024 B moved for 128 requested = 12.5%.
  Derivation d = run("coalescing", {{"stride", "32"}});
  EXPECT_EQ(result(d, "sectors"), 32);
  EXPECT_EQ(result(d, "lines"), 32);
  EXPECT_EQ(result(d, "bytes_moved"), 1024);
  EXPECT_DOUBLE_EQ(result(d, "efficiency"), 0.125);
  EXPECT_TRUE(mentions(d.conclusion(), "8× the traffic")) << d.conclusion();
}

TEST(GpuCoalescing, MisalignedBaseAddsASector) {
  // Bytes 4..131: sectors 0..4 (5), lines 0..1 (2); 128 of 160 moved = 80%.
  Derivation d = run("coalescing", {{"base", "4"}});
  EXPECT_EQ(result(d, "sectors"), 5);
  EXPECT_EQ(result(d, "lines"), 2);
  EXPECT_EQ(result(d, "bytes_moved"), 160);
  EXPECT_DOUBLE_EQ(result(d, "efficiency"), 0.8);
}

TEST(GpuCoalescing, InactiveLanes) {
  // Lower half (lanes 0..15): bytes 0..63, 2 sectors, 1 line, 64 of 64: still 100%.
  Derivation lower = run("coalescing", {{"active-mask", "0x0000ffff"}});
  EXPECT_EQ(result(lower, "sectors"), 2);
  EXPECT_EQ(result(lower, "lines"), 1);
  EXPECT_EQ(result(lower, "bytes_requested"), 64);
  EXPECT_DOUBLE_EQ(result(lower, "efficiency"), 1.0);
  EXPECT_EQ(step(lower, "Active lanes"), 16);
  // Even lanes (0, 2, ..., 30) at 0, 8, ..., 120: bytes 0..123, 4 sectors; 64 of 128 = 50%.
  Derivation even = run("coalescing", {{"active-mask", "0x55555555"}});
  EXPECT_EQ(result(even, "sectors"), 4);
  EXPECT_EQ(result(even, "bytes_requested"), 64);
  EXPECT_DOUBLE_EQ(result(even, "efficiency"), 0.5);
  // Lane 31 alone at byte 124: one sector, 4 of 32 = 12.5%.
  Derivation last = run("coalescing", {{"active-mask", "0x80000000"}});
  EXPECT_EQ(result(last, "sectors"), 1);
  EXPECT_DOUBLE_EQ(result(last, "efficiency"), 0.125);
}

TEST(GpuCoalescing, WideElements) {
  // 8-byte elements: 256 contiguous bytes, 8 sectors, 2 lines, 100%.
  Derivation d8 = run("coalescing", {{"element-bytes", "8"}});
  EXPECT_EQ(result(d8, "sectors"), 8);
  EXPECT_EQ(result(d8, "lines"), 2);
  EXPECT_DOUBLE_EQ(result(d8, "efficiency"), 1.0);
  // 16-byte elements (float4): 512 bytes, 16 sectors, 4 lines, 100%.
  Derivation d16 = run("coalescing", {{"element-bytes", "16"}});
  EXPECT_EQ(result(d16, "sectors"), 16);
  EXPECT_EQ(result(d16, "lines"), 4);
  EXPECT_EQ(result(d16, "bytes_moved"), 512);
  // float4 with stride 2: lane i at 32i, each lane a whole sector of its own, half unused:
  // 32 sectors, 512 of 1,024 = 50%.
  Derivation s2 = run("coalescing", {{"element-bytes", "16"}, {"stride", "2"}});
  EXPECT_EQ(result(s2, "sectors"), 32);
  EXPECT_DOUBLE_EQ(result(s2, "efficiency"), 0.5);
  // 2-byte elements, contiguous: 64 bytes, 2 sectors.
  Derivation h = run("coalescing", {{"element-bytes", "2"}});
  EXPECT_EQ(result(h, "sectors"), 2);
}

TEST(GpuCoalescing, BroadcastCountsTheElementOnce) {
  // Stride 0: all 32 lanes read bytes 0..3: 1 sector; 4 distinct bytes requested of 32 moved.
  Derivation d = run("coalescing", {{"stride", "0"}});
  EXPECT_EQ(result(d, "sectors"), 1);
  EXPECT_EQ(result(d, "bytes_requested"), 4);
  EXPECT_DOUBLE_EQ(result(d, "efficiency"), 0.125);
}

TEST(GpuCoalescing, ErrorsNameTheParameterTheValueAndWhatIsAccepted) {
  Errors misaligned = errors_of("coalescing", {{"base", "6"}});
  ASSERT_EQ(misaligned.size(), 1u);
  EXPECT_EQ(misaligned[0].field, "base");
  EXPECT_EQ(misaligned[0].value, "6");
  EXPECT_EQ(misaligned[0].accepted, "a multiple of 4 bytes");
  // 4 is aligned for floats but not for doubles.
  Errors wide = errors_of("coalescing", {{"base", "4"}, {"element-bytes", "8"}});
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_EQ(wide[0].accepted, "a multiple of 8 bytes");
  Errors fraction = errors_of("coalescing", {{"base", "4.5"}});
  ASSERT_EQ(fraction.size(), 1u);
  EXPECT_EQ(fraction[0].field, "base");
  Errors size = errors_of("coalescing", {{"element-bytes", "3"}});
  ASSERT_EQ(size.size(), 1u);
  EXPECT_EQ(size[0].field, "element-bytes");
  EXPECT_EQ(size[0].value, "3");
  EXPECT_EQ(size[0].accepted, "1, 2, 4, 8, 16");
  Errors mask = errors_of("coalescing", {{"active-mask", "0x1234"}});
  ASSERT_EQ(mask.size(), 1u);
  EXPECT_EQ(mask[0].field, "active-mask");
  EXPECT_TRUE(mentions(mask[0].accepted, "0xffffffff")) << mask[0].accepted;
  Errors stride = errors_of("coalescing", {{"stride", "-1"}});
  ASSERT_EQ(stride.size(), 1u);
  EXPECT_EQ(stride[0].field, "stride");
}

// ---------------------------------------------------------------- bank conflicts

TEST(GpuBankConflicts, RowWalkIsConflictFree) {
  // Lane i reads word i: banks 0..31 once each.
  Derivation d = run("bank-conflicts", {});
  EXPECT_EQ(result(d, "conflict_degree"), 1);
  EXPECT_EQ(result(d, "wavefronts"), 1);
  EXPECT_EQ(step(d, "Banks used"), 32);
  EXPECT_TRUE(mentions(d.conclusion(), "No bank conflict")) << d.conclusion();
}

TEST(GpuBankConflicts, ColumnOfAFloatTileIsThirtyTwoWay) {
  // Pitch 32 floats = 128 B: lane i at word 32i, bank (32i mod 32) = 0 for every lane.
  Derivation d = run("bank-conflicts", {{"tile-width", "32"}, {"walk", "column"}});
  EXPECT_EQ(result(d, "conflict_degree"), 32);
  EXPECT_EQ(result(d, "wavefronts"), 32);
  EXPECT_EQ(step(d, "Banks used"), 1);
  EXPECT_EQ(step(d, "Lane stride"), 128);
  EXPECT_TRUE(mentions(d.conclusion(), "32-way")) << d.conclusion();
}

TEST(GpuBankConflicts, PaddingOneSpreadsTheColumn) {
  // Pitch 33 words: lane i at word 33i, bank (33i mod 32) = i: all 32 banks.
  Derivation d = run("bank-conflicts", {{"tile-width", "32"}, {"walk", "column"}, {"padding", "1"}});
  EXPECT_EQ(result(d, "conflict_degree"), 1);
  EXPECT_EQ(step(d, "Row pitch"), 132);
  // An odd width needs no padding: 33i mod 32 again.
  Derivation odd = run("bank-conflicts", {{"tile-width", "33"}, {"walk", "column"}});
  EXPECT_EQ(result(odd, "conflict_degree"), 1);
  // Width 48 (pitch 48 words): 48i mod 32 is 0 or 16: 16 lanes on each of two banks.
  Derivation w48 = run("bank-conflicts", {{"tile-width", "48"}, {"walk", "column"}});
  EXPECT_EQ(result(w48, "conflict_degree"), 16);
}

TEST(GpuBankConflicts, SixtyFourBitElements) {
  // Row walk of doubles: lane i covers words 2i, 2i+1: 64 words, 2 per bank; 256 B need
  // 2 wavefronts of 128 B anyway, so this is the ideal, not a conflict.
  Derivation row = run("bank-conflicts", {{"element-bytes", "8"}});
  EXPECT_EQ(result(row, "conflict_degree"), 2);
  EXPECT_EQ(result(row, "ideal_wavefronts"), 2);
  EXPECT_TRUE(mentions(row.conclusion(), "No bank conflict")) << row.conclusion();
  // Column of a 32-wide double tile: pitch 256 B = 64 words, lane i at words 64i and 64i+1:
  // banks 0 and 1, 32 distinct words each.
  Derivation col = run("bank-conflicts", {{"element-bytes", "8"}, {"walk", "column"}});
  EXPECT_EQ(result(col, "conflict_degree"), 32);
  EXPECT_EQ(step(col, "Banks used"), 2);
  // Padding one double: pitch 66 words, lane i at banks 2i mod 32 and 2i+1 mod 32: lanes i
  // and i+16 share, 2 words per bank, the ideal for 256 B.
  Derivation pad = run("bank-conflicts", {{"element-bytes", "8"}, {"walk", "column"}, {"padding", "1"}});
  EXPECT_EQ(result(pad, "conflict_degree"), 2);
  EXPECT_EQ(result(pad, "ideal_wavefronts"), 2);
  // float4 rows: 512 B, 4 words per bank, 4 wavefronts, ideal.
  Derivation f4 = run("bank-conflicts", {{"element-bytes", "16"}});
  EXPECT_EQ(result(f4, "conflict_degree"), 4);
  EXPECT_EQ(result(f4, "ideal_wavefronts"), 4);
}

TEST(GpuBankConflicts, SameWordIsABroadcastNotAConflict) {
  // Halves in a row: lanes 2k and 2k+1 share word k; 16 words in 16 banks: degree 1.
  Derivation half = run("bank-conflicts", {{"element-bytes", "2"}});
  EXPECT_EQ(result(half, "conflict_degree"), 1);
  EXPECT_EQ(step(half, "Banks used"), 16);
  // Bytes down a 32-wide column: pitch 32 B = 8 words, lane i at word 8i, bank 8i mod 32 in
  // {0, 8, 16, 24}: 8 distinct words each.
  Derivation bytes = run("bank-conflicts", {{"element-bytes", "1"}, {"walk", "column"}});
  EXPECT_EQ(result(bytes, "conflict_degree"), 8);
}

TEST(GpuBankConflicts, NarrowTileRowWalkWrapsToTheNextRow) {
  // Width 16: lanes 0-15 read words 0..15, lanes 16-31 row 1 at words 16..31: no conflict.
  Derivation d = run("bank-conflicts", {{"tile-width", "16"}});
  EXPECT_EQ(result(d, "conflict_degree"), 1);
  // Padding 1 (pitch 17): lanes 16-31 at words 17..32; word 32 lands in bank 0 with word 0.
  Derivation padded = run("bank-conflicts", {{"tile-width", "16"}, {"padding", "1"}});
  EXPECT_EQ(result(padded, "conflict_degree"), 2);
}

TEST(GpuBankConflicts, ErrorsNameTheParameter) {
  Errors walk = errors_of("bank-conflicts", {{"walk", "diagonal"}});
  ASSERT_EQ(walk.size(), 1u);
  EXPECT_EQ(walk[0].field, "walk");
  EXPECT_EQ(walk[0].value, "diagonal");
  EXPECT_EQ(walk[0].accepted, "row, column");
  Errors width = errors_of("bank-conflicts", {{"tile-width", "0"}});
  ASSERT_EQ(width.size(), 1u);
  EXPECT_EQ(width[0].field, "tile-width");
  Errors padding = errors_of("bank-conflicts", {{"padding", "1.5"}});
  ASSERT_EQ(padding.size(), 1u);
  EXPECT_EQ(padding[0].field, "padding");
}

// ---------------------------------------------------------------- occupancy

Derivation occ(const std::string& cc, const std::string& threads, const std::string& regs, const std::string& shared = "0") {
  return run("occupancy", {{"cc", cc}, {"threads-per-block", threads}, {"registers-per-thread", regs},
                           {"shared-bytes-per-block", shared}});
}

TEST(GpuOccupancy, BestPracticesGuideRegisterExample) {
  // CUDA C++ Best Practices Guide, "Calculating Occupancy": on compute capability 7.0, 128-
  // thread blocks at 37 registers reach 75% with 12 blocks; 320-thread blocks at 37 registers
  // fit only four blocks (63%). (Cited from the guide as remembered: the search tool did not
  // return that page's text, so the figures are re-derived by hand here.) 8.0 has the same
  // register file, warp slots and granularity as 7.0.
  // By hand: 37 × 32 = 1,184 → 1,280 per warp; floor(16,384 ÷ 1,280) = 12 per sub-partition,
  // × 4 = 48 warps; 48 ÷ 4 = 12 blocks, 48 of 64 warps = 75%.
  Derivation a = occ("8.0", "128", "37");
  EXPECT_EQ(step(a, "Registers per warp"), 1280);
  EXPECT_EQ(result(a, "blocks_per_sm"), 12);
  EXPECT_EQ(result(a, "warps_per_sm"), 48);
  EXPECT_DOUBLE_EQ(result(a, "occupancy"), 0.75);
  EXPECT_EQ(result(a, "limiting"), 1);
  EXPECT_TRUE(mentions(a.conclusion(), "limited by registers")) << a.conclusion();
  // 320 threads = 10 warps: floor(48 ÷ 10) = 4 blocks, 40 warps, 62.5%.
  Derivation b = occ("8.0", "320", "37");
  EXPECT_EQ(result(b, "blocks_per_sm"), 4);
  EXPECT_EQ(result(b, "warps_per_sm"), 40);
  EXPECT_DOUBLE_EQ(result(b, "occupancy"), 0.625);
  EXPECT_EQ(result(b, "limiting"), 1);
}

TEST(GpuOccupancy, RegisterGranularityWorkedOnStackOverflow) {
  // talonmies on Stack Overflow ("Registers/thread says 50 but they are actually 56"): 50
  // registers × 32 = 1,600 → 7 pages of 256 = 1,792 per warp; 4 warps = 7,168 per block.
  // On 9.0: floor(16,384 ÷ 1,792) = 9 per sub-partition, 36 warps, 9 blocks, 56.25%.
  Derivation d = occ("9.0", "128", "50");
  EXPECT_EQ(step(d, "Registers per warp"), 1792);
  EXPECT_EQ(step(d, "Registers per block"), 7168);
  EXPECT_EQ(result(d, "blocks_per_sm"), 9);
  EXPECT_EQ(result(d, "warps_per_sm"), 36);
  EXPECT_DOUBLE_EQ(result(d, "occupancy"), 0.5625);
}

TEST(GpuOccupancy, SharedMemoryExampleWithTheReservedKilobyte) {
  // Modal's GPU Glossary ("occupancy") works an H100 kernel of 32 threads, 8 registers and
  // 12 KB of shared memory as limited by shared memory at 228 ÷ 12 = 19 blocks. The driver
  // adds 1 KB per block (cuda_occupancy.h adds reservedSharedMemPerBlock), so it is
  // 12,288 + 1,024 = 13,312 B per block and floor(233,472 ÷ 13,312) = 17 blocks:
  // 17 warps of 64 = 26.5625%, still limited by shared memory.
  Derivation d = occ("9.0", "32", "8", "12KiB");
  EXPECT_EQ(step(d, "Shared memory per block"), 13312);
  EXPECT_EQ(result(d, "blocks_per_sm"), 17);
  EXPECT_EQ(result(d, "warps_per_sm"), 17);
  EXPECT_DOUBLE_EQ(result(d, "occupancy"), 17.0 / 64);
  EXPECT_EQ(result(d, "limiting"), 2);
  EXPECT_TRUE(mentions(d.conclusion(), "limited by shared memory")) << d.conclusion();
}

TEST(GpuOccupancy, RegistersAreSplitAcrossFourSubPartitions) {
  // 64 threads (2 warps) at 37 registers on 9.0: 1,280 per warp. Across the whole file
  // 65,536 ÷ (1,280 × 2) = 25.6 would give 25 blocks; per sub-partition floor(16,384 ÷ 1,280)
  // = 12 warps, 48 per SM, 24 blocks (cuda_occupancy.h, cudaOccMaxBlocksPerSMRegsLimit).
  Derivation d = occ("9.0", "64", "37");
  EXPECT_EQ(step(d, "Warps by registers"), 48);
  EXPECT_EQ(result(d, "blocks_per_sm"), 24);
  EXPECT_DOUBLE_EQ(result(d, "occupancy"), 0.75);
  EXPECT_EQ(result(d, "limiting"), 1);
}

TEST(GpuOccupancy, WarpSlotsLimitBigBlocksOnAda) {
  // 8.6: 1,024 threads = 32 warps; floor(48 ÷ 32) = 1 block; registers would allow 2
  // (1,024 per warp, 64 warps); 32 of 48 warps = 66.7%, limited by threads.
  Derivation d = occ("8.6", "1024", "32");
  EXPECT_EQ(result(d, "blocks_per_sm"), 1);
  EXPECT_EQ(result(d, "warps_per_sm"), 32);
  EXPECT_DOUBLE_EQ(result(d, "occupancy"), 32.0 / 48);
  EXPECT_EQ(result(d, "limiting"), 0);
}

TEST(GpuOccupancy, BlockSlotsLimitTinyBlocks) {
  // 8.9: 32-thread blocks, 16 registers, no shared memory: warps allow 48, the block limit
  // 24: 24 warps of 48 = 50%. 9.0 allows 32 blocks: 32 of 64 = 50%.
  Derivation ada = occ("8.9", "32", "16");
  EXPECT_EQ(result(ada, "blocks_per_sm"), 24);
  EXPECT_DOUBLE_EQ(result(ada, "occupancy"), 0.5);
  EXPECT_EQ(result(ada, "limiting"), 0);
  Derivation hopper = occ("9.0", "32", "16");
  EXPECT_EQ(result(hopper, "blocks_per_sm"), 32);
  Derivation ampere_ga10x = occ("8.6", "32", "16");
  EXPECT_EQ(result(ampere_ga10x, "blocks_per_sm"), 16);
}

TEST(GpuOccupancy, FullOccupancyAndATieBetweenLimits) {
  // 9.0, 256 threads at 32 registers: 8 blocks by warp slots; 1,024 per warp, 64 warps by
  // registers, also 8 blocks. 64 of 64 warps. The tie names threads first and says registers.
  Derivation d = occ("9.0", "256", "32");
  EXPECT_EQ(result(d, "blocks_per_sm"), 8);
  EXPECT_DOUBLE_EQ(result(d, "occupancy"), 1.0);
  EXPECT_EQ(result(d, "limiting"), 0);
  EXPECT_TRUE(mentions(d.conclusion(), "registers also allow only 8")) << d.conclusion();
  // 10.0 has the same limits as 9.0.
  EXPECT_EQ(result(occ("10.0", "256", "32"), "blocks_per_sm"), 8);
}

TEST(GpuOccupancy, TooManyRegistersCannotLaunch) {
  // 1,024 threads at 65 registers: 2,080 → 2,304 per warp × 32 warps = 73,728 > 65,536: no
  // block fits (the launch fails). At 64 registers: 2,048 × 32 = 65,536 fits; 8 warps per
  // sub-partition, 32 warps, 1 block, 50%, limited by registers.
  Derivation bad = occ("9.0", "1024", "65");
  EXPECT_EQ(result(bad, "blocks_per_sm"), 0);
  EXPECT_EQ(result(bad, "occupancy"), 0);
  EXPECT_EQ(result(bad, "limiting"), 1);
  EXPECT_TRUE(mentions(bad.conclusion(), "cannot launch")) << bad.conclusion();
  Derivation ok = occ("9.0", "1024", "64");
  EXPECT_EQ(result(ok, "blocks_per_sm"), 1);
  EXPECT_DOUBLE_EQ(result(ok, "occupancy"), 0.5);
  EXPECT_EQ(result(ok, "limiting"), 1);
  // 800 threads (25 warps) at 80 registers: 2,560 × 25 = 64,000 fits the block naively, but
  // the launch check rounds to 28 warps: 71,680 > 65,536, and the block cannot launch at all.
  Derivation rounded = occ("9.0", "800", "80");
  EXPECT_EQ(result(rounded, "blocks_per_sm"), 0);
  EXPECT_TRUE(mentions(rounded.conclusion(), "cannot launch")) << rounded.conclusion();
}

TEST(GpuOccupancy, SharedMemoryPerBlockLimits) {
  // 8.6 allows 99 KB per block: 101,376 B fits (+1 KB = 102,400 = all 100 KB: 1 block);
  // 100 KiB = 102,400 B does not (0 blocks, limited by shared memory).
  Derivation fits = occ("8.6", "128", "32", "99KiB");
  EXPECT_EQ(result(fits, "blocks_per_sm"), 1);
  EXPECT_EQ(result(fits, "limiting"), 2);
  Derivation over = occ("8.6", "128", "32", "100KiB");
  EXPECT_EQ(result(over, "blocks_per_sm"), 0);
  EXPECT_EQ(result(over, "limiting"), 2);
  EXPECT_TRUE(mentions(over.conclusion(), "cannot launch")) << over.conclusion();
  // The same 100 KiB on 9.0: 103,424 B per block, floor(233,472 ÷ 103,424) = 2 blocks.
  EXPECT_EQ(result(occ("9.0", "128", "32", "100KiB"), "blocks_per_sm"), 2);
  // 8.0: 164 KB per SM, 48 KiB blocks: 49,152 + 1,024 = 50,176; floor(167,936 ÷ 50,176) = 3.
  EXPECT_EQ(result(occ("8.0", "128", "32", "48KiB"), "blocks_per_sm"), 3);
  // 227 KiB on 9.0 is the largest block: 232,448 + 1,024 = 233,472, exactly one.
  EXPECT_EQ(result(occ("9.0", "128", "32", "227KiB"), "blocks_per_sm"), 1);
}

TEST(GpuOccupancy, SharedMemoryIsAllocatedIn128ByteUnits) {
  // 1 byte: 1 + 1,024 = 1,025 → 1,152.
  EXPECT_EQ(step(occ("9.0", "128", "32", "1"), "Shared memory per block"), 1152);
  // None at all still costs the reserved kilobyte.
  EXPECT_EQ(step(occ("9.0", "128", "32", "0"), "Shared memory per block"), 1024);
}

TEST(GpuOccupancy, ErrorsNameTheParameter) {
  Errors cc = errors_of("occupancy", {{"cc", "7.5"}, {"threads-per-block", "128"}, {"registers-per-thread", "32"}});
  ASSERT_EQ(cc.size(), 1u);
  EXPECT_EQ(cc[0].field, "cc");
  EXPECT_EQ(cc[0].value, "7.5");
  EXPECT_EQ(cc[0].accepted, "8.0, 8.6, 8.9, 9.0, 10.0");
  Errors threads = errors_of("occupancy", {{"threads-per-block", "1025"}, {"registers-per-thread", "32"}});
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads[0].field, "threads-per-block");
  EXPECT_EQ(threads[0].value, "1025");
  EXPECT_TRUE(mentions(threads[0].accepted, "1,024")) << threads[0].accepted;
  Errors regs = errors_of("occupancy", {{"threads-per-block", "128"}, {"registers-per-thread", "256"}});
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(regs[0].field, "registers-per-thread");
  Errors shared = errors_of("occupancy", {{"threads-per-block", "128"}, {"registers-per-thread", "32"},
                                          {"shared-bytes-per-block", "228KiB"}});
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].field, "shared-bytes-per-block");
  Errors half = errors_of("occupancy", {{"threads-per-block", "128"}, {"registers-per-thread", "32"},
                                        {"shared-bytes-per-block", "100.5"}});
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(half[0].field, "shared-bytes-per-block");
  EXPECT_EQ(half[0].value, "100.5");
  Errors missing = errors_of("occupancy", {{"cc", "9.0"}});
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].field, "threads-per-block");
  EXPECT_EQ(missing[1].field, "registers-per-thread");
}

TEST(GpuAnalysers, AreRegisteredWithTheirContracts) {
  const Calculator* c = testing::registry().find("coalescing");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->result_keys, (std::vector<std::string>{"sectors", "lines", "bytes_requested", "bytes_moved", "efficiency"}));
  const Calculator* b = testing::registry().find("bank-conflicts");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->result_keys[0], "conflict_degree");
  EXPECT_EQ(b->result_keys[1], "wavefronts");
  const Calculator* o = testing::registry().find("occupancy");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->result_keys, (std::vector<std::string>{"blocks_per_sm", "warps_per_sm", "occupancy", "limiting"}));
  // Every parameter says what it is.
  for (const Calculator* calc : {c, b, o}) {
    for (const auto& p : calc->params) EXPECT_FALSE(p.help.empty()) << calc->name << " --" << p.name;
  }
}

TEST(GpuAnalysers, RenderWithoutSurprises) {
  // The text and JSON faces carry the worked steps.
  Derivation d = occ("8.0", "128", "37");
  const std::string text = render_text(d);
  EXPECT_TRUE(mentions(text, "ceil(37 × 32 ÷ 256) × 256")) << text;
  const std::string json = render_json(d);
  EXPECT_TRUE(mentions(json, "\"blocks_per_sm\": 12")) << json;
}

}  // namespace
}  // namespace ridge::calc
