// Practice: reviews scheduled by FSRS (the API and the review page), the due list, progress,
// bookmarks, notes, the dashboard, drills and the readiness check. Each needs a session but
// drills, which a visitor may try (nothing is recorded for them).
#pragma once

#include "web/http.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// POST /api/reviews {"slug","grade"} (CSRF): the graded card.
Response api_review(const Request& req, const Context& ctx);
// GET /api/reviews/due[?all=1]: what is due; with all=1 every card with its state, and the bookmarks.
Response api_due(const Request& req, const Context& ctx);
// GET /api/progress: by track and topic.
Response api_progress(const Request& req, const Context& ctx);
// POST /api/bookmarks {"slug","on"} (CSRF): the bookmarks after the change.
Response api_bookmark(const Request& req, const Context& ctx);
// GET, PUT /api/notes/{slug} (PUT: CSRF, at most 20,000 characters): the note.
Response api_note(const Request& req, const Params& p, const Context& ctx);
// GET, POST /review: the queue (new cards within the daily limit), and a grade from its form.
Response review_page(const Request& req, const Context& ctx);
// GET /dashboard: progress by track and topic, bookmarks, readiness history.
Response dashboard(const Request& req, const Context& ctx);
// GET, POST /drill: a numeric drill from the engine, checked (and for a user recorded on POST).
Response drill(const Request& req, const Context& ctx);
// GET, POST /readiness: the track picker, a timed check (MAC-signed), its score.
Response readiness(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
