#include "web/routes/context.h"

#include "web/wording.h"

#include "account/security.h"
#include "bank/loader.h"
#include "web/log.h"
#include "web/routes/response.h"

namespace ridge::web::routes {

std::string form_value(const Form& form, const std::string& key) {
  for (const auto& [k, v] : form) {
    if (k == key) return v;
  }
  return {};
}

std::string pre_cookie(const Context& ctx, const std::string& token) {
  return std::string(kPreCookie) + "=" + token + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600" +
         (ctx.options.secure_cookies ? "; Secure" : "");
}

Response page(const Context& ctx, const std::string& path) {
  const CachedPage* found = nullptr;
  std::shared_ptr<const CachedPage> lazy;
  if (auto it = ctx.pages.find(path); it != ctx.pages.end()) {
    found = &it->second;
  } else {
    // A question page, or a page that lists questions (issue 30): rendered on first request;
    // the renderer knows no other path, and nothing is kept for one.
    lazy = ctx.question_pages.get(path);
    found = lazy.get();
  }
  if (found == nullptr) {
    Request req;
    req.path = path;
    return error(req, ctx, 404, "There is no page at " + path + ".");
  }
  Response r;
  r.shared_body = &found->body;
  r.prebuilt_headers = &found->head;
  if (!found->personal_head.empty()) r.prebuilt_personal_headers = &found->personal_head;
  r.owner = std::move(lazy);  // an eviction while the page is written does not free it
  r.set("ETag", found->etag);
  if (!found->gzip.body.empty()) r.gzip = &found->gzip;
  r.file = found->file.get();
  r.shareable = true;
  return r;
}

Response error(const Request& req, const Context& ctx, int status, const std::string& message) {
  if (req.path.rfind("/api/", 0) == 0) {
    return json_error(status, {"", "", message, ""});
  }
  Response r;
  r.status = status;
  r.body = error_page(ctx.site(), status, message);
  return r;
}

std::string answer_html(const Context& ctx, const bank::Question& q) {
  auto kept = ctx.question_pages.get(std::string(kAnswerKey) + q.slug);
  return kept ? kept->body : bank::answer_html(q, ctx.registry, ctx.catalog);
}

Response store_unavailable(const Request& req, const Context& ctx, const std::string& why) {
  log::error("store error on " + req.method + " " + req.path + ": " + why);
  Response r = req.path.rfind("/api/", 0) == 0 ? json_error(503, {"", "", "the database is unavailable; try again in a few seconds", ""})
                                               : error(req, ctx, 503, "The database is unavailable; try again in a few seconds.");
  r.set("Retry-After", "5");
  return r;
}

int failure_status(const Failure& f) {
  using Kind = Failure::Kind;
  switch (f.kind) {
    case Kind::kInvalid: return 400;
    case Kind::kUnauthorized: return 401;
    case Kind::kForbidden: return 403;
    case Kind::kConflict: return 409;
    case Kind::kLimited: return 429;
    case Kind::kInternal: return 500;
    case Kind::kUpstream: return 502;
    case Kind::kUnavailable: return 503;
  }
  return 500;
}

Response failure(const Request& req, const Context& ctx, const Failure& f) {
  using Kind = Failure::Kind;
  if (f.kind == Kind::kUnavailable) return store_unavailable(req, ctx, f.detail);
  if (f.kind == Kind::kUpstream) log::error(f.detail);
  int status = failure_status(f);
  Response r = req.path.rfind("/api/", 0) == 0 ? json_error(status, f.errors) : error(req, ctx, status, f.message());
  if (f.retry_after > 0) r.set("Retry-After", std::to_string(f.retry_after));
  return r;
}

std::vector<FieldError> field_errors(const calc::Errors& errors) {
  std::vector<FieldError> out;
  for (const auto& e : errors) {
    // In the web's words: the fields are named without the command line's dashes.
    std::string message = (e.value.empty() ? "" : "'" + e.value + "' ") + without_flags(e.message) +
                          (e.accepted.empty() ? "" : "; accepted: " + without_flags(e.accepted));
    out.push_back({e.field, e.value, std::move(message), without_flags(e.accepted)});
  }
  return out;
}

services::Visitor visitor(const Request& req, const Context& ctx) {
  if (ctx.accounts == nullptr) return {};
  auto v = ctx.accounts->visitor(cookie_value(req.header("cookie"), kSessionCookie));
  // A store that does not answer is the server's failure, not an anonymous visitor: 503.
  if (!v) throw StoreUnavailable(v.error().detail);
  return std::move(v).value();
}

bool csrf_ok(const Request& req, const services::Visitor& v, const std::string& form_token) {
  std::string given = !form_token.empty() ? form_token : req.header("x-csrf-token");
  return v.user_id != 0 && account::equal_tokens(given, v.csrf);
}

std::optional<Response> read_post_form(const Request& req, const services::Visitor& v, Form& form) {
  if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
  if (!csrf_ok(req, v, form_value(form, "csrf"))) return plain_error(403, "missing or wrong CSRF token");
  return std::nullopt;
}

Response start_session(const Context& ctx, int64_t user_id, bool as_json, const std::string& next) {
  auto session = ctx.accounts->start_session(user_id);
  if (!session) throw StoreUnavailable("start_session: " + session.error().detail);
  Response r = as_json ? json(200, nlohmann::json{{"csrf_token", session->csrf}}) : redirect(safe_next(next));
  r.set("Set-Cookie", std::string(kSessionCookie) + "=" + session->token + "; Path=/; HttpOnly; SameSite=Lax; Max-Age=" +
                          std::to_string(services::kSessionSeconds) + (ctx.options.secure_cookies ? "; Secure" : ""));
  return r;
}

std::optional<int64_t> access_until(const Context& ctx, int64_t user_id) {
  auto until = ctx.billing.access_until(user_id);
  if (!until.ok()) return std::nullopt;
  return *until;
}

std::string client_address(const Request& req, const Context& ctx) {
  return web::client_address(req.remote, req.header("x-forwarded-for"), ctx.trusted_proxies);
}

}  // namespace ridge::web::routes
