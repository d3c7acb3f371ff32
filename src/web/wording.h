// The web's words for what the engine writes for the command line (issue 33 item 10: "or give
// --config" on a web form). A calculator's help and refusals name flags ("--model"); the web's
// fields carry the same names without the dashes, so a flag becomes the field's name in quotes.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ridge::web {

// "cannot be combined with --model or --config" -> "cannot be combined with ‘model’ or ‘config’".
// Only "--" after a space, an opening bracket or the start, followed by a letter, is a flag.
inline std::string without_flags(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    bool starts = text.compare(i, 2, "--") == 0 && i + 2 < text.size() && std::islower(static_cast<unsigned char>(text[i + 2])) &&
                  (i == 0 || text[i - 1] == ' ' || text[i - 1] == '(' || text[i - 1] == '/');
    if (!starts) {
      out += text[i++];
      continue;
    }
    size_t end = i + 2;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-')) ++end;
    out += "\u2018" + std::string(text.substr(i + 2, end - i - 2)) + "\u2019";
    i = end;
  }
  return out;
}

}  // namespace ridge::web
