// The body of a question: fenced blocks split from the prose, calc calls parsed, references
// substituted, and Markdown rendered to HTML with md4c (GitHub dialect: tables, no raw HTML).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bank/question.h"
#include "calc/derivation.h"

namespace ridge::bank {

struct Block {
  bool fenced = false;
  std::string info;  // the fence's info string ("calc id=kv", "cpp run"); empty for prose
  std::string text;  // the prose, or the fence's content
  int line = 0;      // file line of the first line of `text` (1-based)
};

// Splits a body into prose and fenced blocks. `first_line` is the file line of the body's
// first line. An unclosed fence is reported and closes at the end of the body.
std::vector<Block> split_blocks(std::string_view body, int first_line, const std::string& file,
                                std::vector<Diagnostic>& diags);

// "fit model=x gpu=y" -> name "fit" and the key/value pairs. Values may be double-quoted.
struct CalcCall {
  std::string calculator;
  std::map<std::string, std::string, std::less<>> args;
};
bool parse_call(std::string_view text, CalcCall& call, std::string& error);

// Replaces every {{id.key[:target[:decimals]]}} in `text` using `results`. Unknown ids, keys
// or targets are reported at their line (`first_line` is the line of text's first line);
// the reference is left visible as "{{...}}" so the page shows what is wrong.
// With `raw`, values are written unformatted (for use inside calc calls).
std::string substitute_references(std::string_view text, const std::map<std::string, const calc::Derivation*>& results,
                                  int first_line, const std::string& file, std::vector<Diagnostic>& diags,
                                  bool raw = false);

// Markdown to HTML (md4c, GitHub dialect, raw HTML escaped).
std::string markdown_to_html(std::string_view markdown);

// One line of Markdown (a TL;DR, a summary) as inline HTML: code spans, emphasis and links
// rendered, no enclosing paragraph, footnote markers ([^key]) dropped (a line has no notes to
// point to). Issue 33 item 7: 80 TL;DRs showed their backticks, 9 their footnote labels.
std::string inline_markdown_html(std::string_view markdown);
// The same line as plain text (for a meta description, a mail's text part, a search index):
// no markers, entities undone, runs of white space as one space, trimmed.
std::string markdown_plain(std::string_view markdown);
// The text of HTML: tags dropped (each as a space, or as nothing for inline HTML), the five
// escapes undone.
std::string html_to_text(std::string_view html, bool tags_as_spaces = true);

}  // namespace ridge::bank
