#include "bank/markdown.h"

#include <md4c-html.h>

#include <cctype>

#include "calc/units.h"

namespace ridge::bank {

namespace {

size_t fence_length(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == '`') ++n;
  return n >= 3 ? n : 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<Block> split_blocks(std::string_view body, int first_line, const std::string& file,
                                std::vector<Diagnostic>& diags) {
  // A block's lines are contiguous in the body: each block's text is copied once, when it
  // closes, as the span from its first line to the end of its last plus the newline that
  // ended each line, rather than appended line by line (issue 30: every question is split
  // at start-up, and growing each block's text was most of the split's time).
  struct Span {
    size_t first = std::string_view::npos, end = 0;  // of the first line, and the last line's end
    bool empty() const { return first == std::string_view::npos; }
    void add(size_t line_start, size_t line_end) {
      if (empty()) first = line_start;
      end = line_end;
    }
    std::string text(std::string_view of) const {
      if (empty()) return {};
      std::string t;
      t.reserve(end - first + 1);
      t.append(of.substr(first, end - first));
      t.push_back('\n');
      return t;
    }
  };
  std::vector<Block> blocks;
  Block prose{false, "", "", first_line};
  Block fence;
  Span prose_span, fence_span;
  size_t open_len = 0;
  int line_no = first_line;
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(pos, end - pos);
    if (open_len == 0) {
      size_t n = fence_length(line);
      if (n > 0) {
        if (!prose_span.empty()) {
          prose.text = prose_span.text(body);
          blocks.push_back(std::move(prose));
        }
        fence = Block{true, std::string(trim(line.substr(n))), "", line_no + 1};
        fence_span = Span{};
        open_len = n;
      } else {
        if (prose_span.empty()) prose.line = line_no;
        prose_span.add(pos, end);
      }
    } else {
      size_t n = fence_length(line);
      if (n >= open_len && trim(line.substr(n)).empty()) {
        fence.text = fence_span.text(body);
        blocks.push_back(std::move(fence));
        open_len = 0;
        prose = Block{false, "", "", line_no + 1};
        prose_span = Span{};
      } else {
        fence_span.add(pos, end);
      }
    }
    ++line_no;
    if (end == body.size()) break;
    pos = end + 1;
  }
  if (open_len > 0) {
    fence.text = fence_span.text(body);
    diags.push_back({file, fence.line - 1, "fenced block ```" + fence.info + " is never closed"});
    blocks.push_back(std::move(fence));
  } else if (!prose_span.empty()) {
    prose.text = prose_span.text(body);
    blocks.push_back(std::move(prose));
  }
  return blocks;
}

bool parse_call(std::string_view text, CalcCall& call, std::string& error) {
  text = trim(text);
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) call.calculator += text[i++];
  if (call.calculator.empty()) {
    error = "is empty; write `calculator key=value ...`";
    return false;
  }
  for (skip_space(); i < text.size(); skip_space()) {
    std::string key, value;
    while (i < text.size() && text[i] != '=' && !std::isspace(static_cast<unsigned char>(text[i]))) key += text[i++];
    if (i >= text.size() || text[i] != '=') {
      error = "'" + key + "' is not key=value";
      return false;
    }
    ++i;
    if (i < text.size() && text[i] == '"') {
      size_t close = text.find('"', i + 1);
      if (close == std::string_view::npos) {
        error = "the value of " + key + " opens a quote it never closes";
        return false;
      }
      value = std::string(text.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) value += text[i++];
    }
    if (key.empty() || value.empty()) {
      error = "'" + key + "=" + value + "' needs both a key and a value";
      return false;
    }
    if (call.args.count(key)) {
      error = key + " is given twice";
      return false;
    }
    call.args[key] = value;
  }
  return true;
}

std::string substitute_references(std::string_view text, const std::map<std::string, const calc::Derivation*>& results,
                                  int first_line, const std::string& file, std::vector<Diagnostic>& diags, bool raw) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  int line = first_line;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    for (size_t k = pos; k < open; ++k) line += text[k] == '\n';
    out.append(text.substr(pos, open - pos));
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      diags.push_back({file, line, "'{{' opens a reference that is never closed with '}}'"});
      out.append(text.substr(open));
      break;
    }
    std::string_view ref = text.substr(open + 2, close - open - 2);
    std::string_view whole = text.substr(open, close + 2 - open);
    pos = close + 2;
    // id.key[:target[:decimals]]
    size_t dot = ref.find('.');
    size_t colon = ref.find(':');
    if (dot == std::string_view::npos || (colon != std::string_view::npos && colon < dot)) {
      diags.push_back({file, line, "reference " + std::string(whole) + " is not {{ID.RESULT}}"});
      out.append(whole);
      continue;
    }
    std::string id(ref.substr(0, dot));
    std::string_view rest = ref.substr(dot + 1);
    std::string key(rest.substr(0, rest.find(':')));
    std::string target;
    int decimals = -1;
    if (size_t c1 = rest.find(':'); c1 != std::string_view::npos) {
      std::string_view fmt = rest.substr(c1 + 1);
      size_t c2 = fmt.find(':');
      target = std::string(fmt.substr(0, c2));
      if (c2 != std::string_view::npos) {
        std::string_view d = fmt.substr(c2 + 1);
        if (d.empty() || d.size() > 2 || d.find_first_not_of("0123456789") != std::string_view::npos) {
          diags.push_back({file, line, "reference " + std::string(whole) + ": decimals must be 0 to 99"});
          out.append(whole);
          continue;
        }
        decimals = std::stoi(std::string(d));
      }
    }
    auto it = results.find(id);
    if (it == results.end()) {
      std::string known;
      for (const auto& [k, v] : results) known += (known.empty() ? "" : ", ") + k;
      diags.push_back({file, line, "reference " + std::string(whole) + ": no calc block with id '" + id +
                                       "' (known: " + (known.empty() ? "none" : known) + ")"});
      out.append(whole);
      continue;
    }
    if (it->second == nullptr) {  // the block failed; its own error is already reported
      out.append(whole);
      continue;
    }
    const calc::NamedResult* r = it->second->find(key);
    if (r == nullptr) {
      std::string known;
      for (const auto& nr : it->second->results()) known += (known.empty() ? "" : ", ") + nr.key;
      diags.push_back({file, line, "reference " + std::string(whole) + ": calc block '" + id + "' has no result '" +
                                       key + "' (it has: " + known + ")"});
      out.append(whole);
      continue;
    }
    if (raw) {
      // A time goes into a calc call with its unit, so an hours or days parameter reads a
      // result in seconds (an expr's "2 h") correctly.
      out += calc::format_significant(r->value, 15);
      if (r->unit == calc::Unit::kSeconds) out += "s";
      if (r->unit == calc::Unit::kHours) out += "h";
      if (r->unit == calc::Unit::kDays) out += "d";
      continue;
    }
    auto formatted = calc::format_as(r->value, r->unit, target, decimals);
    if (!formatted) {
      diags.push_back({file, line, "reference " + std::string(whole) + ": format '" + target +
                                       "' does not apply to a value in " + std::string(calc::unit_symbol(r->unit))});
      out.append(whole);
      continue;
    }
    out += *formatted;
  }
  return out;
}

namespace {
void append_html(const MD_CHAR* text, MD_SIZE size, void* userdata) {
  static_cast<std::string*>(userdata)->append(text, size);
}
}  // namespace

std::string markdown_to_html(std::string_view markdown) {
  std::string out;
  out.reserve(markdown.size() * 3 / 2);
  md_html(markdown.data(), static_cast<MD_SIZE>(markdown.size()), append_html, &out,
          MD_DIALECT_GITHUB | MD_FLAG_NOHTML, 0);
  return out;
}

std::string inline_markdown_html(std::string_view markdown) {
  std::string text;
  text.reserve(markdown.size());
  for (size_t i = 0; i < markdown.size(); ++i) {
    if (markdown.compare(i, 2, "[^") == 0) {
      size_t close = markdown.find(']', i);
      if (close != std::string_view::npos && close - i < 64) {
        i = close;
        continue;
      }
    }
    text += markdown[i];
  }
  // Trailing space left where a marker ended the line.
  while (!text.empty() && text.back() == ' ') text.pop_back();
  std::string html = markdown_to_html(text);
  while (!html.empty() && (html.back() == '\n' || html.back() == ' ')) html.pop_back();
  // One paragraph: unwrap it, so the line sits inside the page's own element.
  if (html.rfind("<p>", 0) == 0 && html.size() >= 7 && html.compare(html.size() - 4, 4, "</p>") == 0 &&
      html.find("<p>", 3) == std::string::npos) {
    html = html.substr(3, html.size() - 7);
  }
  return html;
}

std::string html_to_text(std::string_view html, bool tags_as_spaces) {
  static const std::pair<const char*, char> kEntities[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
  std::string out;
  out.reserve(html.size());
  for (size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '<') {
      size_t close = html.find('>', i);
      if (close == std::string_view::npos) break;
      i = close;
      if (tags_as_spaces) out += ' ';
      continue;
    }
    bool escaped = false;
    for (const auto& [entity, ch] : kEntities) {
      size_t n = std::char_traits<char>::length(entity);
      if (html.compare(i, n, entity) == 0) {
        out += ch;
        i += n - 1;
        escaped = true;
        break;
      }
    }
    if (!escaped) out += html[i];
  }
  return out;
}

std::string markdown_plain(std::string_view markdown) {
  // Inline tags go without a trace ("<code>kv</code>s" is "kvs"); white space collapses.
  std::string text = html_to_text(inline_markdown_html(markdown), false);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace ridge::bank
