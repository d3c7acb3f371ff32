// The HTTP wire format around Beast, for the server (server.cc) and its tests: a parsed request
// into ridge's Request, a Response's status line and headers, the framing rules, a byte limit
// in words.
#pragma once

#include <cstddef>
#include <string>

#include <boost/beast/http.hpp>

#include "web/http.h"

namespace ridge::web {

// "1 MiB (1,048,576 bytes)", "512 bytes": as a reader reads a byte limit; the home widget says
// the same when it refuses an upload itself (issue 33 item 5).
std::string limit_in_words(size_t bytes);

// The request Beast parsed, as ridge's Request (header names lower-cased; the body moved out).
Request to_request(boost::beast::http::request<boost::beast::http::string_body>& in);

// Writes the status line and headers of `res` into `head` (reused per connection).
void serialize_head(const Response& res, unsigned version, bool keep_alive, std::string& head);

// Why the request's framing cannot be trusted (RFC 9112), or empty when it is sound.
std::string framing_error(const boost::beast::http::request<boost::beast::http::string_body>& msg);

}  // namespace ridge::web
