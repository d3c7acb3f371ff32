// Health and metrics: liveness, readiness (content loaded, database reachable) and the
// Prometheus text, the last for the operator's network only.
#pragma once

#include "web/http.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /healthz: "ok" while the process answers.
Response healthz(const Request& req, const Context& ctx);
// GET /readyz: 200 when content is loaded and the database (if any) answers, else 503.
Response readyz(const Request& req, const Context& ctx);
// GET /metrics: to loopback, private (RFC 1918, ULA) and trusted-proxy addresses; 404 to
// anyone else, as for a page that does not exist.
Response metrics(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
