#include "web/routes/response.h"

namespace ridge::web::routes {

namespace {

constexpr const char* kCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

}  // namespace

void add_standard_headers(Response& res) {
  res.set("Content-Security-Policy", kCsp);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "strict-origin-when-cross-origin");
  res.set("X-Frame-Options", "DENY");
}

Response plain_error(int status, const std::string& message) {
  Response res;
  res.status = status;
  res.content_type = "text/plain; charset=utf-8";
  res.body = message + "\n";
  add_standard_headers(res);
  return res;
}

Response json(int status, const nlohmann::json& value) {
  Response r = json_text(status, value.dump() + "\n");
  r.set("Cache-Control", "no-store");
  return r;
}

Response json_text(int status, std::string body) {
  Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  return r;
}

Response html(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Response redirect(const std::string& to) {
  Response r;
  r.status = 303;
  r.set("Location", to);
  r.set("Cache-Control", "no-store");
  r.content_type = "text/plain; charset=utf-8";
  r.body = "See " + to + "\n";
  return r;
}

nlohmann::ordered_json error_json(const std::vector<FieldError>& errors) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& e : errors) {
    list.push_back({{"field", e.field}, {"value", e.value}, {"message", e.message}, {"accepted", e.accepted}});
  }
  return {{"errors", std::move(list)}};
}

Response json_error(int status, const std::vector<FieldError>& errors) {
  Response r = json_text(status, error_json(errors).dump(2) + "\n");
  r.set("Cache-Control", "no-store");
  return r;
}

Response json_error(int status, FieldError error) { return json_error(status, std::vector{std::move(error)}); }

}  // namespace ridge::web::routes
