// The one way a route answers: JSON, HTML, a redirect, and the one JSON error shape,
//   {"errors": [{"field": ..., "value": ..., "message": ..., "accepted": ...}]}
// used by every route (the API, the calculators, billing, mail). Pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "web/http.h"
#include "common/result.h"

namespace ridge::web::routes {

// `value` serialized once (compact), a newline after it; Cache-Control: no-store, as an
// answer about an account must not be kept.
Response json(int status, const nlohmann::json& value);
// The same for a body serialized already (a cached derivation): no Cache-Control added.
Response json_text(int status, std::string body);
Response html(int status, std::string body);
// 303 See Other to `to` (a local path or the provider's URL; App::handle refuses CR and LF).
Response redirect(const std::string& to);
// A plain-text error with the standard headers (a malformed form, a refused header).
Response plain_error(int status, const std::string& message);
// The headers every answer carries (Content-Security-Policy, nosniff, the referrer policy,
// no framing), unless its route set its own policy (an SVG's inline style).
void add_standard_headers(Response& res);

// The error shape as a value, for an answer that adds keys next to "errors" (402's price).
nlohmann::ordered_json error_json(const std::vector<FieldError>& errors);
// 400, 401, 403, 404, ...: the error shape, indented, with a newline.
Response json_error(int status, const std::vector<FieldError>& errors);
Response json_error(int status, FieldError error);

}  // namespace ridge::web::routes
