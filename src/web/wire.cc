// The HTTP wire format around Beast: a parsed request into ridge's Request, a Response's status
// line and headers, a prepared answer's head and its gathered send (the quick path), the framing
// rules a request must meet, a byte limit in words.
#include "web/wire.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <ctime>

namespace ridge::web {

namespace http = boost::beast::http;

std::string limit_in_words(size_t bytes) {
  std::string digits = std::to_string(bytes), grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  std::string binary;
  size_t unit = 1024;
  for (const char* name : {"KiB", "MiB", "GiB"}) {
    if (bytes >= unit && bytes % unit == 0) binary = std::to_string(bytes / unit) + " " + name;
    unit *= 1024;
  }
  return binary.empty() ? grouped + " bytes" : binary + " (" + grouped + " bytes)";
}

namespace {
// The Date header changes once a second; format it once per second per thread.
const std::string& date_now() {
  thread_local std::time_t last = 0;
  thread_local std::string value;
  std::time_t now = std::time(nullptr);
  if (now != last) {
    last = now;
    value = http_date(now);
  }
  return value;
}
}  // namespace

Request to_request(http::request<http::string_body>& in) {
  Request r;
  r.method = std::string(in.method_string());
  r.target = std::string(in.target());
  for (const auto& field : in) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers.emplace(std::move(name), std::string(field.value()));
  }
  r.body = std::move(in.body());
  return r;
}

// Writes the status line and headers into `head` (reused per connection). Beast parses
// requests; responses are serialized here, so a cached page goes out as its prepared
// header block plus its bytes, with no per-request allocation.
void append_status_lines(std::string& head, int status, unsigned version, bool keep_alive) {
  head += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  char digits[8];
  auto r = std::to_chars(digits, digits + sizeof digits, status);
  head.append(digits, r.ptr);
  head += ' ';
  head += status_reason(status);
  head += "\r\nServer: ridge\r\nDate: ";
  head += date_now();
  head += "\r\n";
  if (!keep_alive) {
    head += "Connection: close\r\n";
  } else if (version == 10) {
    head += "Connection: keep-alive\r\n";
  }
}

void serialize_head(const Response& res, unsigned version, bool keep_alive, std::string& head) {
  head.clear();
  append_status_lines(head, res.status, version, keep_alive);
  if (res.prebuilt_headers != nullptr) {
    head += *res.prebuilt_headers;
  } else {
    append_header_lines(head, res.content_type, res.headers);
    if (res.status != 304) append_content_length(head, res.view().size());
  }
  head += "\r\n";
}

std::string_view quick_head(const HotAnswer& answer, bool gzip, bool keep_alive, std::string_view request_id,
                            std::string& head, const BodyFile*& file) {
  gzip = gzip && answer.gzip_body != nullptr;
  head.clear();
  append_status_lines(head, 200, 11, keep_alive);
  head += gzip ? *answer.gzip_head : *answer.head;
  if (answer.request_id) {
    head += "X-Request-Id: ";
    head += request_id;
    head += "\r\n";
    head += answer.own_tail;
  }
  head += "\r\n";
  file = gzip ? nullptr : answer.file;
  return gzip ? *answer.gzip_body : *answer.body;
}

size_t send_gathered(int fd, const std::string& head, std::string_view body, boost::system::error_code& ec) {
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()}, {const_cast<char*>(body.data()), body.size()}};
  msghdr message{};
  message.msg_iov = parts;
  message.msg_iovlen = 2;
  ssize_t sent;
  do {
    sent = ::sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent >= 0) return static_cast<size_t>(sent);
  if (errno != EAGAIN && errno != EWOULDBLOCK) ec = boost::system::error_code(errno, boost::system::system_category());
  return 0;
}

// RFC 9112: a request with a Transfer-Encoding other than a lone "chunked", HTTP/1.1
// without exactly one Host, is refused (and the connection closed), so no body is ever read
// as the next request. Returns the reason, or empty when the framing is sound.
std::string framing_error(const http::request<http::string_body>& msg) {
  int hosts = 0, encodings = 0;
  std::string encoding;
  for (const auto& field : msg) {
    if (field.name() == http::field::host) ++hosts;
    if (field.name() == http::field::transfer_encoding) {
      ++encodings;
      encoding = std::string(field.value());
    }
  }
  if (encodings > 0) {
    std::string lower;
    for (char c : encoding) {
      if (c != ' ' && c != '\t') lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (encodings > 1 || lower != "chunked") {
      return "Transfer-Encoding '" + encoding.substr(0, 80) + "' is not supported; accepted: chunked";
    }
  }
  if (msg.version() >= 11 && hosts != 1) {
    return hosts == 0 ? "HTTP/1.1 requires a Host header" : "more than one Host header";
  }
  return {};
}

}  // namespace ridge::web
