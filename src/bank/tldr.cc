// A question's TL;DR, made on its first read when the load deferred it (issue 30, item 3):
// the blocks a paid question's TL;DR quotes were most of the calc evaluation left at start-up
// (25% of it at 5,000 questions, bench/README.md), for text read only when someone opens that
// question, its paywall, a review or the API with a session.
#include <mutex>

#include "bank/loader.h"
#include "bank/loader_stages.h"

namespace ridge::bank {

struct Question::DeferredTldr {
  const calc::Registry* registry = nullptr;
  const calc::Catalog* catalog = nullptr;
  int line = 0;  // of the front matter's tldr
  std::once_flag once;
  std::string text;   // made
  std::string error;  // or why not: the first problem, "file:line: message"
};

namespace {

// What the load does for an eager TL;DR (loader.cc: the blocks it quotes, then its references),
// on a scratch question: `q` is shared by every request.
void make_tldr(const Question& q, const calc::Registry& registry, const calc::Catalog& catalog, int line,
               std::string& text, std::string& error) {
  std::vector<Diagnostic> found, body_only;  // the body's own problems are answer_html's to report
  std::vector<Block> blocks = split_blocks(q.body_markdown, q.body_line, q.file, body_only);
  const auto quoted = stages::blocks_quoted(blocks, q.tldr_markdown, /*with_prose=*/false);
  LoadOptions options;
  options.lint = false;
  Question scratch;
  stages::Results results = stages::evaluate_calcs(blocks, registry, catalog, options, q.file, scratch, found, &quoted);
  text = substitute_references(q.tldr_markdown, results, line, q.file, found);
  if (!found.empty()) {
    error = found.front().to_string();
    text.clear();
  }
}

}  // namespace

const std::string& Question::tldr() const {
  if (!deferred_tldr_) return tldr_;
  DeferredTldr& d = *deferred_tldr_;
  // An exception out of the evaluation (none is expected: problems are diagnostics) leaves
  // the flag unset, and the next read tries again.
  std::call_once(d.once, [&] { make_tldr(*this, *d.registry, *d.catalog, d.line, d.text, d.error); });
  if (!d.error.empty()) throw BrokenBody(d.error);
  return d.text;
}

const std::string& Question::listed_tldr() const noexcept {
  try {
    return tldr();
  } catch (...) {
    return summary;
  }
}

void Question::set_tldr(std::string text) {
  tldr_ = std::move(text);
  deferred_tldr_.reset();
}

void Question::defer_tldr(int line, const calc::Registry& registry, const calc::Catalog& catalog) {
  tldr_.clear();
  deferred_tldr_ = std::make_shared<DeferredTldr>();
  deferred_tldr_->registry = &registry;
  deferred_tldr_->catalog = &catalog;
  deferred_tldr_->line = line;
}

void Question::rebind_tldr(const calc::Registry& registry, const calc::Catalog& catalog) {
  if (!deferred_tldr_) return;
  deferred_tldr_->registry = &registry;
  deferred_tldr_->catalog = &catalog;
}

}  // namespace ridge::bank
