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
  double power_watts = 0;          // 0 when the vendor publishes none
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
