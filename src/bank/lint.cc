#include "bank/lint.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace ridge::bank {
namespace {

// Longest first, so "GB/s" wins over "GB". `space` marks units that need a space before
// them ("8 B" is bytes, "8B" is a parameter count).
struct UnitWord {
  std::string_view text;
  bool needs_space;
};
constexpr std::array<UnitWord, 37> kUnits = {{
    {"tokens/s", false}, {"TFLOP/s", false}, {"PFLOP/s", false}, {"GFLOP/s", false}, {"FLOP/s", false},
    {"FLOP/B", false},   {"TFLOPS", false},  {"PFLOPS", false},  {"EFLOPS", false},  {"GFLOPS", false},
    {"GB/s", false},     {"TB/s", false},    {"MB/s", false},    {"Gb/s", false},    {"Tb/s", false},
    {"Gbps", false},     {"Tbps", false},    {"GiB", false},     {"MiB", false},     {"KiB", false},
    {"TiB", false},      {"GB", false},      {"TB", false},      {"MB", false},      {"KB", false},
    {"kB", false},       {"PB", false},      {"ms", false},      {"us", false},      {"µs", false},
    {"ns", false},       {"kW", false},      {"MW", false},      {"GW", false},      {"W", false},
    {"%", false},        {"B", true},
}};

constexpr std::array<std::string_view, 6> kFiller = {"simply", "just", "basically", "delve", "delves", "delving"};
constexpr std::array<std::string_view, 2> kFillerPhrases = {"it is important to note", "in today's world"};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Replaces {{...}}, `code` (unless keep_inline_code), source definition lines and
// ](destination) with neutral text of the same length, so offsets (and lines) still match.
std::string mask(std::string_view prose, bool keep_inline_code = false) {
  std::string s(prose);
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < s.size(); ++k) {
      if (s[k] != '\n') s[k] = 'x';
    }
  };
  for (size_t pos = 0; (pos = s.find("{{", pos)) != std::string::npos;) {
    size_t close = s.find("}}", pos);
    if (close == std::string::npos) break;
    blank(pos, close + 2);
    pos = close + 2;
  }
  for (size_t pos = 0; !keep_inline_code && (pos = s.find('`', pos)) != std::string::npos;) {
    size_t close = s.find('`', pos + 1);
    if (close == std::string::npos) break;
    blank(pos, close + 1);
    pos = close + 1;
  }
  // Source definitions ("[^key]: ...") are citations themselves.
  for (size_t pos = 0; pos < s.size();) {
    size_t end = s.find('\n', pos);
    if (end == std::string::npos) end = s.size();
    if (s.compare(pos, 2, "[^") == 0 && s.find("]:", pos) < end) blank(pos, end);
    pos = end + 1;
  }
  for (size_t pos = 0; (pos = s.find("](", pos)) != std::string::npos;) {
    size_t close = s.find(')', pos);
    if (close == std::string::npos) break;
    blank(pos + 2, close);
    pos = close;
  }
  return s;
}

int line_at(std::string_view text, size_t offset, int first_line) {
  return first_line + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

// The unit of citation: a sentence inside a paragraph, a table cell or a list item.
std::pair<size_t, size_t> sentence_around(std::string_view s, size_t offset) {
  auto is_break = [&](size_t k) {
    if (s[k] == '|') return true;
    if (s[k] == '\n') return k + 1 >= s.size() || s[k + 1] == '\n' || s[k + 1] == '|' || s[k + 1] == '-' ||
                             s[k + 1] == '#' || s[k + 1] == '*';
    return (s[k] == '.' || s[k] == '?' || s[k] == '!' || s[k] == ';') && k + 1 < s.size() &&
           (s[k + 1] == ' ' || s[k + 1] == '\n');
  };
  size_t begin = offset;
  while (begin > 0 && !is_break(begin - 1)) --begin;
  size_t end = offset;
  while (end < s.size() && !is_break(end)) ++end;
  return {begin, std::min(end + 1, s.size())};
}

}  // namespace

std::vector<Figure> find_figures(std::string_view s) {
  std::vector<Figure> figures;
  size_t i = 0;
  while (i < s.size()) {
    bool dollar = s[i] == '$' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]));
    bool digit = std::isdigit(static_cast<unsigned char>(s[i]));
    if (!dollar && !digit) {
      ++i;
      continue;
    }
    if (i > 0 && (is_word_char(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '^' || s[i - 1] == '-' || s[i - 1] == '/')) {
      ++i;  // always move: a '$' glued to a word ("a$5") is not a word character (found by fuzzing)
      while (i < s.size() && (is_word_char(s[i]) || s[i] == '.' || s[i] == ',')) ++i;
      continue;
    }
    size_t start = i;
    if (dollar) ++i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) ||
                            ((s[i] == ',' || s[i] == '.') && i + 1 < s.size() &&
                             std::isdigit(static_cast<unsigned char>(s[i + 1]))))) {
      ++i;
    }
    if (dollar) {
      figures.push_back({start, std::string(s.substr(start, i - start))});
      continue;
    }
    size_t j = i;
    bool spaced = j < s.size() && s[j] == ' ';
    if (spaced) ++j;
    for (const auto& u : kUnits) {
      if (u.needs_space && !spaced) continue;
      if (s.substr(j, u.text.size()) != u.text) continue;
      size_t after = j + u.text.size();
      if (after < s.size() && (is_word_char(s[after]) || s[after] == '/')) continue;
      figures.push_back({start, std::string(s.substr(start, after - start))});
      i = after;
      break;
    }
  }
  return figures;
}

void lint_prose(std::string_view prose, int first_line, const std::string& file, std::vector<Diagnostic>& diags) {
  std::string masked = mask(prose);
  for (const Figure& f : find_figures(masked)) {
    auto [begin, end] = sentence_around(masked, f.offset);
    if (std::string_view(masked).substr(begin, end - begin).find("[^") != std::string_view::npos) continue;
    diags.push_back({file, line_at(masked, f.offset, first_line),
                     "'" + f.text + "' is a figure with a unit that is neither a {{reference}} to a calc block "
                     "nor cited with [^source] in the same sentence"});
  }
  std::string lower(masked);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view word : kFiller) {
    for (size_t pos = 0; (pos = lower.find(word, pos)) != std::string::npos; pos += word.size()) {
      bool left = pos == 0 || !is_word_char(lower[pos - 1]);
      bool right = pos + word.size() >= lower.size() || !is_word_char(lower[pos + word.size()]);
      if (left && right) {
        diags.push_back({file, line_at(masked, pos, first_line), "filler word '" + std::string(word) + "'"});
      }
    }
  }
  for (std::string_view phrase : kFillerPhrases) {
    for (size_t pos = 0; (pos = lower.find(phrase, pos)) != std::string::npos; pos += phrase.size()) {
      diags.push_back({file, line_at(masked, pos, first_line), "filler phrase '" + std::string(phrase) + "'"});
    }
  }
}

namespace {

// Reads a plain number at `i` ("3,739", "21.5", "$2.50", "3.4e10", "8"), with an optional
// unit after it; returns its end, or npos when `i` does not start a number. A number glued
// to a word ("H100", "v1.34") or holding two dots (an address, a version) is not one.
struct NumberToken {
  size_t end = std::string_view::npos;
  bool has_unit = false;
};
NumberToken read_number(std::string_view s, size_t i) {
  static constexpr std::array<std::string_view, 10> kTimeUnits = {"days", "day", "min", "ms", "us", "ns", "h", "s",
                                                                  "tokens", "years"};
  NumberToken t;
  size_t k = i;
  if (k < s.size() && s[k] == '$') ++k;
  if (k >= s.size() || !std::isdigit(static_cast<unsigned char>(s[k]))) return t;
  if (i > 0 && (is_word_char(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '_')) return t;
  int dots = 0;
  while (k < s.size()) {
    char c = s[k];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      ++k;
    } else if ((c == ',' || c == '.') && k + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[k + 1]))) {
      dots += c == '.';
      ++k;
    } else if ((c == 'e' || c == 'E') && k + 1 < s.size() &&
               (std::isdigit(static_cast<unsigned char>(s[k + 1])) || s[k + 1] == '-' || s[k + 1] == '+')) {
      k += 2;
    } else {
      break;
    }
  }
  if (dots > 1) return t;
  if (k < s.size() && (s[k] == '.' && k + 1 < s.size() && std::isalpha(static_cast<unsigned char>(s[k + 1])))) return t;
  size_t j = k < s.size() && s[k] == ' ' ? k + 1 : k;
  auto unit_at = [&](std::string_view u) {
    if (s.substr(j, u.size()) != u) return false;
    size_t after = j + u.size();
    return after >= s.size() || !is_word_char(s[after]);
  };
  for (const auto& u : kUnits) {
    if (u.needs_space && j == k) continue;
    if (unit_at(u.text)) {
      t.end = j + u.text.size();
      t.has_unit = true;
      return t;
    }
  }
  for (std::string_view u : kTimeUnits) {
    if (unit_at(u)) {
      t.end = j + u.size();
      t.has_unit = true;
      return t;
    }
  }
  // A word glued after the digits ("8B", "70b", "4th") makes it a name, not a number.
  if (k < s.size() && std::isalpha(static_cast<unsigned char>(s[k])) && s[k] != 'x') return t;
  t.end = k;
  return t;
}

}  // namespace

void lint_arithmetic(std::string_view prose, int first_line, const std::string& file, std::vector<Diagnostic>& diags) {
  // Inline code kept: hand arithmetic hides there most often.
  std::string s = mask(prose, /*keep_inline_code=*/true);
  struct Op {
    std::string_view text;
    bool needs_spaces;  // only an operator with a space on each side ("155 - 118", "8 x 80")
  };
  static constexpr std::array<Op, 11> kOps = {{{"\xC3\x97", false},      // ×
                                               {"\xC3\xB7", false},      // ÷
                                               {"\xE2\x88\x92", false},  // −
                                               {"\xE2\x89\x88", false},  // ≈
                                               {"*", false},
                                               {"/", false},
                                               {"+", false},
                                               {"=", false},
                                               {"x", false},
                                               {"-", true},
                                               {"~", true}}};
  int last_line = -1;
  for (size_t i = 0; i < s.size();) {
    NumberToken left = read_number(s, i);
    if (left.end == std::string_view::npos) {
      ++i;
      continue;
    }
    size_t j = left.end;
    bool space_before = j < s.size() && s[j] == ' ';
    while (j < s.size() && s[j] == ' ') ++j;
    const Op* found = nullptr;
    for (const auto& op : kOps) {
      if (s.compare(j, op.text.size(), op.text) == 0) {
        found = &op;
        break;
      }
    }
    if (found == nullptr) {
      i = left.end;
      continue;
    }
    size_t k = j + found->text.size();
    bool space_after = k < s.size() && s[k] == ' ';
    while (k < s.size() && s[k] == ' ') ++k;
    NumberToken right = read_number(s, k);
    bool spaced = space_before && space_after;
    bool flagged = right.end != std::string_view::npos && (!found->needs_spaces || spaced);
    // Shapes and fractions written glued ("128×128", "4/8", "3x3") are not computations.
    bool glued_shape = !space_before && !space_after && !left.has_unit && !right.has_unit &&
                       (found->text == "x" || found->text == "\xC3\x97" || found->text == "/" || found->text == "*");
    if (found->text == "x" && !spaced && !glued_shape && (!left.has_unit && !right.has_unit)) flagged = false;
    if (flagged && !glued_shape) {
      int line = line_at(s, i, first_line);
      if (line != last_line) {
        size_t end = right.end;
        diags.push_back({file, line, '\'' + std::string(s.substr(i, std::min<size_t>(end - i, 60))) +
                                         "' is arithmetic worked by hand: compute it in a calc or expr block and "
                                         "quote the result with {{id.key}}"});
        last_line = line;
      }
    }
    i = left.end;
  }
}

void lint_em_dashes(std::string_view text, const std::string& file, std::vector<Diagnostic>& diags) {
  constexpr std::string_view kEmDash = "\xE2\x80\x94";
  for (size_t pos = 0; (pos = text.find(kEmDash, pos)) != std::string_view::npos; pos += kEmDash.size()) {
    diags.push_back({file, line_at(text, pos, 1), "em dash: rewrite the sentence (a colon, a comma or two sentences)"});
  }
}

}  // namespace ridge::bank
