// The accelerator catalog (data/hardware.toml): dense peaks per dtype, memory, bandwidth,
// scale-up interconnect and power, each entry with its source and date.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "calc/dtype.h"
#include "calc/result.h"

namespace ridge::calc {

// The vendor's integrated system built on the accelerator (DGX H100, GB200 NVL72, a
// partner's MI300X platform): its maximum input power and its scale-out network, each with
// its own source and date. `gpus == 0` means the catalog lists no system for the chip.
// A collective's bus bandwidth (busbw, as nccl-tests define it: algbw × 2(n−1)/n for an
// all-reduce, × (n−1)/n for an all-gather or all-to-all) measured at message sizes, with its
// source. `bytes` ascending; `busbw` B/s at each.
struct MeasuredCollective {
  std::string collective;  // all_reduce | all_gather | reduce_scatter | alltoall
  std::string algorithm;   // nvls | ring | ... as the source states
  double gpus = 0;         // ranks in the test
  double nodes = 1;        // systems the ranks span
  std::vector<double> bytes, busbw;
  std::string source, source_url, as_of;
};

struct SystemSpec {
  std::string name;          // "NVIDIA DGX H100"
  double gpus = 0;           // accelerators in one system (8; 72 for an NVL72 rack)
  double power_watts = 0;    // the vendor's maximum system input power, W
  double nics = 0;           // scale-out (compute fabric) NICs in one system
  double nic_bandwidth = 0;  // B/s per NIC, one direction (400 Gb/s = 50e9)
  std::string source;
  std::string source_url;
  std::string as_of;  // YYYY-MM-DD
  std::string notes;
  // The fabric (issue 31): the scale-up domain (GPUs sharing NVLink; 8 in an HGX board, 72 in
  // an NVL72 rack; default: the system's gpus), whether the scale-out NICs are rail-optimized
  // (GPU i of every node on the same leaf, so a group of one GPU per node stays on one rail),
  // and measured collectives. Empty `measured`: no published figure in the catalog.
  double scale_up_domain = 0;
  bool rail_optimized = true;
  std::vector<MeasuredCollective> measured;

  // Scale-out bandwidth per accelerator, one direction: nics × rate ÷ gpus.
  double scale_out_bandwidth() const { return gpus > 0 ? nics * nic_bandwidth / gpus : 0; }
  // System power per accelerator: power ÷ gpus.
  double power_per_gpu() const { return gpus > 0 ? power_watts / gpus : 0; }
};

struct Accelerator {
  std::string id;
  std::string name;
  std::string vendor;
  std::string generation;
  std::string memory_type;
  double memory_bytes = 0;         // as the vendor states it, decimal unless noted
  double memory_bandwidth = 0;     // B/s
  std::string scale_up;            // "NVLink 4"
  double scale_up_bandwidth = 0;   // B/s per accelerator as the vendor states it
  double host_link_bandwidth = 0;  // B/s to the host (PCIe), one direction; 0: not in the catalog
  double power_watts = 0;          // 0 when the vendor publishes none
  // Streaming multiprocessors (perf8s, issue 31): the SMs a GEMM's tiles run on in waves
  // (gemm_waves.h); 0: not in the catalog, and the GEMMs keep their FLOP count.
  double sm_count = 0;
  std::map<Dtype, double> peak_flops;  // dense FLOP/s; absent dtype = not supported
  std::string source;
  std::string source_url;
  std::string as_of;  // YYYY-MM-DD
  std::string notes;
  SystemSpec system;  // system.gpus == 0: none listed

  bool has_system() const { return system.gpus > 0; }
  // nullptr-free lookup: 0 when the chip lacks the dtype.
  double peak(Dtype d) const;
  bool supports(Dtype d) const { return peak_flops.count(d) > 0; }
  // "fp32, tf32, bf16, fp16, int8"
  std::string supported_dtypes() const;
};

// The fabric model (issue 31): where a collective's group runs and the bus bandwidth it gets.
//  - inside the scale-up domain (group ≤ domain): NVLink, one direction per GPU (half the
//    catalog's bidirectional figure); busbw from the system's measured figure for the same
//    collective at the message size (log-linear between measured sizes, clamped at the ends),
//    else the link × the stated efficiency;
//  - across domains: the group's GPUs in one domain use that many of its NICs (a ring that spans
//    nodes with all of each node's GPUs uses all the node's NICs; a group of one GPU per node
//    uses one NIC), so busbw = min(per node, nics) × NIC rate × efficiency, and never above the
//    NVLink figure.
// The latency term alpha is stated: the time of the smallest measured message, or the given
// default, added once per collective.
struct CollectiveEstimate {
  double busbw = 0;          // B/s
  double alpha = 0;          // s, added once
  double seconds = 0;        // alpha + factor × bytes ÷ busbw
  bool measured = false;     // busbw from a measured figure
  bool scale_out = false;    // the group leaves the scale-up domain
  std::string explanation;   // one line for the derivation
};
// `collective`: all_reduce, all_gather, reduce_scatter, alltoall; `group`: ranks; `per_domain`:
// ranks of the group inside one scale-up domain; `bytes`: the message (nccl-tests' size: the
// buffer each rank holds). `efficiency` applies where nothing is measured; `alpha` is the
// latency used where nothing is measured; `nic_bandwidth` (B/s per NIC, one per GPU) replaces the
// catalog's scale-out when non-zero (a chip without a system: one NIC per GPU at that rate).
CollectiveEstimate estimate_collective(const Accelerator& gpu, const std::string& collective, double group,
                                       double per_domain, double bytes, double efficiency, double alpha,
                                       double nic_bandwidth = 0);
// Ranks of a group of `group` consecutive ranks with stride `stride` (tp for a DP group...) that
// share one scale-up domain of `domain` GPUs.
double ranks_per_domain(double group, double stride, double domain);

class HardwareCatalog {
 public:
  // Parses the TOML text. Errors name the entry and the field ("h100-sxm.memory_bytes").
  // Strict: a key the loader does not know ("h100-sxm.memroy_bytes") is an error, so a
  // typo cannot silently drop a figure.
  static Result<HardwareCatalog> parse(std::string_view toml_text, std::string_view origin);

  const Accelerator* find(std::string_view id) const;
  const std::vector<Accelerator>& all() const { return chips_; }
  // "a100-80gb-sxm, h100-sxm, ..." for error messages.
  std::string id_list() const;

 private:
  std::vector<Accelerator> chips_;
};

}  // namespace ridge::calc
