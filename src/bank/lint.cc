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

// Replaces {{...}}, `code` and ](destination) with neutral text of the same length, so
// offsets (and so lines) still match the original.
std::string mask(std::string_view prose) {
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
  for (size_t pos = 0; (pos = s.find('`', pos)) != std::string::npos;) {
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

void lint_em_dashes(std::string_view text, const std::string& file, std::vector<Diagnostic>& diags) {
  constexpr std::string_view kEmDash = "\xE2\x80\x94";
  for (size_t pos = 0; (pos = text.find(kEmDash, pos)) != std::string_view::npos; pos += kEmDash.size()) {
    diags.push_back({file, line_at(text, pos, 1), "em dash: rewrite the sentence (a colon, a comma or two sentences)"});
  }
}

}  // namespace ridge::bank
