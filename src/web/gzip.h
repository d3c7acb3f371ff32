// Cached pages gzip'd once and served with Content-Encoding: gzip to the clients that accept
// it (issue 30, item 3), as nginx's gzip_static serves a page's .gz beside it: the same bytes
// compressed ahead of time, Vary: Accept-Encoding on both, an ETag per encoding.
#pragma once

#include <string>
#include <string_view>

namespace ridge::web {

// `data` as a gzip member (RFC 1952; zlib's deflate at level 6, its default, the level
// nginx's gzip module documents as a good trade of bytes for time).
std::string gzip_compress(std::string_view data);

// Whether an Accept-Encoding value accepts gzip (RFC 9110 section 12.5.3): "gzip" or
// "x-gzip" with a q above 0, or "*" with a q above 0 when gzip is not named. q=0 refuses;
// an empty or absent header accepts only identity. Codings are case-insensitive. Reads at
// most the header's own length.
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace ridge::web
