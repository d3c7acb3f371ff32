// The HTTP wire format around Beast, for the server (server.cc) and its tests: a parsed request
// into ridge's Request, a Response's status line and headers, the framing rules, a byte limit
// in words.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <boost/beast/http.hpp>

#include "web/hot_answers.h"
#include "web/http.h"

namespace ridge::web {

// "1 MiB (1,048,576 bytes)", "512 bytes": as a reader reads a byte limit; the home widget says
// the same when it refuses an upload itself (issue 33 item 5).
std::string limit_in_words(size_t bytes);

// The request Beast parsed, as ridge's Request (header names lower-cased; the body moved out).
Request to_request(boost::beast::http::request<boost::beast::http::string_body>& in);

// Writes the status line and headers of `res` into `head` (reused per connection).
void serialize_head(const Response& res, unsigned version, bool keep_alive, std::string& head);
// Appends the lines every response begins with: the status line, Server, Date, and Connection
// where the version's default is not what happens.
void append_status_lines(std::string& head, int status, unsigned version, bool keep_alive);

// The quick path (web/quick_request.h): a prepared answer as the full path would write it.
// Writes into `head` the status line, Server, Date, Connection when closing and the prepared
// lines (with `request_id` where the full path sets one; the gzip'd copy when `gzip` and there
// is one); returns the body, and in `file` its memory file when it goes by sendfile.
std::string_view quick_head(const HotAnswer& answer, bool gzip, bool keep_alive, std::string_view request_id,
                            std::string& head, const BodyFile*& file);
// Sends what the socket takes now of `head` then `body` in one gathered send, without waiting
// (MSG_DONTWAIT); returns the bytes sent, and sets `ec` on a failure other than a full socket.
size_t send_gathered(int fd, const std::string& head, std::string_view body, boost::system::error_code& ec);

// Why the request's framing cannot be trusted (RFC 9112), or empty when it is sound.
std::string framing_error(const boost::beast::http::request<boost::beast::http::string_body>& msg);

}  // namespace ridge::web
