// The embedded templates: each parses, raw insertions are only `_html` names, and values are
// escaped by the project's escaper.
#include "web/template.h"

#include <gtest/gtest.h>

#include <regex>

#include "calc/derivation.h"

namespace ridge::web {
namespace {

TEST(Templates, EveryTemplateParsesWithItsPartials) {
  ASSERT_FALSE(embedded_templates().empty());
  for (const auto& t : embedded_templates()) {
    std::string error;
    std::string text = expand_partials(t.name, error);
    EXPECT_EQ(error, "") << t.name;
    kainjow::mustache::mustache parsed(text);
    EXPECT_TRUE(parsed.is_valid()) << t.name << ": " << parsed.error_message();
  }
}

// A raw insertion is reviewed: its name says it holds HTML we made (`_html`), and such a name
// is never escaped (which would show the markup as text).
TEST(Templates, OnlyHtmlNamesAreInsertedRaw) {
  const std::regex raw(R"(\{\{\{\s*([^}\s]+)\s*\}\}\})"), ampersand(R"(\{\{&\s*([^}\s]+)\s*\}\})"),
      escaped(R"((^|[^{])\{\{\s*([a-z_.][a-z0-9_.]*)\s*\}\}(?!\}))");
  auto is_html = [](const std::string& name) { return name.size() > 5 && name.compare(name.size() - 5, 5, "_html") == 0; };
  for (const auto& t : embedded_templates()) {
    std::string text(t.text);
    for (std::sregex_iterator it(text.begin(), text.end(), raw), end; it != end; ++it) {
      EXPECT_TRUE(is_html((*it)[1])) << t.name << " inserts " << (*it)[1] << " raw";
    }
    EXPECT_FALSE(std::regex_search(text, ampersand)) << t.name << " uses {{& }}: name the field _html and use {{{ }}}";
    for (std::sregex_iterator it(text.begin(), text.end(), escaped), end; it != end; ++it) {
      EXPECT_FALSE(is_html((*it)[2])) << t.name << " escapes " << (*it)[2] << ", which holds HTML";
    }
  }
}

TEST(Templates, EscapeAsTheEngineDoes) {
  View v;
  const std::string hostile = "<script>alert('x') & \"y\"</script>";
  v.set("title", hostile);
  v.set("description", hostile);
  v.set("style_url", "/s.css");
  v.set("favicon_url", "/f.svg");
  v.set("script_url", "/a.js");
  v.set("nav_account_html", "<a>nav</a>");
  v.set("body_html", "<p>body</p>\n");
  std::string page = render("layout", v);
  EXPECT_NE(page.find("<title>" + calc::html_escape(hostile) + " · ridge</title>"), std::string::npos) << page;
  EXPECT_NE(page.find("&#39;x&#39;"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("<main id=\"main\">\n<p>body</p>\n</main>"), std::string::npos);
}

TEST(Templates, PartialsAreIncludedAndUnknownOnesNamed) {
  std::string error;
  EXPECT_EQ(expand_partials("no-such-template", error), "");
  EXPECT_NE(error.find("'no-such-template'"), std::string::npos) << error;
}

}  // namespace
}  // namespace ridge::web
