#include "web/template.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "calc/derivation.h"

namespace ridge::web {
namespace {

const TemplateSource* find_source(std::string_view name) {
  for (const auto& s : embedded_templates()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// Partials nest at most this deep: deeper is a cycle.
constexpr int kMaxPartialDepth = 8;

bool expand(std::string_view name, int depth, std::string& out, std::string& error) {
  const TemplateSource* source = find_source(name);
  if (source == nullptr) {
    error = "no template named '" + std::string(name) + "' in web/templates";
    return false;
  }
  if (depth > kMaxPartialDepth) {
    error = "partials nest deeper than " + std::to_string(kMaxPartialDepth) + " at '" + std::string(name) + "' (a cycle?)";
    return false;
  }
  std::string_view text = source->text;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find("{{>", i);
    if (open == std::string_view::npos) break;
    size_t close = text.find("}}", open);
    if (close == std::string_view::npos) {
      error = "'" + std::string(name) + "': a partial tag is not closed";
      return false;
    }
    out.append(text, i, open - i);
    std::string_view partial = text.substr(open + 3, close - open - 3);
    while (!partial.empty() && partial.front() == ' ') partial.remove_prefix(1);
    while (!partial.empty() && partial.back() == ' ') partial.remove_suffix(1);
    if (!expand(partial, depth + 1, out, error)) {
      error = "in '" + std::string(name) + "': " + error;
      return false;
    }
    i = close + 2;
  }
  out.append(text.substr(std::min(i, text.size())));
  return true;
}

using Mustache = kainjow::mustache::mustache;

// A parsed template; a template with a `{{{body_html}}}` insertion is also kept as the parts
// before and after it, for render_around().
struct Parsed {
  std::unique_ptr<Mustache> whole, before, after;
};
using ParsedMap = std::map<std::string, Parsed, std::less<>>;

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "ridge: web/templates: %s\n", message.c_str());
  std::abort();
}

std::unique_ptr<Mustache> parse(std::string_view name, const std::string& text) {
  auto t = std::make_unique<Mustache>(text);
  if (!t->is_valid()) fail(std::string(name) + ".mustache: " + t->error_message());
  t->set_custom_escape([](const std::string& value) { return calc::html_escape(value); });
  return t;
}

constexpr std::string_view kBody = "{{{body_html}}}";

const ParsedMap& parsed() {
  static const ParsedMap templates = [] {
    ParsedMap out;
    for (const auto& s : embedded_templates()) {
      std::string error;
      std::string text = expand_partials(s.name, error);
      if (!error.empty()) fail(error);
      Parsed p;
      p.whole = parse(s.name, text);
      if (size_t at = text.find(kBody); at != std::string::npos) {
        p.before = parse(s.name, text.substr(0, at));
        p.after = parse(s.name, text.substr(at + kBody.size()));
      }
      out.emplace(std::string(s.name), std::move(p));
    }
    return out;
  }();
  return templates;
}

const Parsed& find(std::string_view name) {
  const ParsedMap& templates = parsed();
  auto it = templates.find(name);
  if (it == templates.end()) fail("no template named '" + std::string(name) + "'");
  return it->second;
}

// render() is not const in the library, but with no lambdas and no runtime partials it only
// reads the parsed template (see the header's thread-safety note).
void render_into(std::string_view name, Mustache& t, const View& view, std::string& out) {
  t.render(view, [&out](const std::string& text) { out += text; });
  if (!t.is_valid()) fail(std::string(name) + ".mustache: " + t.error_message());
}

}  // namespace

std::string expand_partials(std::string_view name, std::string& error) {
  std::string out;
  if (!expand(name, 0, out, error)) return "";
  return out;
}

std::string render(std::string_view name, const View& view) {
  std::string out;
  render_into(name, *find(name).whole, view, out);
  return out;
}

std::string render_around(std::string_view name, const View& view, std::string_view body) {
  const Parsed& p = find(name);
  if (!p.before) fail(std::string(name) + ".mustache has no {{{body_html}}} for render_around");
  std::string out;
  out.reserve(body.size() + 4096);
  render_into(name, *p.before, view, out);
  out += body;
  render_into(name, *p.after, view, out);
  return out;
}

}  // namespace ridge::web
