// The body's directives: the fenced blocks that are not code to show (a diagram drawn by the
// engine, a program's output, a snippet that ridge check compiles or runs).
#include "bank/loader_stages.h"

#include "diagram/diagrams.h"

namespace ridge::bank::stages {

void BodyRenderer::diagram_block(const Block& b, const std::string& kind, std::istringstream& words) {
  DiagramBlock d;
  d.line = b.line - 1;
  d.kind = kind;
  std::string word;
  bool syntax_ok = true;
  while (words >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == word.size()) {
      diags_.push_back({file_, d.line, "diagram parameter '" + word + "' is not key=value"});
      syntax_ok = false;
      continue;
    }
    d.params[word.substr(0, eq)] = word.substr(eq + 1);
  }
  const calc::Derivation* from = nullptr;
  if (auto f = d.params.find("from"); f != d.params.end()) {
    auto found = results_.find(f->second);
    if (found == results_.end()) {
      diags_.push_back({file_, d.line, "diagram from=" + f->second + ": no calc block with that id"});
      syntax_ok = false;
    } else {
      from = found->second;
      if (from == nullptr) syntax_ok = false;  // that block's own error is reported
    }
  }
  // Without HTML (`ridge serve`) the diagram is drawn with its page, on first request (the
  // block it is drawn from may not be evaluated yet, issue 30); its parameters are kept.
  if (syntax_ok && html_on_) {
    calc::Given given(d.params.begin(), d.params.end());
    diagram::Options opts;
    opts.id = q_.slug + "-d" + std::to_string(q_.diagrams.size() + 1);
    auto drawn = diagram::draw(d.kind, given, registry_, catalog_, opts, from);
    if (drawn) {
      html_ += "<figure class=\"diagram\">" + drawn->svg + "<figcaption>" + escape(drawn->title) + "</figcaption></figure>\n";
    } else {
      for (const auto& e : drawn.errors()) diags_.push_back({file_, d.line, "diagram " + d.kind + ": " + e.to_string()});
    }
  }
  q_.diagrams.push_back(std::move(d));
}

void BodyRenderer::output_block(const Block& b) {
  if (last_snippet_ == nullptr) {
    diags_.push_back({file_, b.line - 1, "```output must follow a snippet (```cpp run, ```python run)"});
  } else {
    q_.snippets.back().expected_output = b.text;
  }
  html_ += "<pre class=\"output\"><code>" + escape(b.text) + "</code></pre>\n";
}

void BodyRenderer::snippet_block(const Block& b, const std::string& kind, const std::string& mode) {
  if (kind == "cuda" && mode == "run") {
    diags_.push_back({file_, b.line - 1, "```cuda run is not supported: use ```cuda compile (CI has no GPU)"});
  }
  q_.snippets.push_back({kind, mode, b.text, std::nullopt, b.line - 1});
  last_snippet_ = &q_.snippets.back();
  html_ += "<pre class=\"snippet\" data-lang=\"" + escape(kind) + "\"><code class=\"language-" + escape(kind) + "\">" +
           escape(b.text) + "</code></pre>\n";
}

}  // namespace ridge::bank::stages
