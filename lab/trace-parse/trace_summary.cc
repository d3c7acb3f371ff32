#include "trace_summary.h"

#include <algorithm>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

namespace ridge::lab {

namespace {

using nlohmann::json;

bool is_gpu_category(const json& event) {
  const auto cat = event.find("cat");
  if (cat == event.end() || !cat->is_string()) return false;
  const auto& c = cat->get_ref<const std::string&>();
  return c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset";
}

std::string device_of(const json& event) {
  const auto pid = event.find("pid");
  if (pid == event.end()) return "";
  return pid->is_string() ? pid->get<std::string>() : pid->dump();
}

struct Busy {
  double start, end;
};

DeviceSummary summarize_device(std::string device, std::vector<Busy> busy, double min_gap_us) {
  DeviceSummary d{std::move(device), 0, 0, {}};
  std::sort(busy.begin(), busy.end(), [](const Busy& a, const Busy& b) { return a.start < b.start; });
  std::vector<Busy> merged;
  for (const Busy& b : busy) {
    if (!merged.empty() && b.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, b.end);
    } else {
      merged.push_back(b);
    }
  }
  for (std::size_t i = 0; i < merged.size(); ++i) {
    d.busy_us += merged[i].end - merged[i].start;
    if (i > 0 && merged[i].start - merged[i - 1].end > min_gap_us) d.gaps.push_back({merged[i - 1].end, merged[i].start});
  }
  if (!merged.empty()) d.span_us = merged.back().end - merged.front().start;
  return d;
}

}  // namespace

TraceParseResult summarize_trace(std::string_view json_text, double min_gap_us) {
  TraceParseResult result;
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    result.error = std::string("not valid JSON: ") + e.what();
    return result;
  }
  const json* events = nullptr;
  if (doc.is_array()) {
    events = &doc;
  } else if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) {
    events = &doc["traceEvents"];
  } else {
    result.error = "not a Chrome trace: expected an array of events or an object with a \"traceEvents\" array";
    return result;
  }

  TraceSummary s;
  std::map<std::string, KernelTotal> kernels;
  std::map<std::string, std::vector<Busy>> busy_by_device;
  for (const json& e : *events) {
    ++s.events_total;
    if (!e.is_object()) {
      ++s.events_skipped;
      continue;
    }
    if (e.value("ph", "") != "X" || !is_gpu_category(e)) continue;  // CPU, metadata, instants
    const auto name = e.find("name");
    const auto ts = e.find("ts");
    const auto dur = e.find("dur");
    if (name == e.end() || !name->is_string() || ts == e.end() || !ts->is_number() || dur == e.end() ||
        !dur->is_number() || dur->get<double>() < 0) {
      ++s.events_skipped;
      continue;
    }
    const double start = ts->get<double>(), length = dur->get<double>();
    ++s.events_gpu;
    busy_by_device[device_of(e)].push_back({start, start + length});
    if (e["cat"] == "kernel") {
      KernelTotal& k = kernels[name->get<std::string>()];
      k.name = name->get<std::string>();
      ++k.count;
      k.total_us += length;
    }
  }

  for (auto& [name, total] : kernels) s.kernels.push_back(std::move(total));
  std::sort(s.kernels.begin(), s.kernels.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.total_us != b.total_us ? a.total_us > b.total_us : a.name < b.name;
  });
  for (auto& [device, busy] : busy_by_device) s.devices.push_back(summarize_device(device, std::move(busy), min_gap_us));
  result.summary = std::move(s);
  return result;
}

}  // namespace ridge::lab
