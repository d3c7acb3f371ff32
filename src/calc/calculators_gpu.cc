// GPU memory-access analysers as calculators: coalescing, shared-memory bank conflicts and
// occupancy. (Filled in by the kernel-lab work; see lab/kernels/README.md.)
#include "calc/common.h"

namespace ridge::calc {

void register_gpu_calculators(Registry&) {}

}  // namespace ridge::calc
