// Mustache templates (web/templates/*.mustache), embedded in the binary at build time and
// parsed once, on first use (the App's construction), rendered from plain view structs.
//
// The library is kainjow/mustache (Debian's libkainjow-mustache-dev, header-only, v4.1):
// logic-less, and `{{name}}` is escaped by default. Templates escape with the project's one
// escaper (calc::html_escape: & < > " and ' as &#39;), installed as the library's custom escape,
// so a page made by a template and a derivation rendered by the engine escape the same way.
//
// Raw insertions: `{{{name_html}}}` inserts HTML this program produced itself, never text
// from outside: an answer or a concept page rendered by md4c, a derivation's HTML, a diagram's
// SVG, a search snippet (escaped text with <mark>), a nested template already rendered. The
// name of every raw field ends in `_html` and a view struct holds it as `Html`; template_test
// fails when a template inserts any other name raw, or escapes an `_html` name.
//
// Partials: `{{> name}}` includes web/templates/name.mustache as text when the templates are
// parsed (so it is parsed once, not at each use); it sees the including template's context.
//
// Thread safety: render() may be called from any number of threads at once after the first
// call returns (the parsed templates are only read: views hold no lambdas).
// Errors: a template that does not parse, a missing partial and an unknown name are errors of
// the build's own inputs: the process prints the error and aborts at the first render (at
// start-up), and template_test parses every template.
#pragma once

#include <kainjow/mustache.hpp>

#include <span>
#include <string>
#include <string_view>

namespace ridge::web {

// HTML made by this program (see above): the only values a template inserts raw.
struct Html {
  std::string text;
};

using View = kainjow::mustache::data;
using ViewList = kainjow::mustache::list;

// Sets `key` of the object `view` to `value`, moved in. (The library's own set() copies the
// value twice, and a view holds lists of thousands of questions, nested three deep.)
inline void put(View& view, const std::string& key, View value) { view[key] = std::move(value); }
// A list view holding `items`, moved in. (The library copies a list it is given; its list is
// only readable through a const reference, but the list it owns is not const, so moving into
// it through const_cast is defined.)
inline View list_view(ViewList&& items) {
  View view(View::type::list);
  const_cast<ViewList&>(view.list_value()) = std::move(items);
  return view;
}
inline void put(View& view, const std::string& key, ViewList&& items) { view[key] = list_view(std::move(items)); }
// An object with one field, `value` moved in.
inline View object_with(const std::string& key, View value) {
  View view;
  put(view, key, std::move(value));
  return view;
}

// A template's name (its file name without .mustache) and text, as the build embedded them.
struct TemplateSource {
  std::string_view name;
  std::string_view text;
};
// Every file of web/templates, in the order CMakeLists.txt lists them (generated at build time).
std::span<const TemplateSource> embedded_templates();

// The template `name` rendered with `view`.
std::string render(std::string_view name, const View& view);
// The same for a template with one `{{{body_html}}}` insertion: `body` goes in its place as it
// is, copied once instead of through the view and the library's line buffer. For the largest
// piece of a page (the layout's page body, a question's answer): thousands of pages are
// rendered at start-up.
std::string render_around(std::string_view name, const View& view, std::string_view body);

// A template's text with its partials included, or an empty string and `error` set.
std::string expand_partials(std::string_view name, std::string& error);

}  // namespace ridge::web
