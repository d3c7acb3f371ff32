// The server's quick path (issue 30): a strict reader for the one request shape that a cached
// answer serves, a bodyless anonymous GET, so that such a request skips Beast's parser, the
// Request it fills, the router and the handler.
//
// It accepts a strict subset of what Beast and framing_error accept, and says "not mine" for
// everything else, which then takes the full path exactly as before: only GET (not HEAD), only
// HTTP/1.1, CRLF line ends, header names that are tokens and values of visible ASCII, space and
// tab, exactly one Host, no Content-Length, Transfer-Encoding, Cookie, If-None-Match, Expect,
// Upgrade or a Connection other than keep-alive or close, no header named twice among those it
// reads, no obs-fold, and the whole head within the header limit. A request it takes is one
// whose answer depends on its target and on whether it accepts gzip, and on nothing else.
#pragma once

#include <cstddef>
#include <string_view>

namespace ridge::web {

struct QuickRequest {
  std::string_view target;  // as received: "/q/slug?x=1"
  std::string_view path;    // the target up to '?', never percent-escaped (such a path is not taken)
  bool accepts_gzip = false;
  bool close = false;   // Connection: close
  size_t length = 0;    // bytes of the head, the blank line included (what to consume)
};

// True when `bytes` begins with a complete head of the shape above (`out` filled); false
// when it does not, is incomplete, or is anything else: the caller then parses it fully.
bool quick_parse(std::string_view bytes, size_t header_limit, QuickRequest& out);

}  // namespace ridge::web
