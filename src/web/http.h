// Plain HTTP request and response values. Handlers see only these, never a socket, so every
// route is unit-tested with a constructed Request. server.cc converts to and from Beast.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "web/url_encode.h"

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

// A cached page's gzip'd copy (web/gzip.h): its bytes, its ETag and its header block, for a
// client that accepts gzip. Owned with the page.
struct GzipVariant {
  std::string body, etag, head;
};

// A large cached body's bytes also in a memory file (memfd), which the server sends with
// sendfile(2): the kernel reads them from the file's pages instead of copying them out of ours,
// as nginx does for a static file (issue 30: the copy was about a tenth of the CPU a 90 KB page
// costs). `data` and `size` name the string it copies (a heap string keeps its bytes where they
// are when moved); the server uses the file only while the response's body is still those very
// bytes, so a handler that replaces the body can never send the file's.
struct BodyFile {
  static constexpr size_t kMinBytes = 16 * 1024;
  // At most this share of the process's descriptor limit is held by memory files, so a large
  // page cache never takes the descriptors new connections need; past it pages go by copy.
  static constexpr size_t kShareOfDescriptors = 4;
  int fd = -1;
  const char* data = nullptr;
  size_t size = 0;
  BodyFile() = default;
  BodyFile(const BodyFile&) = delete;
  BodyFile& operator=(const BodyFile&) = delete;
  ~BodyFile();
  // Null for a body under kMinBytes, past the descriptor share, or when no memory file can be
  // made (the copy path serves).
  static std::shared_ptr<const BodyFile> of(const std::string& body);
};

struct Response {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  // A body owned by someone who outlives the response (the App's pre-rendered pages):
  // served without a copy. When set, it replaces `body`.
  const std::string* shared_body = nullptr;
  // A body shared with a cache (ResponseCache): the response holds it, so an eviction while
  // it is written does not free it. When set, it replaces `body` and `shared_body`.
  std::shared_ptr<const std::string> held_body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // Header lines prepared once for a cached page ("Content-Type: ...\r\n...Content-Length: N\r\n"),
  // owned by the App. When set, the server writes them as they are, and `headers` and
  // `content_type` are not used.
  const std::string* prebuilt_headers = nullptr;
  // The same block as a personal response sends it (Cache-Control: private, no-store and Vary:
  // Cookie, no ETag), prepared with it: marking a cached page personal then costs no copy.
  const std::string* prebuilt_personal_headers = nullptr;
  // Owns what shared_body and the prebuilt header blocks point to when a bounded cache holds
  // them (a question page rendered on first request, routes/lazy_pages.h): an eviction while
  // the response is written does not free them.
  std::shared_ptr<const void> owner;
  // The same page gzip'd (a cached page): App::handle sends it instead, with its header block
  // and ETag, to an anonymous client whose Accept-Encoding accepts gzip.
  const GzipVariant* gzip = nullptr;
  // The body in a memory file, for sendfile (see BodyFile; the owner or the App keeps it).
  const BodyFile* file = nullptr;
  bool head_only = false;  // set by the server for HEAD: Content-Length of the body, no body
  // The response depends on who asks (a session, a signed-in page, a paid answer). App::handle
  // then sends "Cache-Control: private, no-store" and "Vary: Cookie", whatever the handler
  // or a cached page's prebuilt headers said: one mechanism, which nothing overrides.
  bool personal = false;
  // The answer depends on the target alone for every visitor without a session (a cached
  // page, a kept calculator or search answer): App::handle may then prepare it for the
  // server's quick path (web/hot_answers.h). Set only where the body comes from such a cache.
  bool shareable = false;

  void set(std::string name, std::string value) { headers.emplace_back(std::move(name), std::move(value)); }
  std::string_view view() const {
    if (held_body) return *held_body;
    return shared_body ? std::string_view(*shared_body) : std::string_view(body);
  }
};

// Parses an application/x-www-form-urlencoded body into pairs; false on a bad escape.
bool parse_form(std::string_view body, std::vector<std::pair<std::string, std::string>>& out);
// The value of one cookie from a Cookie header, or empty.
std::string cookie_value(const std::string& cookie_header, std::string_view name);

// Percent-decodes (and '+' to space in query components). nullopt on a malformed escape.
std::optional<std::string> url_decode(std::string_view s, bool plus_is_space);

// Parses a request target into path and query. nullopt when it is not origin-form or has a
// malformed escape (the caller answers 400).
bool parse_target(std::string_view target, Request& out);

// "Mon, 30 Nov 2026 09:33:13 GMT"
std::string http_date(long long unix_seconds);

std::string_view status_reason(int status);

// Header lines as they go on the wire, for a response without a prebuilt block: Content-Type,
// then `headers` in order; and the Content-Length line (web/wire.cc serialize_head, and the
// quick path's prepared answers, App::prepare_hot, write them alike).
void append_header_lines(std::string& head, std::string_view content_type,
                         std::span<const std::pair<std::string, std::string>> headers);
void append_content_length(std::string& head, size_t bytes);

// `next` when it is a path on this site that is safe to redirect to, else `fallback`.
std::string safe_next(std::string_view next, std::string_view fallback = "/dashboard");

// Header names are tokens; values hold no CR, LF, NUL or other control byte (tab allowed).
// The server refuses to send a response whose headers fail these (a 500 instead).
bool valid_header_value(std::string_view value);
bool valid_header_name(std::string_view name);

// An address block such as "10.0.0.0/8" or "::1/128" (a bare address is /32 or /128).
struct Cidr {
  int family = 0;  // AF_INET or AF_INET6
  unsigned char bytes[16] = {};
  int prefix = 0;
};
// nullopt when `text` is not an address or block.
std::optional<Cidr> parse_cidr(std::string_view text);
bool cidr_contains(const Cidr& block, std::string_view address);

// The client of a request: `peer` unless it is a trusted proxy, in which case the last
// address of `forwarded_for` (X-Forwarded-For, appended left to right) that is not trusted.
std::string client_address(std::string_view peer, std::string_view forwarded_for, const std::vector<Cidr>& trusted);

}  // namespace ridge::web
