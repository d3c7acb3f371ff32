// Anki decks of the bank's questions, as Anki's text import reads them (no .apkg: Debian 12 has
// no library that writes Anki packages, `apt-cache search anki` finds none; the text format is
// what the manual documents for imports from other programs).
//
// The format, from the Anki manual, "Importing > Text Files"
// (https://docs.ankiweb.net/importing/text-files.html):
//  - plain UTF-8 text; fields separated by one character, chosen by the `#separator:` file header
//    ("Tab" here, so the commas and semicolons of prose need no quoting);
//  - a field holding the separator, a newline or a double quote is put in double quotes, with a
//    quote inside doubled (""); `#html:true` makes fields HTML (the answer's markup, inline SVG);
//  - file headers are lines "#key:value" before the first note: `#notetype:`, `#columns:`,
//    `#guid column:N`, `#deck column:N`, `#tags column:N` (columns counted from 1);
//  - tags are separated by spaces; "::" makes them hierarchical (ridge::topic::kernels);
//  - "Duplicates and Updating": a note whose GUID matches an existing note updates that note
//    instead of adding a copy. The GUID here is derived from the question's slug alone, so a
//    second export after the content changed imports as updates.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bank/bank.h"
#include "calc/registry.h"
#include "calc/result.h"

namespace ridge::web::exports {

// What a deck holds: a topic, a track, a course (its modules' questions, in order), the
// account's bookmarks, or the account's cards due now.
struct DeckChoice {
  std::string kind;  // topic | track | course | bookmarks | due
  std::string id;    // the topic, track or course id; empty for bookmarks and due
  bool personal() const { return kind == "bookmarks" || kind == "due"; }
};

// "topic:kernels", "track:serving", "course:ID", "bookmarks", "due". Refused (field "deck")
// with every accepted name when the kind or the id is unknown.
calc::Result<DeckChoice> parse_deck(std::string_view text, const bank::Bank& bank);
// Every accepted deck name, comma-separated: the refusal's `accepted`.
std::string accepted_decks(const bank::Bank& bank);

// The deck's questions in bank order (a course's in module order), each at most once; for
// bookmarks and due, `slugs` are the account's (unknown slugs are skipped). At most the bank's
// size, whatever `slugs` holds.
std::vector<const bank::Question*> deck_questions(const DeckChoice& deck, const bank::Bank& bank,
                                                  const std::vector<std::string>& slugs = {});
// The deck's name in Anki: "ridge::Kernels", "ridge::Serving track", "ridge::Bookmarks".
std::string deck_title(const DeckChoice& deck, const bank::Bank& bank);

// The note's GUID: stable for a slug, whatever its text becomes.
std::string note_guid(std::string_view slug);
// Anki's tags for the question: topic, tracks, difficulty, concepts.
std::string note_tags(const bank::Question& q);
// The back of the card: the TL;DR and the worked answer as the engine rendered it (numbers,
// derivations, diagrams as inline SVG), which `answer_html` is.
std::string note_back(const bank::Question& q, std::string_view answer_html);

// A question's rendered answer: the server's kept copy (routes::answer_html, rendered once and
// kept with the pages) or rendered now (bank::answer_html, the CLI).
using AnswerSource = std::function<std::string(const bank::Question&)>;

struct AnkiWritten {
  int notes = 0;
  int left_out = 0;  // paid questions the reader has no access to
};
// Writes the file headers, then one note per question, each through `sink` as soon as it is
// made (the CLI streams to its output). A paid question is written only when `paid_access`.
AnkiWritten write_anki(const std::vector<const bank::Question*>& questions, const std::string& deck_title,
                       bool paid_access, const AnswerSource& answer, const std::function<void(std::string_view)>& sink);

// A field as the manual says to write it: quoted when it holds a tab, newline or quote.
std::string anki_field(std::string_view text);

// A note read back from an exported file by the manual's rules (for tests and checks).
struct ParsedAnki {
  std::vector<std::pair<std::string, std::string>> headers;  // "#key:value" in order
  std::vector<std::vector<std::string>> rows;
  std::string header(std::string_view key) const;
};
// Parses a text-import file: header lines first, then records separated by the header's
// separator, quoted fields with doubled quotes spanning newlines. Refused on an unterminated
// quote or a header after the first note.
calc::Result<ParsedAnki> parse_anki(std::string_view text);

}  // namespace ridge::web::exports
