// Percent-encoding for URLs (RFC 3986 unreserved characters kept), header-only so the mail
// library's links and the web layer's share one encoder without a link dependency.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ridge::web {

inline std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace ridge::web
