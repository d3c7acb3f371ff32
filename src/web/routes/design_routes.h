// Design rounds on the site (issue 35): the challenges by track and difficulty, a challenge's
// page (scenario, objectives, an optional timer, a form that works without JavaScript, the
// board), the verdict page, and the JSON API that answers as `ridge design --json` prints.
// Anyone may have a design graded; a signed-in candidate's graded designs are kept (the form's
// POST carries the session's CSRF token).
#pragma once

#include "web/http.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /design: the challenges by track, then difficulty.
Response design_index(const Request& req, const Context& ctx);
// GET /design/{id}: the challenge and its form (the candidate's last submission filled in, or
// blank); POST /design/{id}: the form graded, the verdict above the form, kept when signed in.
Response design_page(const Request& req, const Params& p, const Context& ctx);
// POST /api/design/{id} {"field": value, ...}: the verdict JSON (nothing kept).
Response api_design(const Request& req, const Params& p, const Context& ctx);

}  // namespace ridge::web::routes
