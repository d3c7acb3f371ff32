// Mail: the weekly question's subscription (double opt-in), one-click unsubscribe (RFC 8058),
// email verification and password reset. Every mail is queued in the store and sent by the
// Sender off the request path, so a slow or dead SMTP server never slows a page. Links are
// signed (mail::LinkSigner); account links also carry a random, single-use, 30-minute token
// that the store keeps hashed.
#pragma once

#include "web/http.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// POST /api/subscribe {"email"} (JSON only): 202, the same answer for any address.
Response api_subscribe(const Request& req, const Context& ctx);
// GET, POST /subscribe: the form (a pre-session token) and its answer.
Response subscribe_page(const Request& req, const Context& ctx);
// GET /subscribe/confirm: a button (mail scanners follow links); POST confirms.
Response subscribe_confirm(const Request& req, const Context& ctx);
// GET /unsubscribe: a button; POST (also RFC 8058's one-click) unsubscribes.
Response unsubscribe(const Request& req, const Context& ctx);
// GET /verify: a button; POST spends the token and marks the address verified.
Response verify_email(const Request& req, const Context& ctx);
// GET, POST /reset: the form; a link by mail when an account uses the address (the same answer either way).
Response reset_request(const Request& req, const Context& ctx);
// GET, POST /reset/confirm: the new password, then a session.
Response reset_confirm(const Request& req, const Context& ctx);
Response signin_link(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
