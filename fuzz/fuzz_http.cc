// Fuzzes the HTTP edge's own parsers: the request target (path and query), form bodies,
// cookies, the next-path check, header-value checks, the client address behind proxies and
// the search query builder. Whatever comes in, each returns a value or a refusal, never a
// crash, a hang or a header value with CR or LF.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "web/http.h"
#include "web/search.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  ridge::web::Request req;
  if (ridge::web::parse_target(in, req)) {
    (void)req.param("q");
    for (const auto& [k, v] : req.query) (void)ridge::web::url_encode(k + v);
  }
  std::vector<std::pair<std::string, std::string>> form;
  (void)ridge::web::parse_form(in, form);
  (void)ridge::web::cookie_value(std::string(in), "ridge_session");
  std::string next = ridge::web::safe_next(in);
  if (!ridge::web::valid_header_value(next)) std::abort();  // a redirect target is always a safe header value
  (void)ridge::web::valid_header_name(in);
  static const std::vector<ridge::web::Cidr> trusted = {*ridge::web::parse_cidr("127.0.0.1/32"), *ridge::web::parse_cidr("::1/128")};
  std::string client = ridge::web::client_address("127.0.0.1", in, trusted);
  if (client.empty()) std::abort();
  (void)ridge::web::parse_cidr(in);
  std::string fts = ridge::web::fts_query(std::string(in));
  size_t quotes = 0;
  for (char c : fts) quotes += c == '"';
  if (quotes > 2 * ridge::web::SearchIndex::kMaxTerms) std::abort();  // the term cap holds
  return 0;
}
