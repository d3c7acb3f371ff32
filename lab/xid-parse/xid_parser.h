// parse_xids: NVIDIA driver XID events from kernel log text (dmesg, journalctl -k, syslog).
//
// Contract:
// - An XID line contains "NVRM: Xid (<bus>): <n>," where <bus> is "PCI:dddd:bb:dd" or, on
//   older drivers, "dddd:bb:dd", either with an optional ".f" function. The domain may be 4
//   or 8 hex digits. The text after "<n>," is kept as the event's detail.
// - Its timestamp is the kernel's monotonic "[seconds.micros]" before "NVRM:": at the start
//   (dmesg, journalctl -k -o short-monotonic, which puts host and "kernel:" after it) or
//   after a syslog prefix ("Nov 22 18:29:55 host kernel: [ 966.503025] NVRM: ...").
// - Lines without "NVRM: Xid" are ignored, not errors. A line with "NVRM: Xid" that does
//   not match (an older "(bb:dd)" format) or has no monotonic timestamp (dmesg -T prints
//   wall-clock times) is not guessed at: it is listed in `skipped` with its line number and
//   the reason, and parsing goes on.
// - The bus id is normalized to lower-case "dddd:bb:dd" (4-digit domain, no function), so
//   dmesg's "0000:3b:00" and nvidia-smi's "00000000:3B:00.0" are the same GPU.
// - One fault can print several lines: a line with the same GPU and XID less than 1 s after
//   the previous such line is folded into the same event (exactly 1 s apart: two events).
// - bursts(): per GPU, a run of events each less than 10 s after the previous one (10 s
//   apart: two bursts). The first XID of a burst is the likely cause, the rest follow.
//   Bursts are ordered by bus id, then time.
//
// Pure functions, no shared state: safe to call from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ridge::lab {

struct XidEvent {
  double t;         // seconds since boot
  std::string bus;  // normalized "dddd:bb:dd"
  int xid;
  std::string detail;
  int line;   // 1-based line of the event's first log line
  int lines;  // log lines folded into it
};

struct XidParse {
  std::vector<XidEvent> events;  // in log order
  int xid_lines = 0;             // lines that parsed as XIDs
  std::vector<std::string> skipped;  // "line N: reason"
};

XidParse parse_xids(std::string_view log);

// "" when `bus` is not a PCI bus id.
std::string normalize_bus(std::string_view bus);

struct XidBurst {
  std::string bus;
  double start;
  int cause;
  std::vector<int> then;  // the XIDs after the cause, in order
};
std::vector<XidBurst> bursts(const std::vector<XidEvent>& events, double gap_s = 10.0);

// What a node health agent does about an XID, per NVIDIA's catalog.
enum class XidAction { kRestartJob, kRestartApp, kResetAtNextDrain, kResetGpu, kDrainNode, kDrainAndRma, kUnclassified };
XidAction action_for(int xid);
const char* describe(XidAction a);

}  // namespace ridge::lab
