#include "xid_parser.h"

#include <algorithm>
#include <cctype>
#include <map>
// GCC 12 warns inside <regex> itself at -O1 with the sanitizers (a false positive
// in std::function's move); the warning is off for the header only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#include <string>
#include <utility>

namespace ridge::lab {

namespace {

// The bus id: "PCI:" optional (older drivers omit it), 4- or 8-digit domain, bus, device,
// optional function.
const std::regex& xid_re() {
  static const std::regex re(
      R"(NVRM: Xid \(((?:PCI:)?[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?)\): (\d+),\s*(.*)$)");
  return re;
}

const std::regex& monotonic_re() {
  static const std::regex re(R"(\[\s*(\d+\.\d+)\])");
  return re;
}

}  // namespace

std::string normalize_bus(std::string_view bus) {
  static const std::regex re(R"((?:PCI:)?([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})(?:\.[0-7])?)");
  std::string b(bus);
  for (auto& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (b.rfind("pci:", 0) == 0) b = b.substr(4);
  std::smatch m;
  if (!std::regex_match(b, m, re)) return "";
  std::string domain = m[1];
  // An 8-digit domain is the 4-digit one zero-extended; anything else in the top digits
  // would be a different domain, so keep the whole thing.
  if (domain.size() > 4 && domain.find_first_not_of('0') >= domain.size() - 4) domain = domain.substr(domain.size() - 4);
  return domain + ":" + std::string(m[2]) + ":" + std::string(m[3]);
}

XidParse parse_xids(std::string_view log) {
  XidParse out;
  std::map<std::pair<std::string, int>, std::pair<double, std::size_t>> last;  // (bus, xid) -> (t, event)
  std::size_t pos = 0;
  for (int number = 1; pos <= log.size(); ++number) {
    const std::size_t end = std::min(log.find('\n', pos), log.size());
    std::string line(log.substr(pos, end - pos));
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t at = line.find("NVRM: Xid");
    if (at == std::string::npos) continue;
    std::smatch m;
    const std::string tail = line.substr(at);
    if (!std::regex_search(tail, m, xid_re()) || m.position(0) != 0) {
      out.skipped.push_back("line " + std::to_string(number) + ": an XID line in an unrecognized format");
    } else {
      std::smatch ts;
      const std::string head = line.substr(0, at);
      if (!std::regex_search(head, ts, monotonic_re())) {
        out.skipped.push_back("line " + std::to_string(number) +
                              ": an XID line without a monotonic [seconds.micros] timestamp (dmesg -T?)");
      } else {
        ++out.xid_lines;
        const double t = std::stod(ts[1]);
        const std::string bus = normalize_bus(m[1].str());
        const int xid = std::stoi(m[2]);
        const auto key = std::make_pair(bus, xid);
        const auto it = last.find(key);
        if (it != last.end() && t - it->second.first < 1.0) {  // the same fault, another line
          ++out.events[it->second.second].lines;
          it->second.first = t;
        } else {
          out.events.push_back({t, bus, xid, m[3], number, 1});
          last[key] = {t, out.events.size() - 1};
        }
      }
    }
  }
  return out;
}

std::vector<XidBurst> bursts(const std::vector<XidEvent>& events, double gap_s) {
  std::map<std::string, std::vector<const XidEvent*>> by_gpu;
  for (const auto& e : events) by_gpu[e.bus].push_back(&e);
  std::vector<XidBurst> out;
  for (auto& [bus, evs] : by_gpu) {
    std::stable_sort(evs.begin(), evs.end(), [](const XidEvent* a, const XidEvent* b) { return a->t < b->t; });
    for (std::size_t i = 0; i < evs.size();) {
      XidBurst b{bus, evs[i]->t, evs[i]->xid, {}};
      std::size_t j = i + 1;
      for (; j < evs.size() && evs[j]->t - evs[j - 1]->t < gap_s; ++j) b.then.push_back(evs[j]->xid);
      out.push_back(std::move(b));
      i = j;
    }
  }
  return out;
}

XidAction action_for(int xid) {
  switch (xid) {
    case 13: case 31: case 43: case 45: return XidAction::kRestartJob;
    case 94: return XidAction::kRestartApp;
    case 63: return XidAction::kResetAtNextDrain;
    case 48: case 95: case 61: case 62: case 109: case 119: case 120: return XidAction::kResetGpu;
    case 74: case 79: return XidAction::kDrainNode;
    case 64: return XidAction::kDrainAndRma;
    default: return XidAction::kUnclassified;
  }
}

const char* describe(XidAction a) {
  switch (a) {
    case XidAction::kRestartJob: return "app fault: restart the job, node stays";
    case XidAction::kRestartApp: return "contained ECC: restart the affected app";
    case XidAction::kResetAtNextDrain: return "row remap pending: reset at the next drain";
    case XidAction::kResetGpu: return "reset the GPU";
    case XidAction::kDrainNode: return "drain the node";
    case XidAction::kDrainAndRma: return "remap failed: drain, RMA";
    case XidAction::kUnclassified: return "unclassified: look it up in the XID catalog";
  }
  return "unclassified";
}

}  // namespace ridge::lab
