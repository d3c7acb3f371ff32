#include "web/log.h"

#include <algorithm>
#include <charconv>

#include <sodium.h>
#include <spdlog/async.h>
#include <spdlog/async_logger.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "web/access_buffer.h"

namespace ridge::web::log {
namespace {

struct State {
  Options options;
  std::shared_ptr<spdlog::logger> logger;
};

std::atomic<std::shared_ptr<State>>& state() {
  static std::atomic<std::shared_ptr<State>> s;
  return s;
}

std::shared_ptr<State> current() { return state().load(std::memory_order_acquire); }

// Whether the configured logger writes access lines (mirrors State::options.access).
std::atomic<bool>& access_on() {
  static std::atomic<bool> on{false};
  return on;
}

// Text for a log line, appended to `out`: control bytes written as \xNN so no input can end a
// line; for a field (`field`), spaces, quotes and backslashes too, so no input can fake another
// field.
void append_escaped(std::string& out, std::string_view v, bool field) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : v) {
    if (c < 0x20 || c == 0x7f || (field && (c == '"' || c == '\\' || c == ' '))) {
      const char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      out.append(esc, 4);
    } else {
      out += static_cast<char>(c);
    }
  }
}

std::string escaped(std::string_view v, bool field) {
  std::string out;
  out.reserve(v.size());
  append_escaped(out, v, field);
  return out;
}

std::string text_value(std::string_view v) { return escaped(v, true); }

std::string json_value(std::string_view v) {
  return nlohmann::json(std::string(v)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The buffered access log (access_buffer.h), when configured with a descriptor. Read on every
// request without a shared_ptr's atomic count; a replaced one is stopped and kept (it may still
// be in a request's hands), which only tests do.
std::atomic<AccessBuffers*> buffered{nullptr};
std::atomic<Format> buffered_format{Format::kText};

void retire_buffers() {
  static std::mutex m;
  static std::vector<std::unique_ptr<AccessBuffers>> retired;
  AccessBuffers* old = buffered.exchange(nullptr);
  if (old == nullptr) return;
  old->stop();
  std::lock_guard<std::mutex> lock(m);
  retired.emplace_back(old);
}

// "2026-12-07T03:48:18.123Z", as spdlog's pattern writes it; the date and time of day are
// formatted once a second per thread.
void append_time(std::string& out) {
  thread_local std::time_t second = -1;
  thread_local char day_time[24];
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t s = static_cast<std::time_t>(ms / 1000);
  if (s != second) {
    std::tm tm{};
    gmtime_r(&s, &tm);
    std::strftime(day_time, sizeof day_time, "%Y-%m-%dT%H:%M:%S.", &tm);
    second = s;
  }
  out.append(day_time, 20);
  const int m = static_cast<int>(ms % 1000);
  const char tail[4] = {static_cast<char>('0' + m / 100), static_cast<char>('0' + m / 10 % 10),
                        static_cast<char>('0' + m % 10), 'Z'};
  out.append(tail, 4);
}

template <typename Int>
void append_int(std::string& out, Int v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// A JSON string: plain printable ASCII as it is, anything else through nlohmann (escapes, and
// invalid UTF-8 replaced) as the spdlog path writes it.
void append_json(std::string& out, std::string_view v) {
  const bool plain = std::all_of(v.begin(), v.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) {
    out += json_value(v);
    return;
  }
  out += '"';
  out.append(v);
  out += '"';
}

void buffered_access(AccessBuffers& b, const AccessLine& l) {
  std::string& out = b.acquire();
  if (buffered_format.load(std::memory_order_relaxed) == Format::kJson) {
    out += "{\"time\":\"";
    append_time(out);
    out += "\",\"log\":\"access\",\"method\":";
    append_json(out, l.method);
    out += ",\"path\":";
    append_json(out, l.path);
    out += ",\"status\":";
    append_int(out, l.status);
    out += ",\"bytes\":";
    append_int(out, l.bytes);
    out += ",\"us\":";
    append_int(out, l.micros);
    out += ",\"id\":";
    append_json(out, l.request_id);
    out += "}\n";
  } else {
    append_time(out);
    out += ' ';
    append_escaped(out, l.method, true);
    out += ' ';
    append_escaped(out, l.path, true);
    out += ' ';
    append_int(out, l.status);
    out += ' ';
    append_int(out, l.bytes);
    out += "B ";
    append_int(out, l.micros);
    out += "us id=";
    append_escaped(out, l.request_id, true);
    out += '\n';
  }
  b.release();
}

}  // namespace

const Format* parse_format(std::string_view name) {
  static const Format kText = Format::kText, kJson = Format::kJson;
  if (name == "text") return &kText;
  if (name == "json") return &kJson;
  return nullptr;
}

void configure(const Options& options, std::shared_ptr<spdlog::sinks::sink> sink) {
  auto s = std::make_shared<State>();
  s->options = options;
  if (!sink) sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  if (options.async && !spdlog::thread_pool()) spdlog::init_thread_pool(8192, 1);
  if (options.async) {
    s->logger = std::make_shared<spdlog::async_logger>("ridge", std::move(sink), spdlog::thread_pool(),
                                                       spdlog::async_overflow_policy::overrun_oldest);
  } else {
    s->logger = std::make_shared<spdlog::logger>("ridge", std::move(sink));
  }
  // The time in UTC with milliseconds; the rest of the line is ours.
  s->logger->set_pattern(options.format == Format::kJson ? "{\"time\":\"%Y-%m-%dT%H:%M:%S.%eZ\",%v}"
                                                         : "%Y-%m-%dT%H:%M:%S.%eZ %v",
                         spdlog::pattern_time_type::utc);
  s->logger->set_level(spdlog::level::info);
  s->logger->flush_on(spdlog::level::err);
  bool access = s->options.access;
  retire_buffers();
  if (access && options.access_fd >= 0) {
    buffered_format.store(options.format, std::memory_order_relaxed);
    buffered.store(new AccessBuffers(options.access_fd), std::memory_order_release);
  }
  state().store(std::move(s), std::memory_order_release);
  access_on().store(access, std::memory_order_relaxed);
}

void flush() {
  if (AccessBuffers* b = buffered.load(std::memory_order_acquire)) b->flush();
  if (auto s = current()) s->logger->flush();
}

void shutdown() {
  flush();
  access_on().store(false, std::memory_order_relaxed);
  retire_buffers();
  state().store(nullptr, std::memory_order_release);
  spdlog::shutdown();  // the thread pool drains its queue, then joins
}

void access(const AccessLine& l) {
  // Off (the benchmarks, a proxy that logs): no shared_ptr load, whose atomic refcount every
  // thread would bump on every request.
  if (!access_on().load(std::memory_order_relaxed)) return;
  if (AccessBuffers* b = buffered.load(std::memory_order_acquire)) {
    buffered_access(*b, l);
    return;
  }
  auto s = current();
  if (!s) return;
  if (s->options.format == Format::kJson) {
    s->logger->info("\"log\":\"access\",\"method\":{},\"path\":{},\"status\":{},\"bytes\":{},\"us\":{},\"id\":{}",
                    json_value(l.method), json_value(l.path), l.status, l.bytes, l.micros, json_value(l.request_id));
  } else {
    s->logger->info("{} {} {} {}B {}us id={}", text_value(l.method), text_value(l.path), l.status, l.bytes, l.micros,
                    text_value(l.request_id));
  }
}

namespace {

void event(spdlog::level::level_enum level, std::string_view what, std::string_view request_id) {
  const char* name = level == spdlog::level::err ? "error" : "info";
  auto s = current();
  if (!s) {
    std::fprintf(stderr, "ridge: %s: %.*s\n", name, static_cast<int>(what.size()), what.data());
    return;
  }
  if (s->options.format == Format::kJson) {
    s->logger->log(level, "\"log\":\"{}\",\"message\":{},\"id\":{}", name, json_value(what), json_value(request_id));
  } else {
    s->logger->log(level, "{} {} id={}", level == spdlog::level::err ? "ERROR" : "INFO", escaped(what, false),
                   text_value(request_id));
  }
}

}  // namespace

void info(std::string_view what, std::string_view request_id) { event(spdlog::level::info, what, request_id); }

void error(std::string_view what, std::string_view request_id) { event(spdlog::level::err, what, request_id); }

std::string next_request_id() { return std::string(next_request_id_fixed().view()); }

RequestId next_request_id_fixed() {
  static const uint32_t prefix = [] {
    if (sodium_init() < 0) return 0u;
    return randombytes_random();
  }();
  // Each thread takes a block of 256 numbers at a time: unique in the process without every
  // request of every thread bumping one shared cache line.
  static std::atomic<uint64_t> counter{0};
  thread_local uint64_t next = 0, end = 0;
  if (next == end) {
    next = counter.fetch_add(256, std::memory_order_relaxed) + 1;
    end = next + 256;
  }
  // "%08x-%08llx" without printf: the prefix, a dash, the number zero-padded to 8 hex digits.
  RequestId id;
  char* buf = id.text;
  auto hex = [](char* at, uint64_t v, int width) {
    char digits[16];
    auto r = std::to_chars(digits, digits + sizeof digits, v, 16);
    int n = static_cast<int>(r.ptr - digits);
    for (int i = n; i < width; ++i) *at++ = '0';
    return std::copy(digits, r.ptr, at);
  };
  char* at = hex(buf, prefix, 8);
  *at++ = '-';
  at = hex(at, next++, 8);
  id.size = static_cast<unsigned char>(at - buf);
  return id;
}

}  // namespace ridge::web::log
