// Stage 4 of loading a document: the body into HTML (md4c for the prose), collecting sections,
// sources, links and follow-ups on the way; citation markers become numbered links.
#include "bank/loader_stages.h"

#include <algorithm>

#include "bank/lint.h"

namespace ridge::bank::stages {

namespace {

// Citation markers survive md4c as plain text and are turned into links afterwards.
constexpr std::string_view kCiteOpen = "@@cite:";
constexpr std::string_view kSourceOpen = "@@src:";

std::string mark_citations(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("[^", pos);
    if (open == std::string_view::npos) break;
    size_t close = text.find(']', open);
    if (close == std::string_view::npos) break;
    out.append(text.substr(pos, open - pos));
    std::string key(text.substr(open + 2, close - open - 2));
    bool definition = close + 1 < text.size() && text[close + 1] == ':' && (open == 0 || text[open - 1] == '\n');
    if (definition) {
      out += "- " + std::string(kSourceOpen) + key + "@@";
      pos = close + 2;
    } else {
      out += std::string(kCiteOpen) + key + "@@";
      pos = close + 1;
    }
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace

std::string link_citations(std::string html, const std::vector<SourceEntry>& sources) {
  auto number = [&](const std::string& key) {
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i].key == key) return std::to_string(i + 1);
    }
    return std::string("?");
  };
  for (std::string_view marker : {kCiteOpen, kSourceOpen}) {
    for (size_t pos = 0; (pos = html.find(marker, pos)) != std::string::npos;) {
      size_t end = html.find("@@", pos + marker.size());
      if (end == std::string::npos) break;
      std::string key = html.substr(pos + marker.size(), end - pos - marker.size());
      std::string n = number(key);
      std::string repl = marker == kCiteOpen
                             ? "<sup class=\"cite\"><a href=\"#src-" + escape(key) + "\">[" + n + "]</a></sup>"
                             : "<span class=\"src\" id=\"src-" + escape(key) + "\">[" + n + "]</span>";
      html.replace(pos, end + 2 - pos, repl);
      pos += repl.size();
    }
  }
  return html;
}


std::string BodyRenderer::render(const std::vector<Block>& blocks) {
  for (const Block& b : blocks) {
    if (!b.fenced && b.text.find_first_not_of(" \t\n") == std::string::npos) continue;  // blank lines between fences
    if (!b.fenced) {
      prose(b);
      last_snippet_ = nullptr;
      continue;
    }
    std::istringstream info_words(b.info);
    std::string kind, mode;
    info_words >> kind >> mode;
    if (kind == "calc") {
      calc_block(b);
      last_snippet_ = nullptr;
    } else if (kind == "diagram") {
      diagram_block(b, mode, info_words);
      last_snippet_ = nullptr;
    } else if (kind == "output") {
      output_block(b);
      last_snippet_ = nullptr;
    } else if ((kind == "cpp" || kind == "python" || kind == "cuda") && (mode == "run" || mode == "compile")) {
      snippet_block(b, kind, mode);
    } else {
      html_ += "<pre><code" + (kind.empty() ? std::string() : " class=\"language-" + escape(kind) + "\"") + ">" +
               escape(b.text) + "</code></pre>\n";
      last_snippet_ = nullptr;
    }
  }
  return std::move(html_);
}

void BodyRenderer::heading(const std::string& line, int ln) {
  current_section_ = line.substr(3);
  q_.sections.push_back(current_section_);
  if (is_concept_) {
    if (std::find(kConceptSections.begin(), kConceptSections.end(), current_section_) == kConceptSections.end()) {
      diags_.push_back({file_, ln, "section '" + current_section_ +
                                       "' is not one of What it is, How it works, Numbers to know, The misconception, Sources"});
    }
  } else if (std::find(kSections.begin(), kSections.end(), current_section_) == kSections.end()) {
    diags_.push_back({file_, ln, "section '" + current_section_ +
                                     "' is not one of Answer, Decision table, Signals, Diagram, Follow-ups, Sources"});
  }
}

void BodyRenderer::source_definition(const std::string& line, int ln) {
  size_t close = line.find("]:");
  std::string key = line.substr(2, close - 2);
  std::string rest = line.substr(close + 2);
  if (current_section_ != "Sources") diags_.push_back({file_, ln, "source [^" + key + "] is defined outside ## Sources"});
  if (std::any_of(q_.sources.begin(), q_.sources.end(), [&](const SourceEntry& s) { return s.key == key; })) {
    diags_.push_back({file_, ln, "source [^" + key + "] is defined twice"});
  }
  size_t first = rest.find_first_not_of(' ');
  q_.sources.push_back({key, first == std::string::npos ? std::string() : rest.substr(first), ln});
}

void BodyRenderer::prose(const Block& b) {
  // The lines as views of the block (as std::getline splits them), not copies through an
  // istringstream: every prose line of every question passes here at start-up (issue 30).
  const std::string_view lines = b.text;
  int ln = b.line;
  for (size_t start = 0; start < lines.size(); ++ln) {
    const size_t end = std::min(lines.find('\n', start), lines.size());
    const std::string_view line = lines.substr(start, end - start);
    start = end + 1;
    if (line.substr(0, 3) == "## ") {
      heading(std::string(line), ln);
    } else if (line.substr(0, 4) == "### " && current_section_ == "Follow-ups") {
      q_.follow_ups.emplace_back(line.substr(4));
    } else if (line.substr(0, 2) == "[^" && line.find("]:") != std::string_view::npos) {
      source_definition(std::string(line), ln);
    }
    for (size_t pos = 0; (pos = line.find("](/", pos)) != std::string_view::npos; ++pos) {
      size_t close = line.find(')', pos);
      if (close != std::string_view::npos) q_.links.emplace_back(std::string(line.substr(pos + 2, close - pos - 2)), ln);
    }
  }
  if (options_.lint) {
    lint_prose(b.text, b.line, file_, diags_);
    lint_arithmetic(b.text, b.line, file_, diags_);
  }
  // Without HTML (`ridge serve`), a paid answer's text is not kept: search indexes a free one's
  // only. Its references are not substituted then either (its blocks are evaluated on first
  // request, issue 30): a broken one is found by that request, `ridge check` and --strict-bank.
  if (!html_on_ && !q_.free) return;
  std::string text = substitute_references(b.text, results_, b.line, file_, diags_);
  if (html_on_ || q_.free) q_.plain_text += text;
  if (html_on_) html_ += markdown_to_html(mark_citations(text));
}

void BodyRenderer::calc_block(const Block& b) {
  if (calc_index_ < q_.calcs.size() && q_.calcs[calc_index_].line == b.line - 1) {
    const CalcBlock& cb = q_.calcs[calc_index_++];
    if (cb.derivation && !cb.hidden && html_on_) html_ += calc::render_html(*cb.derivation);
  }
}

}  // namespace ridge::bank::stages
