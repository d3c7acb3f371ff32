// The OpenAPI 3.1 description of the JSON API (/api/openapi.json), made from what serves it:
// the route table (each JSON route's method and pattern, so a route without a description, or
// a description without a route, fails openapi_test) and the calculator registry (each
// calculator a path with its parameters' types, units, ranges, choices and defaults, and a
// worked example response the engine computed). OpenAPI 3.1 schemas are JSON Schema 2020-12
// (https://spec.openapis.org/oas/v3.1.0#schema-object).
//
// validate_json() checks an instance against the subset of JSON Schema 2020-12 this document
// uses (type with arrays of types, properties, required, additionalProperties, items, enum,
// minimum, maximum, $ref to #/components/schemas/...): no npm validator is installed in
// tests/e2e and none is needed for a subset this small.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bank/bank.h"
#include "calc/registry.h"

namespace ridge::web::exports {

struct RouteEntry {
  std::string method, pattern;
};

// A route is part of the JSON API when its pattern starts with /api/.
bool is_json_route(const std::string& pattern);

// The document for `routes` (the App's table). Routes the description does not know are
// listed under "x-undescribed" (openapi_test fails on any).
nlohmann::ordered_json openapi_document(const std::vector<RouteEntry>& routes, const calc::Registry& registry,
                                        const calc::Catalog& catalog, const bank::Bank& bank);

// Every way `instance` breaks `schema` ("$.results.kv: expected number, got string"); empty
// when it conforms. `root` is the document that $refs point into.
std::vector<std::string> validate_json(const nlohmann::json& instance, const nlohmann::json& schema,
                                       const nlohmann::json& root, const std::string& where = "$");

// The OpenAPI path of a concrete request path ("/api/calc/fit" -> "/api/calc/fit",
// "/api/questions/x" -> "/api/questions/{slug}"), or "" when the document has none.
std::string openapi_path_for(const nlohmann::json& doc, const std::string& path);

}  // namespace ridge::web::exports
