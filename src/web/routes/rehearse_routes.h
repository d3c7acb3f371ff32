// Mock loops (issue 36): start a rehearsal of a company's loop or a track, run it round by
// round (prompt, timer, answer kept, follow-ups one at a time, the worked answer, the rubric),
// and its report. Every route but the start page needs a session; every POST its CSRF token.
// The logic is services/rehearsal.h; the state is the store's (Store::create_rehearsal...).
#pragma once

#include <string>

#include "web/http.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /rehearse?company=ID or ?track=ID: what the loop holds and the start button (the
// company and track pages are the same for everyone, so the CSRF form lives here).
Response rehearse_start(const Request& req, const Context& ctx);
// POST /companies/{id}/rehearse, POST /tracks/{id}/rehearse (CSRF): 303 to round 1.
Response rehearse_company(const Request& req, const Params& p, const Context& ctx);
Response rehearse_track(const Request& req, const Params& p, const Context& ctx);
// GET /rehearsals/{id}[?f=N]: the current round (N follow-ups shown) or, when done, the report.
// POST /rehearsals/{id} (CSRF): action=answer (round, answer) or action=score (round, d, p, c, n).
Response rehearsal_page(const Request& req, const Params& p, const Context& ctx);
// GET /api/rehearsals/{id}: its state and, when finished, the report.
Response api_rehearsal(const Request& req, const Params& p, const Context& ctx);
// The dashboard's section: past rehearsals with the trend per rubric line ("" when none).
std::string rehearsals_dashboard_html(const Context& ctx, int64_t user_id);

}  // namespace ridge::web::routes
