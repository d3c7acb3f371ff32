// Accounts: sign-up and sign-in (the JSON API and the forms that work without script),
// sign-out, the signed-in user's own record, and settings. Sessions are cookies holding a
// 256-bit token (stored hashed); every change of state carries the session's CSRF token.
#pragma once

#include "web/http.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// POST /api/signup, /api/signin {"email","password"}: the session cookie and {"csrf_token"}.
// A registered address gets the same answer as a new one, and its owner a notice by mail.
Response api_signup(const Request& req, const Context& ctx);
Response api_signin(const Request& req, const Context& ctx);
// GET /signup, /signin: the form, with a fresh pre-session token.
Response signup_form(const Request& req, const Context& ctx);
Response signin_form(const Request& req, const Context& ctx);
// POST /signup, /signin: the form's answer (a refusal on the form, or a redirect to ?next=).
Response post_signup(const Request& req, const Context& ctx);
Response post_signin(const Request& req, const Context& ctx);
// POST /signout, /api/signout (CSRF): ends the session.
Response signout(const Request& req, const Context& ctx);
// GET /api/me[?slug=]: the visitor's account, access and, with a slug, that card and bookmark.
Response api_me(const Request& req, const Context& ctx);
// GET, POST /settings: retention, the daily new-card limit, password, verification, deletion.
Response settings(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
