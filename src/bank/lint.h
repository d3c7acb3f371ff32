// Prose lint for question files, per ../shared/CONTENT.md: no em dashes, no filler, and no
// figure with a unit that neither comes from a {{reference}} nor carries a [^source].
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bank/question.h"

namespace ridge::bank {

// A figure with a unit found in prose: "80 GB", "$2.50", "40%".
struct Figure {
  size_t offset = 0;
  std::string text;
};

// Every figure with a unit in `prose` (references and inline code must already be removed).
std::vector<Figure> find_figures(std::string_view prose);

// Lints prose that starts at file line `first_line`. References ({{...}}), inline code and
// link destinations are ignored. Appends one diagnostic per problem.
void lint_prose(std::string_view prose, int first_line, const std::string& file, std::vector<Diagnostic>& diags);

// Hand arithmetic: two numbers joined by an operator (×, x, *, /, ÷, +, −, =, ≈) in prose or
// inline code. Formulas in symbols and shapes written glued (128×128) are allowed.
void lint_arithmetic(std::string_view prose, int first_line, const std::string& file, std::vector<Diagnostic>& diags);

// Em dashes anywhere in the file, code included.
void lint_em_dashes(std::string_view text, const std::string& file, std::vector<Diagnostic>& diags);

}  // namespace ridge::bank
