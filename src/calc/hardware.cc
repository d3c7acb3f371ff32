#include "calc/hardware.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <toml++/toml.h>

namespace ridge::calc {

double Accelerator::peak(Dtype d) const {
  auto it = peak_flops.find(d);
  return it == peak_flops.end() ? 0.0 : it->second;
}

std::string Accelerator::supported_dtypes() const {
  std::string out;
  for (Dtype d : kAllDtypes) {
    if (!supports(d)) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(d);
  }
  return out;
}

namespace {

struct Reader {
  const toml::table& table;
  std::string prefix;
  Errors& errors;
  int line;

  std::string where(std::string_view field) const {
    return prefix + "." + std::string(field);
  }

  std::string text(std::string_view field, bool required = true) {
    auto node = table.get(field);
    if (node == nullptr) {
      if (required) errors.push_back({where(field), "", "is missing (line " + std::to_string(line) + ")", "a string"});
      return {};
    }
    if (auto s = node->value<std::string>()) return *s;
    if (auto d = node->as_date()) {
      std::ostringstream os;
      os << d->get();
      return os.str();
    }
    errors.push_back({where(field), "", "must be a string", "a quoted string"});
    return {};
  }

  double positive(const toml::node* node, std::string_view field) {
    auto v = node == nullptr ? std::nullopt : node->value<double>();
    if (!v || !std::isfinite(*v) || *v <= 0) {
      errors.push_back({where(field), node ? "" : "", node ? "must be a positive number" : "is missing",
                        "a positive number in base units (80e9 for 80 GB)"});
      return 0;
    }
    return *v;
  }

  double number(std::string_view field) { return positive(table.get(field), field); }

  // Every key of the table must be one of `known`: a misspelt key is an error, not a
  // silently missing figure.
  void only(std::initializer_list<std::string_view> known) {
    std::string accepted;
    for (std::string_view k : known) accepted += (accepted.empty() ? "" : ", ") + std::string(k);
    for (const auto& [key, node] : table) {
      std::string_view k = key.str();
      if (std::find(known.begin(), known.end(), k) == known.end()) {
        errors.push_back({where(k), "", "is not a known field (line " + std::to_string(node.source().begin.line) + ")",
                          accepted});
      }
    }
  }
};

void read_measured(const toml::table& t, const std::string& prefix, Errors& errors, MeasuredCollective& m) {
  Reader r{t, prefix, errors, static_cast<int>(t.source().begin.line)};
  r.only({"collective", "algorithm", "gpus", "nodes", "bytes", "busbw", "source", "source_url", "as_of"});
  m.collective = r.text("collective");
  if (m.collective != "all_reduce" && m.collective != "all_gather" && m.collective != "reduce_scatter" &&
      m.collective != "alltoall") {
    errors.push_back({r.where("collective"), m.collective, "is not a known collective",
                      "all_reduce, all_gather, reduce_scatter, alltoall"});
  }
  m.algorithm = r.text("algorithm");
  m.gpus = r.number("gpus");
  if (t.contains("nodes")) m.nodes = r.number("nodes");
  for (auto [key, out] : {std::pair<const char*, std::vector<double>*>{"bytes", &m.bytes},
                          std::pair<const char*, std::vector<double>*>{"busbw", &m.busbw}}) {
    const toml::array* a = t.get_as<toml::array>(key);
    if (a == nullptr) {
      errors.push_back({r.where(key), "", "is missing", "an array of positive numbers"});
      continue;
    }
    for (const auto& v : *a) out->push_back(r.positive(&v, key));
  }
  if (m.bytes.size() != m.busbw.size() || m.bytes.empty()) {
    errors.push_back({r.where("busbw"), "", "must have one figure per message size", "as many entries as bytes"});
  }
  for (size_t i = 1; i < m.bytes.size(); ++i) {
    if (m.bytes[i] <= m.bytes[i - 1]) {
      errors.push_back({r.where("bytes"), "", "must ascend", "message sizes in increasing order"});
      break;
    }
  }
  m.source = r.text("source");
  m.source_url = r.text("source_url", false);
  m.as_of = r.text("as_of");
}

void read_system(const toml::table& t, const std::string& prefix, Errors& errors, SystemSpec& s) {
  Reader r{t, prefix, errors, static_cast<int>(t.source().begin.line)};
  r.only({"name", "gpus", "power_watts", "nics", "nic_bandwidth", "source", "source_url", "as_of", "notes",
          "scale_up_domain", "rail_optimized", "measured"});
  if (t.contains("scale_up_domain")) s.scale_up_domain = r.number("scale_up_domain");
  if (const toml::node* rail = t.get("rail_optimized")) {
    if (auto b = rail->value<bool>()) {
      s.rail_optimized = *b;
    } else {
      errors.push_back({r.where("rail_optimized"), "", "must be true or false", "a boolean"});
    }
  }
  if (const toml::array* list = t.get_as<toml::array>("measured")) {
    int i = 0;
    for (const auto& node : *list) {
      const toml::table* mt = node.as_table();
      std::string where = prefix + ".measured[" + std::to_string(i++) + "]";
      if (mt == nullptr) {
        errors.push_back({where, "", "must be a table ([[<id>.system.measured]])", ""});
        continue;
      }
      MeasuredCollective m;
      read_measured(*mt, where, errors, m);
      s.measured.push_back(std::move(m));
    }
  }
  s.name = r.text("name");
  s.gpus = r.number("gpus");
  if (s.gpus != std::floor(s.gpus)) {
    errors.push_back({r.where("gpus"), "", "must be a whole number", "the accelerators in one system (8, 72)"});
  }
  s.power_watts = r.number("power_watts");
  s.nics = r.number("nics");
  s.nic_bandwidth = r.number("nic_bandwidth");
  s.source = r.text("source");
  s.source_url = r.text("source_url", false);
  s.as_of = r.text("as_of");
  s.notes = r.text("notes", false);
  if (s.scale_up_domain == 0) s.scale_up_domain = s.gpus;
}

// nccl-tests' bus bandwidth factors (doc/PERFORMANCE.md): the bytes each rank moves for a
// buffer of S bytes are factor × S.
double busbw_factor(const std::string& collective, double n) {
  if (n <= 1) return 0;
  if (collective == "all_reduce") return 2 * (n - 1) / n;
  return (n - 1) / n;  // all_gather, reduce_scatter, alltoall
}

// busbw at `bytes`, log-linear between the measured sizes, clamped at the ends.
double interpolate(const MeasuredCollective& m, double bytes) {
  if (bytes <= m.bytes.front()) return m.busbw.front() * bytes / m.bytes.front();  // latency-bound below
  if (bytes >= m.bytes.back()) return m.busbw.back();
  for (size_t i = 1; i < m.bytes.size(); ++i) {
    if (bytes <= m.bytes[i]) {
      const double f = std::log(bytes / m.bytes[i - 1]) / std::log(m.bytes[i] / m.bytes[i - 1]);
      return m.busbw[i - 1] + f * (m.busbw[i] - m.busbw[i - 1]);
    }
  }
  return m.busbw.back();
}

std::string gbps(double v) {
  std::ostringstream os;
  os.precision(4);
  os << v / 1e9 << " GB/s";
  return os.str();
}

}  // namespace

double ranks_per_domain(double group, double stride, double domain) {
  if (domain <= 0) return 1;
  if (stride >= domain) return 1;
  return std::max(1.0, std::min(group, std::floor(domain / stride)));
}

CollectiveEstimate estimate_collective(const Accelerator& gpu, const std::string& collective, double group,
                                       double per_domain, double bytes, double efficiency, double alpha,
                                       double nic_bandwidth) {
  CollectiveEstimate e;
  const SystemSpec& sys = gpu.system;
  const double domain = gpu.has_system() ? sys.scale_up_domain : 8;
  const double nvlink = gpu.scale_up_bandwidth / 2;  // the catalog states it bidirectional
  const double factor = busbw_factor(collective, group);
  if (group <= 1 || factor == 0) {
    e.explanation = "one rank: nothing to exchange";
    return e;
  }
  e.scale_out = group > per_domain;
  // A measured figure for the same collective inside the domain (the nearest rank count).
  const MeasuredCollective* best = nullptr;
  for (const auto& m : sys.measured) {
    if (m.collective != collective || m.nodes > 1) continue;
    if (best == nullptr || std::abs(std::log(m.gpus / per_domain)) < std::abs(std::log(best->gpus / per_domain))) {
      best = &m;
    }
  }
  if (!e.scale_out) {
    if (best != nullptr) {
      e.measured = true;
      e.busbw = interpolate(*best, bytes);
      e.alpha = best->bytes.front() * busbw_factor(collective, best->gpus) / best->busbw.front();
      e.explanation = "inside the scale-up domain (" + std::to_string(static_cast<int64_t>(group)) + " of " +
                      std::to_string(static_cast<int64_t>(domain)) + " GPUs): measured " + collective + " busbw " +
                      gbps(e.busbw) + " at this size (" + best->algorithm + ", " +
                      std::to_string(static_cast<int64_t>(best->gpus)) + " GPUs; " + best->source +
                      "); alpha = the smallest measured message's time";
      // The interpolated busbw already carries the latency at small sizes: alpha is a floor.
      e.seconds = std::max(e.alpha, factor * bytes / e.busbw);
      return e;
    }
    e.busbw = nvlink * efficiency;
    e.alpha = alpha;
    e.explanation = "inside the scale-up domain: NVLink " + gbps(nvlink) + " per direction × " +
                    std::to_string(efficiency).substr(0, 4) + " (no measured figure in the catalog)";
  } else {
    const bool catalog = gpu.has_system() && nic_bandwidth == 0;
    const double nics_per_domain = catalog ? sys.nics * domain / sys.gpus : domain;
    const double nic = catalog ? sys.nic_bandwidth : (nic_bandwidth > 0 ? nic_bandwidth : 50e9);
    const double used = std::min(per_domain, nics_per_domain);
    e.busbw = std::min(used * nic, nvlink) * efficiency;
    if (collective == "alltoall") {
      // Each rank sends (n − 1)/n of its buffer: (k − 1)/n to the k − 1 ranks of its domain over
      // NVLink, (n − k)/n off the domain through the domain's share of NICs (used ÷ k per rank).
      // The slower of the two sets the time; busbw is what that time makes of (n − 1)/n.
      const double k = per_domain, n = group;
      const double intra = (k - 1) / n / (nvlink * efficiency);
      const double inter = (n - k) / n / (used * nic / k * efficiency);
      e.busbw = (n - 1) / n / std::max(intra, inter);
    }
    e.alpha = alpha;
    e.explanation = "across scale-up domains: " + std::to_string(static_cast<int64_t>(per_domain)) +
                    " rank(s) per domain use " + std::to_string(static_cast<int64_t>(used)) + " of its " +
                    std::to_string(static_cast<int64_t>(nics_per_domain)) + " NICs × " + gbps(nic) + " × " +
                    std::to_string(efficiency).substr(0, 4) + " (no measured multi-node figure in the catalog" +
                    (sys.rail_optimized ? "; rail-optimized" : "") + ")";
  }
  e.seconds = e.alpha + factor * bytes / e.busbw;
  return e;
}

Result<HardwareCatalog> HardwareCatalog::parse(std::string_view toml_text, std::string_view origin) {
  // toml++ reports syntax errors by exception; this is the one place they are caught.
  toml::table root;
  try {
    root = toml::parse(toml_text, std::string(origin));
  } catch (const toml::parse_error& err) {
    return FieldError{std::string(origin), "",
                      "is not valid TOML at line " + std::to_string(err.source().begin.line) + ": " +
                          std::string(err.description()),
                      ""};
  }
  Errors errors;
  HardwareCatalog catalog;
  std::vector<std::pair<int, Accelerator>> ordered;
  for (const auto& [key, node] : root) {
    const toml::table* t = node.as_table();
    std::string id(key.str());
    int line = static_cast<int>(node.source().begin.line);
    if (t == nullptr) {
      errors.push_back({id, "", "must be a table ([" + id + "])", ""});
      continue;
    }
    Reader r{*t, id, errors, line};
    r.only({"name", "vendor", "generation", "form_factor", "memory_type", "memory_bytes", "memory_bandwidth",
            "scale_up", "scale_up_bandwidth", "scale_up_note", "power_watts", "source", "source_url", "as_of",
            "notes", "peak_flops", "system", "host_link_bandwidth", "sm_count"});
    Accelerator a;
    a.id = id;
    a.name = r.text("name");
    a.vendor = r.text("vendor");
    a.generation = r.text("generation", false);
    a.memory_type = r.text("memory_type", false);
    a.memory_bytes = r.number("memory_bytes");
    a.memory_bandwidth = r.number("memory_bandwidth");
    a.scale_up = r.text("scale_up", false);
    if (t->contains("scale_up_bandwidth")) a.scale_up_bandwidth = r.number("scale_up_bandwidth");
    if (t->contains("host_link_bandwidth")) a.host_link_bandwidth = r.number("host_link_bandwidth");
    if (t->contains("sm_count")) a.sm_count = r.number("sm_count");
    // Some vendors (Google, AWS) publish no per-chip power: 0 means "not published".
    if (t->contains("power_watts")) a.power_watts = r.number("power_watts");
    a.source = r.text("source");
    a.source_url = r.text("source_url", false);
    a.as_of = r.text("as_of");
    a.notes = r.text("notes", false);
    if (const toml::node* sys = t->get("system"); sys != nullptr) {
      if (const toml::table* st = sys->as_table()) {
        read_system(*st, id + ".system", errors, a.system);
      } else {
        errors.push_back({id + ".system", "", "must be a table ([" + id + ".system])", ""});
      }
    }
    const toml::table* peaks = t->get_as<toml::table>("peak_flops");
    if (peaks == nullptr) {
      errors.push_back({id + ".peak_flops", "", "is missing", "a table of dtype = FLOP/s"});
    } else {
      for (const auto& [dkey, dnode] : *peaks) {
        auto dtype = parse_dtype(dkey.str());
        if (!dtype) {
          errors.push_back({id + ".peak_flops." + std::string(dkey.str()), "", "is not a known dtype",
                            dtype_list()});
          continue;
        }
        a.peak_flops[*dtype] = r.positive(&dnode, "peak_flops." + std::string(dkey.str()));
      }
      if (!a.supports(Dtype::kBf16)) {
        errors.push_back({id + ".peak_flops.bf16", "", "is missing; every chip lists bf16", ""});
      }
    }
    ordered.emplace_back(line, std::move(a));
  }
  if (!errors.empty()) return errors;
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [line, a] : ordered) catalog.chips_.push_back(std::move(a));
  return catalog;
}

const Accelerator* HardwareCatalog::find(std::string_view id) const {
  for (const auto& a : chips_) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

std::string HardwareCatalog::id_list() const {
  std::string out;
  for (const auto& a : chips_) {
    if (!out.empty()) out += ", ";
    out += a.id;
  }
  return out;
}

}  // namespace ridge::calc
