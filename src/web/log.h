// The server's logs, through spdlog: an access log (one line per request: time, method, path
// without its query, status, bytes, microseconds, request id) and an error log (what failed,
// with the exception's text and the request id). Both go to stderr by default, as text for
// people or, with `--log-format json`, as one JSON object per line for machines.
//
// Lines are formatted on the calling thread and written by a background thread, so an I/O
// thread never waits on stderr; when the queue is full the oldest lines are dropped (a log is
// never allowed to stall requests). The server's access lines go through per-thread buffers
// written in batches (Options::access_fd), the error log through spdlog's queue. Values are escaped: a path with a newline or
// a quote cannot forge a line. Thread-safe after configure().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace spdlog::sinks {
class sink;
}

namespace ridge::web::log {

enum class Format { kText, kJson };

struct Options {
  Format format = Format::kText;
  bool access = true;  // --access-log off turns the access log off (the error log stays)
  // Written by a background thread (the server) or on the caller's thread (tests, which read
  // what was written right after).
  bool async = true;
  // When >= 0, access lines skip spdlog: each thread formats them into a buffer of its own and
  // a flusher thread writes them to this descriptor in batches (at 64 KiB, or every 200 ms;
  // web/access_buffer.h). The server passes stderr's; the error log stays on spdlog.
  int access_fd = -1;
};

// Once at start-up, before the server's threads start. A null sink means stderr (tests pass
// their own). Calling it again replaces the loggers.
void configure(const Options& options, std::shared_ptr<spdlog::sinks::sink> sink = nullptr);
// Writes what is queued (a synchronous logger has nothing queued).
void flush();
// Before the process exits: writes every queued line and stops the background thread; later
// lines go straight to stderr.
void shutdown();

// "text" or "json"; nullptr otherwise.
const Format* parse_format(std::string_view name);

struct AccessLine {
  std::string_view method;
  std::string_view path;  // without the query string
  int status = 0;
  uint64_t bytes = 0;     // body bytes sent
  int64_t micros = 0;     // from the request's dispatch to its response
  std::string_view request_id;
};
void access(const AccessLine& line);

// A notable event that is not a failure (a payment granted access), on the error log's stream.
void info(std::string_view what, std::string_view request_id = {});

// An error: what failed (and the exception's text), on which request.
void error(std::string_view what, std::string_view request_id = {});

// A request id unique in this process and unlikely to repeat across processes: a random
// 32-bit prefix chosen at start-up, then a counter ("5f3a9c1e-0000002a").
std::string next_request_id();
// The same id in a fixed buffer, for the server's quick path (no allocation per request).
struct RequestId {
  char text[32];
  unsigned char size = 0;
  std::string_view view() const { return {text, size}; }
};
RequestId next_request_id_fixed();

}  // namespace ridge::web::log
