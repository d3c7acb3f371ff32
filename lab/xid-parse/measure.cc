// Figures for the XID parser: what it finds in lab/xid-parse/testdata/sample.log (exact),
// and its throughput on a synthetic log of 200,000 lines, one in ten an XID (timed).
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "common/report.h"
#include "xid_parser.h"

int main(int argc, char** argv) {
  ridge::lab::Report report("xid-parse", "XID events from kernel log text: events, bursts, throughput");
  report.section("lab/xid-parse/testdata/sample.log (exact)");
  std::ifstream in(std::string(RIDGE_SOURCE_DIR) + "/lab/xid-parse/testdata/sample.log");
  std::stringstream ss;
  ss << in.rdbuf();
  const auto p = ridge::lab::parse_xids(ss.str());
  const auto b = ridge::lab::bursts(p.events);
  report.add("sample/xid_lines", static_cast<std::int64_t>(p.xid_lines), "lines", "XID lines parsed");
  report.add("sample/events", static_cast<std::int64_t>(p.events.size()), "events", "events after folding multi-line faults");
  report.add("sample/bursts", static_cast<std::int64_t>(b.size()), "bursts", "bursts (per GPU, gaps under 10 s)");
  report.add("sample/skipped", static_cast<std::int64_t>(p.skipped.size()), "lines", "XID lines reported as skipped");

  report.section("synthetic log: 200,000 lines, every tenth an XID 13 on one of 8 GPUs (timed)");
  std::string log;
  for (int i = 0; i < 200'000; ++i) {
    const std::string t = "[" + std::to_string(1000 + i) + ".000000] ";
    if (i % 10 == 0)
      log += t + "NVRM: Xid (PCI:0000:" + std::to_string(10 + i % 8) + ":00): 13, pid=" + std::to_string(i) +
             ", name=python, Graphics Exception: ESR 0x504648=0x1000e\n";
    else
      log += t + "eth0: link up, 100Gbps, full duplex\n";
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto q = ridge::lab::parse_xids(log);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  report.add("synthetic/events", static_cast<std::int64_t>(q.events.size()), "events", "events found");
  report.add("synthetic/lines_per_s", 200'000 / s, "lines/s", "lines per second (std::regex on XID lines only)", 0);
  report.note("the sample counts are exact; the throughput depends on the machine and build type");
  return report.print(argc, argv);
}
