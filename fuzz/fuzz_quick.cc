// Differential fuzzing of the server's quick path (web/quick_request.h) against Beast, the
// parser of the full path: whatever quick_parse takes, Beast must read as the same request
// (GET, HTTP/1.1, the same target and head length, the same keep-alive, sound framing by
// framing_error, no Cookie or If-None-Match, the same Accept-Encoding verdict), so that a
// request can never mean one thing to the quick path and another to the full one.
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "web/gzip.h"
#include "web/quick_request.h"
#include "web/wire.h"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  constexpr size_t kLimit = 16 * 1024;
  ridge::web::QuickRequest q;
  if (!ridge::web::quick_parse(in, kLimit, q)) return 0;
  http::request_parser<http::string_body> parser;
  parser.header_limit(kLimit);
  parser.eager(true);
  boost::beast::error_code ec;
  size_t used = parser.put(boost::asio::buffer(in.data(), q.length), ec);
  if (ec || !parser.is_header_done() || !parser.is_done() || used != q.length) std::abort();
  const auto& msg = parser.get();
  if (msg.method() != http::verb::get || msg.version() != 11 || msg.target() != q.target) std::abort();
  if (msg.keep_alive() == q.close) std::abort();
  if (!ridge::web::framing_error(msg).empty()) std::abort();
  if (msg.count(http::field::cookie) || msg.count(http::field::if_none_match) || msg.has_content_length() || msg.chunked()) {
    std::abort();
  }
  if (ridge::web::accepts_gzip(msg[http::field::accept_encoding]) != q.accepts_gzip) std::abort();
  if (q.path != q.target.substr(0, q.target.find('?')) || q.path.find('%') != std::string_view::npos) std::abort();
  return 0;
}
