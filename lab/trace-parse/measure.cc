// Trace figures: the sample trace's per-kernel totals and GPU idle gaps (what the lab's
// test checks by hand), and parse throughput on a synthetic 50,000-kernel trace.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "common/report.h"
#include "trace_summary.h"

int main(int argc, char** argv) {
  ridge::lab::Report report("trace-parse", "per-kernel time and GPU idle gaps from a Chrome trace");

  report.section("lab/trace-parse/sample_trace.json");
  {
    std::ifstream in(std::string(RIDGE_SOURCE_DIR) + "/lab/trace-parse/sample_trace.json");
    std::stringstream text;
    text << in.rdbuf();
    const auto r = ridge::lab::summarize_trace(text.str());
    if (!r.summary) {
      report.add_text("sample/error", r.error, "error");
    } else {
      for (const auto& k : r.summary->kernels) {
        report.add("sample/kernels/" + k.name + "/total_us", k.total_us, "us",
                   k.name + " (" + std::to_string(k.count) + " launches)", 1);
      }
      for (const auto& d : r.summary->devices) {
        double idle = 0;
        for (const auto& g : d.gaps) idle += g.end_us - g.start_us;
        const std::string key = "sample/devices/" + d.device;
        report.add(key + "/busy_us", d.busy_us, "us", "GPU " + d.device + " busy", 1);
        report.add(key + "/span_us", d.span_us, "us", "GPU " + d.device + " span", 1);
        report.add(key + "/idle_gaps", static_cast<std::int64_t>(d.gaps.size()), "", "GPU " + d.device + " idle gaps");
        report.add(key + "/idle_us", idle, "us", "GPU " + d.device + " idle inside the span", 1);
      }
      report.add("sample/events_skipped", static_cast<std::int64_t>(r.summary->events_skipped), "",
                 "malformed GPU events skipped");
    }
  }

  report.section("synthetic trace: 8 GPUs x 6,250 kernels on 2 streams");
  {
    std::string trace = "{\"traceEvents\":[";
    for (int i = 0; i < 50'000; ++i) {
      const int gpu = i % 8, n = i / 8;
      if (i > 0) trace += ',';
      trace += "{\"name\":\"kernel_" + std::to_string(n % 40) + "\",\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":" +
               std::to_string(gpu) + ",\"tid\":" + std::to_string(7 + n % 2) + ",\"ts\":" + std::to_string(n * 12) +
               ".25,\"dur\":" + std::to_string(8 + n % 5) + "}";
    }
    trace += "]}";
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = ridge::lab::summarize_trace(trace);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report.add("synthetic/bytes", static_cast<std::int64_t>(trace.size()), "B", "trace size");
    report.add("synthetic/mb_per_s", static_cast<double>(trace.size()) / 1e6 / s, "MB/s", "parse + summarize", 1);
    report.add("synthetic/kernels", static_cast<std::int64_t>(r.summary ? r.summary->kernels.size() : 0), "",
               "distinct kernels");
  }
  report.note("throughput depends on the machine and build type; the sample's figures do not");
  return report.print(argc, argv);
}
