#include "web/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace ridge::web {

std::string gzip_compress(std::string_view data) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream (zlib.h).
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2 failed");
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);  // deflateBound's room: one call finishes
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// The weight of a coding's parameters (";q=0.5"): 1 when absent, 0 when malformed (RFC 9110's
// qvalue is 0 to 1 with at most three decimals; anything else is not an acceptance).
double weight(std::string_view params) {
  while (!params.empty()) {
    size_t semi = params.find(';');
    std::string_view p = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (p.size() < 2 || std::tolower(static_cast<unsigned char>(p[0])) != 'q' || p[1] != '=') continue;
    std::string value(trim(p.substr(2)));
    if (value.empty() || value.size() > 5) return 0;
    char* end = nullptr;
    double q = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size() || q < 0 || q > 1) return 0;
    return q;
  }
  return 1;
}

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  std::optional<double> gzip, star;
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    size_t semi = item.find(';');
    std::string_view coding = trim(item.substr(0, semi));
    double q = weight(semi == std::string_view::npos ? std::string_view() : item.substr(semi + 1));
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
      gzip = gzip ? std::max(*gzip, q) : q;
    } else if (coding == "*") {
      star = q;
    }
  }
  if (gzip) return *gzip > 0;
  return star && *star > 0;
}

}  // namespace ridge::web
