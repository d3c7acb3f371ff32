// Courses: content/courses/ID.toml, one per track, an ordered path of modules. Each module's
// concepts, questions, drills and calculator exercise are checked against the loaded bank.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bank/bank.h"
#include "bank/loader.h"
#include "calc/registry.h"

namespace ridge::bank {

// Parses a course and checks every reference against `bank` (questions loaded), the
// registry and, when given, the drill template ids. The exercise is evaluated once.
Course parse_course(std::string_view text, const std::string& id, const std::string& file, const Bank& bank,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    std::vector<Diagnostic>& diags);

}  // namespace ridge::bank
