// Calculators: the pages (forms generated from the registry, a derivation or the errors next
// to their fields), their diagrams, and the calculator API (GET from the query, POST with a
// config.json), whose answers and refusals are kept in the shared calculator cache.
#pragma once

#include <memory>
#include <string>

#include "web/http.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /calc/{name}?...: the example page as cached without a query, else rendered.
Response calc_page(const Request& req, const Params& p, const Context& ctx);
// GET /calc/{name}/diagram.svg?...: the calculator's diagram, standalone SVG.
Response calc_diagram(const Request& req, const Params& p, const Context& ctx);
// GET /api/calc: the registry, each calculator with its parameters and results.
Response api_calc_list(const Request& req, const Context& ctx);
// GET /api/calc/{name}?...: byte for byte what `ridge calc NAME ... --json` prints, or 400
// with field errors; both kept in the calculator cache under the decoded inputs.
Response api_calc(const Request& req, const Params& p, const Context& ctx);
// POST /api/calc/{name} {"config": {...}, "gpu": ..., ...}: a model sized from its own
// config.json, parsed by the engine (never read from disk). Not cached.
Response api_calc_post(const Request& req, const Params& p, const Context& ctx);

// The cached answer (or refusal) that api_calc would send for `req`, or nullptr: whether the
// I/O thread may answer it (Dispatch::kInlineWhenCached).
std::shared_ptr<const std::string> cached_calc_answer(const Request& req, const Params& p, const Context& ctx);

}  // namespace ridge::web::routes
