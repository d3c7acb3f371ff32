// Plain HTTP request and response values. Handlers see only these, never a socket, so every
// route is unit-tested with a constructed Request. server.cc converts to and from Beast.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ridge::web {

struct Request {
  std::string method = "GET";  // upper case
  std::string target;          // as received: "/calc/fit?model=x"
  std::string path;            // decoded path: "/calc/fit"
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  std::map<std::string, std::string> headers;              // names in lower case
  std::string body;
  std::string remote;  // the peer's address, for rate limits

  // The first value of a query parameter, or nullopt.
  std::optional<std::string> param(std::string_view name) const;
  std::string header(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  // A body owned by someone who outlives the response (the App's pre-rendered pages):
  // served without a copy. When set, it replaces `body`.
  const std::string* shared_body = nullptr;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // Header lines prepared once for a cached page ("Content-Type: ...\r\n...Content-Length: N\r\n"),
  // owned by the App. When set, the server writes them as they are, and `headers` and
  // `content_type` are not used.
  const std::string* prebuilt_headers = nullptr;
  bool head_only = false;  // set by the server for HEAD: Content-Length of the body, no body

  void set(std::string name, std::string value) { headers.emplace_back(std::move(name), std::move(value)); }
  std::string_view view() const { return shared_body ? std::string_view(*shared_body) : std::string_view(body); }
};

// Parses an application/x-www-form-urlencoded body into pairs; false on a bad escape.
bool parse_form(std::string_view body, std::vector<std::pair<std::string, std::string>>& out);
// The value of one cookie from a Cookie header, or empty.
std::string cookie_value(const std::string& cookie_header, std::string_view name);

// Percent-decodes (and '+' to space in query components). nullopt on a malformed escape.
std::optional<std::string> url_decode(std::string_view s, bool plus_is_space);
std::string url_encode(std::string_view s);

// Parses a request target into path and query. nullopt when it is not origin-form or has a
// malformed escape (the caller answers 400).
bool parse_target(std::string_view target, Request& out);

// "Mon, 30 Nov 2026 09:33:13 GMT"
std::string http_date(long long unix_seconds);

std::string_view status_reason(int status);

}  // namespace ridge::web
