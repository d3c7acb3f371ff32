// Work it on the site (issue 34): a question's chain with new inputs, one form per step (no
// JavaScript needed), and the JSON API beside it. Signed-in only; a paid question follows the
// paid rules (402 without access). Every POST carries the session's CSRF token.
#pragma once

#include "web/http.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /q/{slug}/work starts an exercise; POST /q/{slug}/work grades a step (form fields seed,
// sig, step, answer, csrf) and shows the exercise again with every grade so far.
Response work_page(const Request& req, const Params& p, const Context& ctx);
// POST /api/work/{slug}: a new exercise {slug, seed, signature, prompt, inputs, steps}.
Response api_work_start(const Request& req, const Params& p, const Context& ctx);
// POST /api/work/{slug}/{seed}/grade {"signature", "step", "answer"}: the step's grade, and at
// the end the schedule the question got.
Response api_work_grade(const Request& req, const Params& p, const Context& ctx);

// The dashboard's "mistakes by kind" section ("" when the user has none or the store failed):
// each named mistake, how often, when last, and a question to practise it.
std::string work_mistakes_section(const Context& ctx, int64_t user_id);
// The drills page's set aimed at the user's most frequent named mistake ("" when none): the
// mistake, how often and when last, and Work it links to questions whose chain it applies to
// (the question where they made it first).
std::string work_mistake_set_section(const Context& ctx, int64_t user_id);

}  // namespace ridge::web::routes
