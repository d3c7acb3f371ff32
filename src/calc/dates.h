// Dates as a reader reads them (issue 33: "dates in words"): the catalog and the content keep
// ISO dates (sortable, unambiguous), the HTML a visitor reads says "1 March 2022".
#pragma once

#include <string>
#include <string_view>

namespace ridge::calc {

// "2026-11-30" as "30 November 2026"; anything that is not an ISO date as it is.
std::string date_in_words(std::string_view iso);
// Every ISO date standing alone in the prose of `text` in words ("a post, 2025-09-25" -> "a post,
// 25 September 2025"): after a space or "(", before a space, punctuation or the end. A date
// inside a URL or an id stays as it is.
std::string dates_in_words(std::string_view text);

}  // namespace ridge::calc
