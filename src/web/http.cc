#include "web/http.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include <algorithm>
#include <arpa/inet.h>

#include <cctype>
#include <charconv>
#include <cstring>
#include <ctime>

namespace ridge::web {

std::optional<std::string> Request::param(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return v;
  }
  return std::nullopt;
}

std::string Request::header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? std::string() : it->second;
}

namespace {
int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<std::string> url_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      int hi = i + 1 < s.size() ? hex(s[i + 1]) : -1;
      int lo = i + 2 < s.size() ? hex(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}


bool parse_form(std::string_view body, std::vector<std::pair<std::string, std::string>>& out) {
  out.clear();
  while (!body.empty()) {
    size_t amp = body.find('&');
    std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    auto key = url_decode(pair.substr(0, eq), true);
    auto value = url_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!key || !value) return false;
    out.emplace_back(std::move(*key), std::move(*value));
  }
  return true;
}

std::string cookie_value(const std::string& header, std::string_view name) {
  size_t pos = 0;
  while (pos < header.size()) {
    while (pos < header.size() && (header[pos] == ' ' || header[pos] == ';')) ++pos;
    size_t end = header.find(';', pos);
    if (end == std::string::npos) end = header.size();
    std::string_view item(header.data() + pos, end - pos);
    size_t eq = item.find('=');
    if (eq != std::string_view::npos && item.substr(0, eq) == name) return std::string(item.substr(eq + 1));
    pos = end + 1;
  }
  return {};
}

bool parse_target(std::string_view target, Request& out) {
  if (target.empty() || target[0] != '/') return false;
  size_t q = target.find('?');
  auto path = url_decode(target.substr(0, q), false);
  if (!path || path->find('\0') != std::string::npos) return false;
  out.path = *path;
  out.query.clear();
  if (q == std::string_view::npos) return true;
  std::string_view rest = target.substr(q + 1);
  size_t hash = rest.find('#');
  if (hash != std::string_view::npos) rest = rest.substr(0, hash);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    auto key = url_decode(pair.substr(0, eq), true);
    auto value = url_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!key || !value) return false;
    out.query.emplace_back(std::move(*key), std::move(*value));
  }
  return true;
}

std::string http_date(long long unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string_view status_reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 402: return "Payment Required";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
  }
}

}  // namespace ridge::web

namespace ridge::web {

std::string safe_next(std::string_view next, std::string_view fallback) {
  // A local path only: one leading '/', then printable ASCII with no backslash. This refuses
  // "//evil", "/\\evil" and "/\t/evil" (which browsers read as another host) and every
  // control character (CR and LF would split the Location header).
  if (next.size() < 1 || next.size() > 512 || next[0] != '/') return std::string(fallback);
  if (next.size() > 1 && (next[1] == '/' || next[1] == '\\')) return std::string(fallback);
  for (unsigned char c : next) {
    if (c <= 0x20 || c >= 0x7f || c == '\\') return std::string(fallback);
  }
  return std::string(next);
}

bool valid_header_value(std::string_view value) {
  for (unsigned char c : value) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

std::optional<Cidr> parse_cidr(std::string_view text) {
  Cidr c;
  std::string addr(text.substr(0, text.find('/')));
  int max_prefix = 0;
  if (inet_pton(AF_INET, addr.c_str(), c.bytes) == 1) {
    c.family = AF_INET;
    max_prefix = 32;
  } else if (inet_pton(AF_INET6, addr.c_str(), c.bytes) == 1) {
    c.family = AF_INET6;
    max_prefix = 128;
  } else {
    return std::nullopt;
  }
  c.prefix = max_prefix;
  if (size_t slash = text.find('/'); slash != std::string_view::npos) {
    std::string_view p = text.substr(slash + 1);
    if (p.empty() || p.size() > 3 || p.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    c.prefix = std::stoi(std::string(p));
    if (c.prefix > max_prefix) return std::nullopt;
  }
  return c;
}

bool cidr_contains(const Cidr& block, std::string_view address) {
  unsigned char bytes[16] = {};
  std::string a(address);
  // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
  if (block.family == AF_INET && a.rfind("::ffff:", 0) == 0) a = a.substr(7);
  if (inet_pton(block.family, a.c_str(), bytes) != 1) return false;
  int full = block.prefix / 8, rest = block.prefix % 8;
  if (std::memcmp(bytes, block.bytes, static_cast<size_t>(full)) != 0) return false;
  if (rest == 0) return true;
  unsigned char mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (bytes[full] & mask) == (block.bytes[full] & mask);
}

std::string client_address(std::string_view peer, std::string_view forwarded_for, const std::vector<Cidr>& trusted) {
  auto is_trusted = [&](std::string_view a) {
    return std::any_of(trusted.begin(), trusted.end(), [&](const Cidr& c) { return cidr_contains(c, a); });
  };
  if (trusted.empty() || !is_trusted(peer)) return std::string(peer);
  // Walk right to left: each trusted hop vouches for the one before it.
  std::string_view rest = forwarded_for;
  while (!rest.empty()) {
    size_t comma = rest.rfind(',');
    std::string_view hop = comma == std::string_view::npos ? rest : rest.substr(comma + 1);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(0, comma);
    while (!hop.empty() && (hop.front() == ' ' || hop.front() == '\t')) hop.remove_prefix(1);
    while (!hop.empty() && (hop.back() == ' ' || hop.back() == '\t')) hop.remove_suffix(1);
    if (hop.empty()) continue;
    if (!parse_cidr(hop)) return std::string(peer);  // garbage: believe only the peer
    if (!is_trusted(hop)) return std::string(hop);
  }
  return std::string(peer);
}

bool valid_header_name(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name) {
    if (!(std::isalnum(c) || c == '-' || c == '_')) return false;
  }
  return true;
}

namespace {

std::atomic<size_t>& body_files() {
  static std::atomic<size_t> n{0};
  return n;
}

size_t body_file_cap() {
  static const size_t cap = [] {
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return size_t{4096};
    return static_cast<size_t>(lim.rlim_cur) / BodyFile::kShareOfDescriptors;
  }();
  return cap;
}

}  // namespace

BodyFile::~BodyFile() {
  if (fd >= 0) {
    ::close(fd);
    body_files().fetch_sub(1);
  }
}

std::shared_ptr<const BodyFile> BodyFile::of(const std::string& body) {
  if (body.size() < kMinBytes) return nullptr;
  if (body_files().fetch_add(1) >= body_file_cap()) {
    body_files().fetch_sub(1);
    return nullptr;
  }
  int fd = ::memfd_create("ridge-page", MFD_CLOEXEC);
  if (fd < 0) {
    body_files().fetch_sub(1);
    return nullptr;  // out of descriptors: the page is served by copy
  }
  auto f = std::make_shared<BodyFile>();
  f->fd = fd;
  size_t done = 0;
  while (done < body.size()) {
    ssize_t n = ::write(fd, body.data() + done, body.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return nullptr;  // f closes the descriptor
    done += static_cast<size_t>(n);
  }
  f->data = body.data();
  f->size = body.size();
  return f;
}

void append_header_lines(std::string& head, std::string_view content_type,
                         std::span<const std::pair<std::string, std::string>> headers) {
  head += "Content-Type: ";
  head += content_type;
  head += "\r\n";
  for (const auto& [k, v] : headers) {
    head += k;
    head += ": ";
    head += v;
    head += "\r\n";
  }
}

void append_content_length(std::string& head, size_t bytes) {
  head += "Content-Length: ";
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, bytes);
  head.append(digits, r.ptr);
  head += "\r\n";
}

}  // namespace ridge::web
