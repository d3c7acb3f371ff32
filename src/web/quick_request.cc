#include "web/quick_request.h"

#include "web/gzip.h"

namespace ridge::web {

namespace {

// RFC 9110 tchar.
bool is_tchar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

bool iequals(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

}  // namespace

bool quick_parse(std::string_view bytes, size_t header_limit, QuickRequest& out) {
  constexpr std::string_view kMethod = "GET /";
  if (bytes.size() < kMethod.size() || bytes.substr(0, kMethod.size()) != kMethod) return false;
  // The head must be complete in what was read, and within the limit.
  const size_t end = bytes.substr(0, header_limit > 0 ? header_limit - 1 : 0).find("\r\n\r\n");
  if (end == std::string_view::npos) return false;
  const std::string_view head = bytes.substr(0, end + 2);  // every line with its CRLF
  size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  constexpr std::string_view kVersion = " HTTP/1.1";
  if (line.size() <= 4 + kVersion.size() || line.substr(line.size() - kVersion.size()) != kVersion) return false;
  const std::string_view target = line.substr(4, line.size() - 4 - kVersion.size());
  size_t question = target.size();
  for (size_t i = 0; i < target.size(); ++i) {
    const auto c = static_cast<unsigned char>(target[i]);
    if (c <= 0x20 || c >= 0x7f) return false;
    if (c == '?' && question == target.size()) question = i;
    if (c == '%' && i < question) return false;  // a path to decode: the full path logs it decoded
  }
  int hosts = 0, encodings = 0, connections = 0;
  bool gzip = false, close = false;
  size_t at = line_end + 2;
  while (at < head.size()) {
    line_end = head.find("\r\n", at);
    line = head.substr(at, line_end - at);
    at = line_end + 2;
    const size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) return false;  // also an obs-fold: it starts with a space
    const std::string_view name = line.substr(0, colon);
    for (char c : name) {
      if (!is_tchar(static_cast<unsigned char>(c))) return false;
    }
    const std::string_view value = trim(line.substr(colon + 1));
    for (char ch : value) {
      const auto c = static_cast<unsigned char>(ch);
      if ((c < 0x20 && c != '\t') || c >= 0x7f) return false;
    }
    switch (name.size()) {
      case 4:
        if (iequals(name, "host")) ++hosts;
        break;
      case 6:
        if (iequals(name, "cookie") || iequals(name, "expect")) return false;
        break;
      case 7:
        if (iequals(name, "upgrade")) return false;
        break;
      case 10:
        if (iequals(name, "connection")) {
          if (++connections > 1) return false;
          if (iequals(value, "close")) {
            close = true;
          } else if (!iequals(value, "keep-alive")) {
            return false;
          }
        }
        break;
      case 13:
        if (iequals(name, "if-none-match")) return false;
        break;
      case 14:
        if (iequals(name, "content-length")) return false;
        break;
      case 15:
        if (iequals(name, "accept-encoding")) {
          if (++encodings > 1) return false;
          gzip = accepts_gzip(value);
        }
        break;
      case 17:
        if (iequals(name, "transfer-encoding")) return false;
        break;
      default:
        break;
    }
  }
  if (hosts != 1) return false;
  out.target = target;
  out.path = target.substr(0, question);
  out.accepts_gzip = gzip;
  out.close = close;
  out.length = end + 4;
  return true;
}

}  // namespace ridge::web
