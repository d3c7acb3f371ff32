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

void read_system(const toml::table& t, const std::string& prefix, Errors& errors, SystemSpec& s) {
  Reader r{t, prefix, errors, static_cast<int>(t.source().begin.line)};
  r.only({"name", "gpus", "power_watts", "nics", "nic_bandwidth", "source", "source_url", "as_of", "notes"});
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
}

}  // namespace

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
            "notes", "peak_flops", "system"});
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
