#include "web/export/anki.h"

#include <set>

#include "bank/loader.h"
#include "calc/derivation.h"

namespace ridge::web::exports {

namespace {

// Anki tags cannot hold spaces (they separate tags); ids are slugs, but a name is made safe.
std::string tag_part(std::string_view s) {
  std::string out;
  for (char c : s) out += (c == ' ' || c == '\t' || c == '"') ? '-' : c;
  return out;
}

}  // namespace

std::string accepted_decks(const bank::Bank& bank) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  for (const auto& t : bank.topics) add("topic:" + t.id);
  for (const auto& t : bank.tracks) add("track:" + t.id);
  for (const auto& [id, c] : bank.courses) add("course:" + id);
  add("bookmarks");
  add("due");
  return out;
}

calc::Result<DeckChoice> parse_deck(std::string_view text, const bank::Bank& bank) {
  std::string value(text.substr(0, 120));
  if (text == "bookmarks" || text == "due") return DeckChoice{std::string(text), ""};
  size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    std::string_view kind = text.substr(0, colon), id = text.substr(colon + 1);
    if (kind == "topic" && bank.find_topic(id)) return DeckChoice{"topic", std::string(id)};
    if (kind == "track" && bank.find_track(id)) return DeckChoice{"track", std::string(id)};
    if (kind == "course" && bank.courses.count(std::string(id))) return DeckChoice{"course", std::string(id)};
  }
  return calc::FieldError{"deck", value, "is not a deck", accepted_decks(bank)};
}

std::vector<const bank::Question*> deck_questions(const DeckChoice& deck, const bank::Bank& bank,
                                                  const std::vector<std::string>& slugs) {
  std::vector<const bank::Question*> out;
  std::set<std::string_view> taken;
  auto take = [&](const bank::Question* q) {
    if (q != nullptr && taken.insert(q->slug).second) out.push_back(q);
  };
  if (deck.kind == "topic") {
    for (size_t i : bank.by_topic(deck.id)) take(&bank.questions[i]);
  } else if (deck.kind == "track") {
    for (size_t i : bank.by_track(deck.id)) take(&bank.questions[i]);
  } else if (deck.kind == "course") {
    auto it = bank.courses.find(deck.id);
    if (it != bank.courses.end()) {
      for (const auto& m : it->second.modules) {
        for (const auto& slug : m.questions) take(bank.find(slug));
      }
    }
  } else {
    // The account's own list: each slug is looked up once and kept once, so the deck is at
    // most the bank's size however long the list.
    for (const auto& slug : slugs) {
      if (out.size() >= bank.questions.size()) break;
      take(bank.find(slug));
    }
  }
  return out;
}

std::string deck_title(const DeckChoice& deck, const bank::Bank& bank) {
  if (deck.kind == "topic") {
    if (const auto* t = bank.find_topic(deck.id)) return "ridge::" + t->name;
  } else if (deck.kind == "track") {
    if (const auto* t = bank.find_track(deck.id)) return "ridge::" + t->name + " track";
  } else if (deck.kind == "course") {
    auto it = bank.courses.find(deck.id);
    if (it != bank.courses.end()) return "ridge::" + it->second.title;
  } else if (deck.kind == "bookmarks") {
    return "ridge::Bookmarks";
  } else if (deck.kind == "due") {
    return "ridge::Due";
  }
  return "ridge";
}

std::string note_guid(std::string_view slug) { return "ridge-" + std::string(slug); }

std::string note_tags(const bank::Question& q) {
  std::string out = "ridge::topic::" + tag_part(q.topic);
  for (const auto& t : q.tracks) out += " ridge::track::" + tag_part(t);
  out += " ridge::difficulty::" + std::string(bank::difficulty_name(q.difficulty));
  for (const auto& c : q.concepts) out += " ridge::concept::" + tag_part(c);
  if (q.must_know) out += " ridge::must-know";
  return out;
}

std::string note_back(const bank::Question& q, std::string_view answer_html) {
  // The answer as the bank renders it: the calc blocks' derivations with the engine's numbers,
  // and each diagram drawn as an inline <svg> (bank/directives.cc), so the card needs no media
  // files.
  return "<p><b>TL;DR</b> " + calc::html_escape(q.tldr()) + "</p>\n" + std::string(answer_html);
}

std::string anki_field(std::string_view text) {
  if (text.find_first_of("\t\n\r\"") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

AnkiWritten write_anki(const std::vector<const bank::Question*>& questions, const std::string& title, bool paid_access,
                       const AnswerSource& answer, const std::function<void(std::string_view)>& sink) {
  // Columns: 1 GUID, 2 Front, 3 Back, 4 Deck, 5 Tags; the note type is Anki's stock "Basic"
  // (fields Front and Back).
  sink("#separator:Tab\n#html:true\n#notetype:Basic\n#columns:GUID\tFront\tBack\tDeck\tTags\n"
       "#guid column:1\n#deck column:4\n#tags column:5\n");
  AnkiWritten written;
  std::string deck = anki_field(title);
  for (const bank::Question* q : questions) {
    if (!q->free && !paid_access) {
      ++written.left_out;
      continue;
    }
    std::string front = "<p>" + calc::html_escape(q->title) + "</p>";
    std::string line = anki_field(note_guid(q->slug)) + "\t" + anki_field(front) + "\t" + anki_field(note_back(*q, answer(*q))) + "\t" +
                       deck + "\t" + anki_field(note_tags(*q)) + "\n";
    sink(line);
    ++written.notes;
  }
  return written;
}

std::string ParsedAnki::header(std::string_view key) const {
  for (const auto& [k, v] : headers) {
    if (k == key) return v;
  }
  return "";
}

calc::Result<ParsedAnki> parse_anki(std::string_view text) {
  ParsedAnki out;
  size_t i = 0;
  // File headers: "#key:value" lines before the first note.
  while (i < text.size() && text[i] == '#') {
    size_t end = text.find('\n', i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(i + 1, end - i - 1);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return calc::FieldError{"header", std::string(line), "has no ':'", "#key:value"};
    out.headers.emplace_back(std::string(line.substr(0, colon)), std::string(line.substr(colon + 1)));
    i = end + 1;
  }
  std::string sep_name = out.header("separator");
  char sep = sep_name == "Tab" || sep_name == "tab" ? '\t'
             : sep_name == "Comma" || sep_name == "comma" ? ','
             : sep_name == "Semicolon" || sep_name == "semicolon" ? ';'
             : sep_name.size() == 1 ? sep_name[0]
                                    : '\0';
  if (sep == '\0') return calc::FieldError{"separator", sep_name, "is not a separator", "Tab, Comma, Semicolon or one character"};
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, at_start = true;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    if (at_start && c == '"') {
      quoted = true;
      at_start = false;
      continue;
    }
    at_start = false;
    if (c == sep) {
      row.push_back(std::move(field));
      field.clear();
      at_start = true;
    } else if (c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      out.rows.push_back(std::move(row));
      row.clear();
      at_start = true;
    } else if (c == '#' && row.empty() && field.empty()) {
      return calc::FieldError{"header", "#", "comes after the first note", "headers before every note"};
    } else {
      field += c;
    }
  }
  if (quoted) return calc::FieldError{"field", field.substr(0, 40), "has no closing quote", "a quoted field ends with \""};
  if (!row.empty() || !field.empty()) {
    row.push_back(std::move(field));
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace ridge::web::exports
