// Issue 33 (items 7 and 10): what a new candidate saw that no page should show. Every page the
// sitemap lists is fetched and read as a visitor reads it: no raw Markdown (backticks, footnote
// labels) outside code, plain meta descriptions, no operator commands; robots.txt, the sitemap
// and the favicon answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "bank/markdown.h"
#include "calc/derivation.h"
#include "web/app_test_util.h"
#include "web/pages.h"
#include "web/wording.h"

namespace ridge::web {
namespace {

using app_testing::contains;
using app_testing::get;

// The text a reader sees: tags dropped, and the insides of code, pre, script, style and
// textarea left out (a backtick in a code sample is code).
std::string visible_text(const std::string& html) {
  std::string out;
  static const std::vector<std::string> kSkipped = {"code", "pre", "script", "style", "textarea"};
  for (size_t i = 0; i < html.size();) {
    if (html[i] != '<') {
      out += html[i++];
      continue;
    }
    bool skipped = false;
    for (const auto& tag : kSkipped) {
      if (html.compare(i + 1, tag.size(), tag) == 0 && (html[i + 1 + tag.size()] == '>' || html[i + 1 + tag.size()] == ' ')) {
        size_t close = html.find("</" + tag + ">", i);
        i = close == std::string::npos ? html.size() : close + tag.size() + 3;
        out += ' ';
        skipped = true;
        break;
      }
    }
    if (skipped) continue;
    size_t end = html.find('>', i);
    i = end == std::string::npos ? html.size() : end + 1;
    out += ' ';
  }
  return out;
}

std::string meta_description(const std::string& html) {
  std::smatch m;
  static const std::regex kMeta("<meta name=\"description\" content=\"([^\"]*)\">");
  return std::regex_search(html, m, kMeta) ? m[1].str() : std::string();
}

// A question's or a concept's Sources section, from its heading to the next heading, left out.
std::string without_citations(std::string html) {
  for (const char* heading : {"<h2 id=\"s-sources\">", "<h2>Sources</h2>"}) {
    size_t start = html.find(heading);
    if (start == std::string::npos) continue;
    size_t end = html.find("<h2", start + 4);
    html.erase(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return html;
}

std::string page_title(const std::string& html) {
  size_t open = html.find("<title>"), close = html.find("</title>");
  return open == std::string::npos || close == std::string::npos ? std::string() : html.substr(open + 7, close - open - 7);
}

std::vector<std::string> sitemap_paths() {
  Response map = get("/sitemap.xml");
  std::vector<std::string> paths;
  static const std::regex kLoc("<loc>http://localhost:8080([^<]*)</loc>");
  for (std::sregex_iterator it(map.body.begin(), map.body.end(), kLoc), end; it != end; ++it) paths.push_back((*it)[1].str());
  return paths;
}

// Hand-derived: md4c renders `kv` as <code>kv</code> and *fast* as <em>fast</em>; the footnote
// marker goes with the space before it; no <p> around one line.
TEST(Finding33, InlineMarkdownRendersALineAndItsPlainText) {
  EXPECT_EQ(bank::inline_markdown_html("Use `kv` and *fast* [^a]"), "Use <code>kv</code> and <em>fast</em>");
  EXPECT_EQ(bank::inline_markdown_html("8 < 9 & `a<b`"), "8 &lt; 9 &amp; <code>a&lt;b</code>");
  EXPECT_EQ(bank::markdown_plain("Use `kv` and **fast**[^a]."), "Use kv and fast.");
  EXPECT_EQ(bank::markdown_plain("a `<tag>` & b"), "a <tag> & b");
  EXPECT_EQ(bank::markdown_plain("plain words"), "plain words");
}

TEST(Finding33, RobotsSitemapAndFavicon) {
  Response robots = get("/robots.txt");
  EXPECT_EQ(robots.status, 200);
  EXPECT_TRUE(contains(robots.body, "Sitemap: http://localhost:8080/sitemap.xml"));
  EXPECT_TRUE(contains(robots.body, "Disallow: /api/"));
  Response map = get("/sitemap.xml");
  EXPECT_EQ(map.status, 200);
  EXPECT_TRUE(contains(map.content_type, "xml"));
  auto paths = sitemap_paths();
  // Every question, every calculator and the home page are in it.
  EXPECT_GE(paths.size(), app_testing::app().bank().questions.size() + 10);
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/calc/fit"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/q/" + app_testing::any_slug()), paths.end());
  for (const auto& p : paths) EXPECT_EQ(p.find('#'), std::string::npos) << p;
  Response icon = get("/favicon.ico");
  EXPECT_EQ(icon.status, 200);
  EXPECT_TRUE(contains(icon.content_type, "svg"));
  EXPECT_TRUE(contains(icon.body, "<svg"));
}

// 80 of 416 TL;DRs showed their backticks and 9 their footnote labels; meta descriptions
// carried the markers. Every page of the sitemap, as a visitor gets it.
TEST(Finding33, NoRawMarkdownOnAnyPage) {
  int pages = 0;
  for (const auto& path : sitemap_paths()) {
    Response r = get(path);
    ASSERT_TRUE(r.status == 200 || r.status == 402) << path << " " << r.status;
    std::string html(r.view());
    ++pages;
    std::string text = visible_text(html);
    EXPECT_FALSE(contains(text, "[^")) << path;
    std::string meta = meta_description(html);
    EXPECT_FALSE(contains(meta, "`")) << path << ": " << meta;
    EXPECT_FALSE(contains(meta, "[^")) << path << ": " << meta;
    EXPECT_FALSE(contains(meta, "**")) << path << ": " << meta;
    // No operator command on a visitor's page outside code samples.
    EXPECT_FALSE(contains(text, "ridge grant")) << path;
    // No code span left as its backticks, in the page or its <title> (question titles carried
    // them: "What happens between `torch.compile(model)` ..." in every list and in the tab).
    EXPECT_FALSE(contains(text, "`")) << path;
    EXPECT_FALSE(contains(page_title(html), "`")) << path << ": " << page_title(html);
    // Dates in words on every page ("updated 30 November 2026", a chip's figures "as of
    // 1 March 2022", a company's sources "read 1 December 2026"), not ISO dates. A date inside
    // code is code, and a question's own citations (its Sources section) keep the date as the
    // source printed it.
    static const std::regex kIsoDate("\\b\\d{4}-\\d{2}-\\d{2}\\b");
    std::smatch iso;
    std::string dated = visible_text(without_citations(html));
    EXPECT_FALSE(std::regex_search(dated, iso, kIsoDate)) << path << ": " << iso.str();
  }
  EXPECT_GT(pages, 400);
  // Summaries and TL;DRs: no raw text with its backticks in the topic lists or question pages.
  int marked = 0;
  for (const auto& q : app_testing::app().bank().questions) {
    if (q.summary.find('`') != std::string::npos) {
      ++marked;
      EXPECT_FALSE(contains(std::string(get("/topics/" + q.topic).view()), calc::html_escape(q.summary))) << q.slug;
    }
    if (q.free && q.tldr().find('`') != std::string::npos) {
      ++marked;
      EXPECT_FALSE(contains(std::string(get("/q/" + q.slug).view()), calc::html_escape(q.tldr()))) << q.slug;
    }
  }
  EXPECT_GT(marked, 0) << "the bank has summaries or TL;DRs with code spans";
}

// A behavioral question asked to "work the answer out on paper, with the numbers".
TEST(Finding33, BehavioralQuestionsAskForAStoryNotNumbers) {
  int behavioral = 0;
  for (const auto& q : app_testing::app().bank().questions) {
    if (!q.free) continue;
    std::string page(get("/q/" + q.slug).view());
    if (q.topic == "behavioral") {
      ++behavioral;
      EXPECT_FALSE(contains(page, "with the numbers")) << q.slug;
      EXPECT_TRUE(contains(page, "Tell your story aloud")) << q.slug;
    } else {
      EXPECT_TRUE(contains(page, "with the numbers")) << q.slug;
    }
  }
  EXPECT_GT(behavioral, 0) << "the bank has free behavioral questions";
}

// "cannot be combined with --model or --config" on a web form and in the widget's answers.
TEST(Finding33, CalculatorRefusalsNameFieldsNotFlags) {
  EXPECT_EQ(without_flags("cannot be combined with --model or --config"), "cannot be combined with \u2018model\u2019 or \u2018config\u2019");
  EXPECT_EQ(without_flags("(or give --params and --tokens)"), "(or give \u2018params\u2019 and \u2018tokens\u2019)");
  EXPECT_EQ(without_flags("a -- b, x--y, --9"), "a -- b, x--y, --9");
  Response api = get("/api/calc/training-memory?params=70B&model=llama-3.1-70b&gpus=8");
  EXPECT_EQ(api.status, 400);
  std::string body(api.view());
  EXPECT_TRUE(contains(body, "cannot be combined")) << body;
  EXPECT_FALSE(contains(body, "--model")) << body;
  Response page = get("/calc/training-memory?params=70B&model=llama-3.1-70b&gpus=8");
  EXPECT_FALSE(contains(visible_text(std::string(page.view())), "--model"));
}

// Calculator pages were headed by their ids ("fit", "mfu"); the heading is now the title in
// words that the calculator's own derivation carries.
TEST(Finding33, CalculatorsAreTitledInWords) {
  for (const auto& c : calc::testing::registry().all()) {
    std::string page(get("/calc/" + c.name).view());
    EXPECT_FALSE(contains(page, "<h1>" + c.name + "</h1>")) << c.name;
    auto d = calc::testing::registry().evaluate(c.name, example_values(c), calc::testing::real_catalog());
    ASSERT_TRUE(d.ok()) << c.name;
    EXPECT_TRUE(contains(page, "<h1>" + calc::html_escape((*d).title()) + "</h1>")) << c.name;
  }
}

// The home widget said "model id from data/models (or give 'config')": a repository path, a
// catalog id and a command-line flag, on the first page a visitor sees. No visitor page shows
// a path of the repository, a flag or an "id" to type, outside code.
TEST(Finding33, NoDeveloperTextOnAnyPage) {
  std::vector<std::string> paths = sitemap_paths();
  paths.push_back("/hardware");
  for (const auto& path : paths) {
    std::string html(get(path).view());
    std::string text = visible_text(html);
    static const std::regex kDeveloper("\\bdata/|\\.toml\\b|\\bid from\\b");
    std::smatch found;
    EXPECT_FALSE(std::regex_search(text, found, kDeveloper)) << path << ": " << found.str();
    // The product's own words name no flag: the calculators, the hardware and pricing pages, and
    // the home page's widget. Questions and concepts that teach an engine's flags (vLLM's
    // --gpu-memory-utilization) are about them and keep them, in their titles too.
    std::string own;
    if (path == "/") {
      size_t form = html.find("<form class=\"calc\" action=\"/calc/fit\"");
      own = visible_text(html.substr(form, html.find("</form>", form) - form));
    } else if (path.rfind("/calc", 0) == 0 || path == "/hardware" || path == "/pricing") {
      own = text;
    }
    static const std::regex kFlag("(^|[ (])--[a-z]");
    EXPECT_FALSE(std::regex_search(own, found, kFlag)) << path << ": " << found.str();
  }
  std::string home(get("/").view());
  EXPECT_TRUE(contains(home, "a model from the list")) << "the widget's model field says what to pick";
}

TEST(Finding33, PricingNamesNoOperatorCommand) {
  Response pricing = get("/pricing");
  ASSERT_EQ(pricing.status, 200);
  EXPECT_FALSE(contains(std::string(pricing.view()), "ridge grant"));
}

}  // namespace
}  // namespace ridge::web
