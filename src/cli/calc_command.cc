#include "cli/calc_command.h"

#include <algorithm>
#include <fstream>

#include "diagram/diagrams.h"

namespace ridge::cli {

using calc::ParamSpec;
using calc::ParamType;

std::string calculator_help(const calc::Calculator& c, const calc::Catalog& catalog) {
  std::string out = "ridge calc " + c.name + ": " + c.summary + "\n\n";
  out += "Usage: ridge calc " + c.name + " [--flag VALUE ...] [--json]\n";
  out += "Example: ridge calc " + c.name + " " + c.example + "\n\nFlags:\n";
  size_t w = 0;
  for (const auto& p : c.params) w = std::max(w, p.name.size());
  for (const auto& p : c.params) {
    std::string line = "  --" + p.name + std::string(w - p.name.size() + 2, ' ') + p.help;
    std::string unit(calc::unit_symbol(p.unit));
    std::vector<std::string> notes;
    if (p.type == ParamType::kNumber || p.type == ParamType::kCount) {
      if (!unit.empty() && unit != "count") notes.push_back("unit " + unit);
      notes.push_back(calc::accepted_range(p, catalog));
    } else if (p.type == ParamType::kGpu || p.type == ParamType::kModel) {
      notes.push_back("see --list-" + std::string(p.type == ParamType::kGpu ? "gpus" : "models"));
    } else if (p.type != ParamType::kConfig) {
      notes.push_back(calc::accepted_range(p, catalog));
    }
    if (!p.default_value.empty()) notes.push_back("default " + p.default_value);
    if (p.required) notes.push_back("required");
    std::string joined;
    for (const auto& n : notes) joined += (joined.empty() ? "" : "; ") + n;
    out += line + "\n" + std::string(w + 6, ' ') + "(" + joined + ")\n";
  }
  out += "  --json" + std::string(w > 2 ? w - 2 : 0, ' ') + "  print the derivation as JSON (values in base units)\n";
  if (auto kind = diagram::kind_for_calculator(c.name)) {
    out += "  --svg FILE" + std::string(w > 6 ? w - 6 : 0, ' ') + "  also write the " + *kind + " diagram as an SVG file\n";
  }
  out += "\nCounts accept 70e9, 70B, 15T; k is 1,000 (32k = 32,000) and Ki is 1,024 (32Ki = 32,768).\n";
  out += "Results: ";
  for (size_t i = 0; i < c.result_keys.size(); ++i) out += (i ? ", " : "") + c.result_keys[i];
  out += "\n";
  return out;
}

int run_calc(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog,
             std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--list" || args[0] == "list") {
    out << "Calculators (ridge calc NAME --help):\n";
    size_t w = 0;
    for (const auto& c : registry.all()) w = std::max(w, c.name.size());
    for (const auto& c : registry.all()) {
      out << "  " << c.name << std::string(w - c.name.size() + 2, ' ') << c.summary << "\n";
    }
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--list-gpus") {
    for (const auto& a : catalog.hardware.all()) {
      out << a.id << "\t" << a.name << "\tbf16 " << calc::format_quantity(a.peak(calc::Dtype::kBf16), calc::Unit::kFlopPerSecond)
          << "\t" << calc::format_quantity(a.memory_bytes, calc::Unit::kBytes) << "\t"
          << calc::format_quantity(a.memory_bandwidth, calc::Unit::kBytesPerSecond) << "\t" << a.as_of << "\n";
    }
    return 0;
  }
  if (args[0] == "--list-models") {
    for (const auto& [id, m] : catalog.models) {
      auto p = calc::count_params(m);
      out << id << "\t" << m.model_type << "\t" << calc::format_quantity(p.total, calc::Unit::kCount) << " params";
      if (m.is_moe()) out << " (" << calc::format_quantity(p.active, calc::Unit::kCount) << " active)";
      out << "\n";
    }
    return 0;
  }
  const calc::Calculator* c = registry.find(args[0]);
  if (c == nullptr) {
    err << "ridge calc: '" << args[0] << "' is not a calculator; accepted: " << registry.name_list() << "\n";
    return 2;
  }
  bool json = false;
  std::string svg_path;
  calc::Given given;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out << calculator_help(*c, catalog);
      return 0;
    }
    if (a == "--json") {
      json = true;
      continue;
    }
    if (a == "--svg" || a.rfind("--svg=", 0) == 0) {
      if (a == "--svg" && i + 1 >= args.size()) {
        err << "ridge calc " << c->name << ": --svg needs a file name\n";
        return 2;
      }
      svg_path = a == "--svg" ? args[++i] : a.substr(6);
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      err << "ridge calc " << c->name << ": '" << a << "' is not a flag; flags look like --name VALUE\n";
      return 2;
    }
    std::string name = a.substr(2), value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      err << "ridge calc " << c->name << ": --" << name << " needs a value\n";
      return 2;
    }
    name = calc::normalize_param_name(name);
    if (given.count(name)) {
      err << "ridge calc " << c->name << ": --" << name << " is given twice\n";
      return 2;
    }
    given[name] = value;
  }
  auto derivation = registry.evaluate(c->name, given, catalog);
  if (!derivation) {
    for (const auto& e : derivation.errors()) err << "ridge calc " << c->name << ": " << e.to_string() << "\n";
    err << "see: ridge calc " << c->name << " --help\n";
    return 2;
  }
  out << (json ? calc::render_json(*derivation) + "\n" : calc::render_text(*derivation));
  if (!svg_path.empty()) {
    auto kind = diagram::kind_for_calculator(c->name);
    if (!kind) {
      err << "ridge calc " << c->name << ": --svg: this calculator has no diagram; those that do: fit, roofline, "
             "checkpoint, pipeline-bubble, allreduce\n";
      return 2;
    }
    diagram::Options options;
    options.standalone = true;
    auto drawn = diagram::draw(*kind, {}, registry, catalog, options, &*derivation);
    if (!drawn) {
      for (const auto& e : drawn.errors()) err << "ridge calc " << c->name << ": --svg: " << e.to_string() << "\n";
      return 2;
    }
    std::ofstream file(svg_path, std::ios::binary);
    if (!(file << drawn->svg)) {
      err << "ridge calc " << c->name << ": --svg: cannot write '" << svg_path << "'\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace ridge::cli
