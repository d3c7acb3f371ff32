// Courses: one per track, ordered modules. A visitor without a session gets the page cached at
// start-up; a signed-in user the same page with their progress and where to resume.
#pragma once

#include "web/http.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /courses/{id}.
Response course(const Request& req, const Params& p, const Context& ctx);

}  // namespace ridge::web::routes
