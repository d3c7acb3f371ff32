// Company pages: content/companies/ID.toml parsed and checked. A page holds the loop as
// publicly reported, round by round, each round with a confidence level and sources, and
// the bank questions that match, each tagged with the source that justifies the tag.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bank/loader.h"
#include "bank/question.h"

namespace ridge::bank {

// Parses one company file. Ids of tracks and topics are checked against `known`; question
// slugs are checked later (load_bank), once the questions are loaded.
Company parse_company(std::string_view text, const std::string& id, const std::string& file, const KnownIds& known,
                      std::vector<Diagnostic>& diags);

}  // namespace ridge::bank
