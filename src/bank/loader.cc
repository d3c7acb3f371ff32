#include "bank/loader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <optional>
#include <set>
#include <thread>

#include "bank/company_loader.h"
#include "bank/course_loader.h"
#include "bank/lint.h"
#include "bank/loader_stages.h"

namespace ridge::bank {
namespace fs = std::filesystem;

using namespace stages;

namespace {

// The words of a text, lower-cased, letters and digits only, for the seed-overlap check.
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string w;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80)) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      words.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(std::move(w));
  return words;
}

constexpr size_t kSharedRun = 12;

std::string run_at(const std::vector<std::string>& words, size_t i) {
  std::string run;
  for (size_t k = i; k < i + kSharedRun; ++k) run += (k > i ? " " : "") + words[k];
  return run;
}

// Every run of 12 words in the seed pages.
std::set<std::string> seed_runs(const fs::path& dir) {
  std::set<std::string> runs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".txt") continue;
    std::vector<std::string> words = words_of(read_file(entry.path()));
    for (size_t i = 0; i + kSharedRun <= words.size(); ++i) runs.insert(run_at(words, i));
  }
  return runs;
}

void check_seed_overlap(std::string_view text, const std::string& file, const std::set<std::string>& runs,
                        std::vector<Diagnostic>& diags) {
  std::vector<std::string> words = words_of(text);
  for (size_t i = 0; i + kSharedRun <= words.size(); ++i) {
    std::string run = run_at(words, i);
    if (runs.count(run)) {
      diags.push_back({file, 1, "shares a run of 12 words with the seed pages (\"" + run +
                                    "\"): say it in our own words"});
      return;
    }
  }
}

// Stage 5a: a concept's structure: the four teaching sections in order, Sources last if
// present, and enough words to teach (prose only: code and calc blocks do not count).
void check_concept_structure(Question& q, const std::string& file, int body_line, std::vector<Diagnostic>& diags) {
  std::vector<std::string> expected = {"What it is", "How it works", "Numbers to know", "The misconception"};
  std::vector<std::string> got = q.sections;
  if (!got.empty() && got.back() == "Sources") got.pop_back();
  if (got != expected) {
    diags.push_back({file, body_line, "a concept's sections are, in order: What it is, How it works, Numbers to know, "
                                      "The misconception (then Sources when anything is cited)"});
  }
  size_t words = 0;
  bool in_word = false;
  for (char c : q.plain_text) {
    bool w = std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80);
    if (w && !in_word) ++words;
    in_word = w;
  }
  q.word_count = static_cast<int>(words);
  if (words < 120) {
    diags.push_back({file, body_line, "a concept teaches in 150 to 400 words; this one has " + std::to_string(words) +
                                          " (at least 120 are required)"});
  }
}

// Stage 5b: the sections a question must have, in order.
void check_question_structure(const Question& q, const std::string& file, int body_line, std::vector<Diagnostic>& diags) {
  auto has = [&](std::string_view s) { return std::find(q.sections.begin(), q.sections.end(), s) != q.sections.end(); };
  if (q.sections.empty() || q.sections.front() != "Answer") diags.push_back({file, body_line, "the body starts with '## Answer'"});
  for (const char* required : {"Follow-ups", "Sources"}) {
    if (!has(required)) diags.push_back({file, body_line, "section '## " + std::string(required) + "' is missing"});
  }
  if (!has("Decision table") && !has("Signals") && !has("Diagram")) {
    diags.push_back({file, body_line, "a question needs at least one of '## Decision table', '## Signals', '## Diagram'"});
  }
  if (has("Sources") && q.sections.back() != "Sources") diags.push_back({file, body_line, "'## Sources' is the last section"});
  if (has("Follow-ups") && (q.follow_ups.size() < 2 || q.follow_ups.size() > 4)) {
    diags.push_back({file, body_line, "'## Follow-ups' holds " + std::to_string(q.follow_ups.size()) +
                                          " '### ' questions; it needs 2 to 4"});
  }
}

// Stage 6: every [^key] used is defined, and every definition is used.
void check_citations(const Question& q, const std::string& tldr_raw, int tldr_line, int body_line,
                     const LoadOptions& options, const std::string& file, std::vector<Diagnostic>& diags) {
  std::string all_prose = tldr_raw + "\n" + q.body_markdown;
  for (size_t pos = 0; (pos = all_prose.find("[^", pos)) != std::string::npos; pos += 2) {
    size_t close = all_prose.find(']', pos);
    if (close == std::string::npos) break;
    std::string key = all_prose.substr(pos + 2, close - pos - 2);
    bool definition = close + 1 < all_prose.size() && all_prose[close + 1] == ':' && (pos == 0 || all_prose[pos - 1] == '\n');
    if (definition) continue;
    if (!std::any_of(q.sources.begin(), q.sources.end(), [&](const SourceEntry& s) { return s.key == key; })) {
      int ln = body_line - 1 + static_cast<int>(std::count(all_prose.begin() + static_cast<long>(tldr_raw.size()) + 1,
                                                           all_prose.begin() + static_cast<long>(std::max(pos, tldr_raw.size() + 1)), '\n'));
      diags.push_back({file, pos <= tldr_raw.size() ? tldr_line : ln + 1, "citation [^" + key + "] has no definition in ## Sources"});
    }
  }
  for (const auto& s : q.sources) {
    // Cited means mentioned somewhere other than at the start of a line (its definition).
    std::string marker = "[^" + s.key + "]";
    bool cited = false;
    for (size_t pos = all_prose.find(marker); pos != std::string::npos && !cited; pos = all_prose.find(marker, pos + 1)) {
      cited = pos > 0 && all_prose[pos - 1] != '\n';
    }
    if (!cited && options.lint) diags.push_back({file, s.line, "source [^" + s.key + "] is never cited"});
    if (s.text.empty()) diags.push_back({file, s.line, "source [^" + s.key + "] says nothing: what, who, when"});
  }
}

}  // namespace

bool parse_question(std::string_view text, const std::string& file, const KnownIds& known,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    Question& q, std::vector<Diagnostic>& diags) {
  return parse_document(text, file, known, registry, catalog, options, DocKind::kQuestion, q, diags);
}

// The stages in order: front matter, its fields, calc blocks, the body's HTML, structure, citations.
bool parse_document(std::string_view text, const std::string& file, const KnownIds& known,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    DocKind doc, Question& q, std::vector<Diagnostic>& diags) {
  const bool is_concept = doc == DocKind::kConcept;
  size_t before = diags.size();
  q.file = file;
  q.slug = fs::path(file).stem().string();
  if (options.lint) lint_em_dashes(text, file, diags);

  std::optional<Split> split = split_front_matter(text, file, diags);
  if (!split) return false;
  auto fm = parse_toml(split->front, file, 1, diags);
  if (!fm) return false;
  std::string tldr_raw = read_front_matter(*fm, file, known, registry, options, doc, q, diags);
  int tldr_line = line_of(fm->get("tldr"), 1);

  q.body_markdown = std::string(text.substr(split->body_start));
  q.body_line = split->body_line;
  // render_bodies off: what the body's stages find from here on is the body's, not the load's.
  const bool lazy = !options.render_bodies && !is_concept;
  const size_t body_from = diags.size();
  std::vector<Block> blocks = split_blocks(q.body_markdown, split->body_line, file, diags);
  Results results;
  // Issue 30: a paid question's TL;DR that quotes blocks is made on its first read
  // (Question::tldr), not here; a free one's is made now (search indexes it, and its
  // answer's searched prose evaluates most of the same blocks anyway).
  const bool defer_tldr = lazy && !q.free && !blocks_quoted(blocks, tldr_raw, false).empty();
  if (lazy) {
    // Issue 30: only the blocks a free answer's TL;DR and searched prose quote, and what they
    // use (a paid answer's: none); the others on first request (evaluated_calcs,
    // answer_html). Should any of those fail, every block is evaluated, so the load reports
    // what an eager load would.
    const auto quoted = blocks_quoted(blocks, q.free ? std::string_view(tldr_raw) : std::string_view(), q.free);
    const size_t mark = diags.size();
    results = evaluate_calcs(blocks, registry, catalog, options, file, q, diags, &quoted);
    if (diags.size() != mark) {
      diags.resize(mark);
      q.calcs.clear();
      results = evaluate_calcs(blocks, registry, catalog, options, file, q, diags);
    }
  } else {
    results = evaluate_calcs(blocks, registry, catalog, options, file, q, diags);
  }

  if (defer_tldr) {
    q.defer_tldr(tldr_line, registry, catalog);
  } else {
    q.set_tldr(substitute_references(tldr_raw, results, tldr_line, file, diags));
  }
  if (options.lint) {
    lint_prose(tldr_raw, tldr_line, file, diags);
    lint_arithmetic(tldr_raw, tldr_line, file, diags);
    lint_arithmetic(q.title, line_of(fm->get("title"), 1), file, diags);
    lint_arithmetic(q.summary, line_of(fm->get("summary"), 1), file, diags);
  }

  BodyRenderer renderer(registry, catalog, options, results, is_concept, file, q, diags);
  renderer.set_html(!lazy);
  std::string html = renderer.render(blocks);
  if (!lazy) q.html = link_citations(std::move(html), q.sources);

  if (is_concept) {
    check_concept_structure(q, file, split->body_line, diags);
  } else {
    check_question_structure(q, file, split->body_line, diags);
  }
  check_citations(q, tldr_raw, tldr_line, split->body_line, options, file, diags);
  if (options.lint) {
    if (!is_concept) check_flip_cells(q.body_markdown, split->body_line, file, diags);
    check_retired_names(text, 1, file, known.policy, diags);
    check_source_kinds(q.sources, file, known.policy, diags);
    for (const auto& ref : q.companies) {
      if (const RefusedSource* r = refused_source(ref.source, known.policy)) {
        diags.push_back({file, 1, "[[companies]] " + ref.id + ": source cites " + r->domain + " (" + r->kind +
                                      "): cite the company's own page or a first-hand report"});
      }
    }
  }
  if (lazy) {
    // Only search reads the prose, and it indexes a free answer's only (what a payment buys
    // is not searchable): a paid question's is not kept for the server's life.
    if (!q.free) std::string().swap(q.plain_text);
    // The derivations (most of what a question kept) are read again only by its first
    // request, which evaluates the blocks anew (evaluated_calcs): none is kept.
    for (auto& c : q.calcs) c.derivation.reset();
    q.calcs_deferred = true;
    q.body_errors.assign(std::make_move_iterator(diags.begin() + static_cast<long>(body_from)), std::make_move_iterator(diags.end()));
    diags.resize(body_from);
  }
  return diags.size() == before || !q.title.empty();
}

std::vector<CalcBlock> evaluated_calcs(const Question& q, const calc::Registry& registry, const calc::Catalog& catalog) {
  if (!q.calcs_deferred) return q.calcs;
  Question scratch;
  std::vector<Diagnostic> ignored;  // a block that fails has no derivation, as at load
  std::vector<Block> blocks = split_blocks(q.body_markdown, q.body_line, q.file, ignored);
  LoadOptions options;
  options.lint = false;
  evaluate_calcs(blocks, registry, catalog, options, q.file, scratch, ignored);
  return std::move(scratch.calcs);
}

std::string answer_html(const Question& q, const calc::Registry& registry, const calc::Catalog& catalog) {
  if (!q.body_errors.empty()) throw BrokenBody(q.body_errors.front().to_string());
  if (!q.html.empty()) return q.html;
  // Stages 3 and 4 again, as the load runs them, on a scratch question: the renderer collects
  // into the question it is given, and `q` is shared by every request. What the load left to
  // this request (its calc blocks but those the TL;DR and search quote, the references of a
  // paid answer's prose, the diagrams) is checked here: a problem refuses the body.
  Question scratch;
  scratch.slug = q.slug;
  scratch.file = q.file;
  scratch.free = q.free;
  std::vector<Diagnostic> found;
  std::vector<Block> blocks = split_blocks(q.body_markdown, q.body_line, q.file, found);
  LoadOptions options;
  options.lint = false;
  Results results;
  if (q.calcs_deferred) {
    results = evaluate_calcs(blocks, registry, catalog, options, q.file, scratch, found);
  } else {
    scratch.calcs = q.calcs;
    for (const auto& c : scratch.calcs) results[c.id] = c.derivation ? &*c.derivation : nullptr;
  }
  BodyRenderer renderer(registry, catalog, options, results, /*is_concept=*/false, q.file, scratch, found);
  std::string html = link_citations(renderer.render(blocks), scratch.sources);
  if (!found.empty()) throw BrokenBody(found.front().to_string());
  return html;
}

LoadResult load_bank(const fs::path& root, const calc::Registry& registry, const calc::Catalog& catalog,
                     const LoadOptions& options) {
  LoadResult result;
  Bank& bank = result.bank;
  auto& diags = result.errors;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    diags.push_back({root.string(), 0, "is not a directory (the content root holds topics.toml and questions/)"});
    return result;
  }
  auto rel = [&](const fs::path& p) { return fs::relative(p, root.parent_path().empty() ? "." : root.parent_path(), ec).string(); };
  fs::path topics_file = root / "topics.toml";
  if (!fs::exists(topics_file, ec)) {
    diags.push_back({rel(topics_file), 0, "is missing"});
    return result;
  }
  parse_topics(read_file(topics_file), rel(topics_file), bank, diags);

  KnownIds known;
  for (const auto& t : bank.topics) known.topics.insert(t.id);
  for (const auto& t : bank.tracks) known.tracks.insert(t.id);
  known.lab_builds = lab_build_ids(fs::weakly_canonical(root, ec).parent_path() / "lab" / "CMakeLists.txt");
  if (options.lint) {
    if (fs::path p = root / "retired-names.toml"; fs::exists(p, ec)) {
      parse_retired_names(read_file(p), rel(p), known.policy, diags);
    }
    if (fs::path p = root / "source-kinds.toml"; fs::exists(p, ec)) {
      parse_source_kinds(read_file(p), rel(p), known.policy, diags);
    }
  }
  // Concepts: ids first (prerequisites refer to each other), bodies after companies.
  std::vector<fs::path> concept_files;
  for (const auto& entry : fs::directory_iterator(root / "concepts", ec)) {
    if (entry.path().extension() != ".md") continue;
    concept_files.push_back(entry.path());
    known.concepts.insert(entry.path().stem().string());
  }
  std::sort(concept_files.begin(), concept_files.end());
  for (const auto& entry : fs::directory_iterator(root / "companies", ec)) {
    if (entry.path().extension() != ".toml") continue;
    std::string id = entry.path().stem().string();
    std::vector<Diagnostic> local;
    std::string company_text = read_file(entry.path());
    Company c = parse_company(company_text, id, rel(entry.path()), known, local);
    check_company_sources(c, known.policy, local);
    check_retired_names(company_text, 1, c.file, known.policy, local);
    if (options.lint) diags.insert(diags.end(), local.begin(), local.end());
    known.companies.insert(id);
    bank.companies.emplace(id, std::move(c));
  }

  // The concept pages parse on a thread of their own while the questions parse on the others
  // (a question needs only their ids, known above): 150 pages rendered in full were a fixed
  // cost on one core before the questions started (issue 30). Their diagnostics join the
  // load's in the same place as before.
  std::map<std::string, Question> concept_docs;
  std::vector<Diagnostic> concept_diags;
  std::vector<std::string> concept_names;
  for (const auto& path : concept_files) concept_names.push_back(rel(path));
  std::exception_ptr concept_failure;
  std::thread concept_thread([&] {
    for (size_t k = 0; k < concept_files.size(); ++k) {
      const fs::path& path = concept_files[k];
      std::string id = path.stem().string();
      Question doc;
      Concept c{id, id};
      c.file = concept_names[k];
      // The server (no lint) serves what is written and shows a stub as "being written"; the
      // checker holds every concept to the bar.
      std::vector<Diagnostic> local;
      try {
        parse_document(read_file(path), c.file, known, registry, catalog, options, DocKind::kConcept, doc, local);
      } catch (...) {  // rethrown by the loading thread, as when concepts were parsed on it
        concept_failure = std::current_exception();
        return;
      }
      if (options.lint) concept_diags.insert(concept_diags.end(), local.begin(), local.end());
      if (!doc.title.empty()) c.title = doc.title;
      c.summary = doc.summary;
      c.topic = doc.topic;
      c.updated = doc.updated;
      c.prerequisites = doc.concepts;
      c.calculators = doc.tracks;
      c.html = doc.html;
      c.stub = doc.word_count < 120;
      bank.concepts.emplace(id, std::move(c));
      concept_docs.emplace(id, std::move(doc));
    }
  });
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root / "questions", ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() == ".md") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  bank.questions.reserve(files.size());
  // Each file parses on its own (the registry and the catalog are read-only: the server reads
  // them from every thread), so the files are parsed on every core and then merged in file
  // order: the bank and its diagnostics are what a one-thread load made (issue 30: this is
  // most of what start-up has left to do once pages render on first request).
  struct Parsed {
    Question q;
    std::vector<Diagnostic> diags;
    bool ok = false;
  };
  std::vector<Parsed> parsed(files.size());
  // Made here: `rel` writes its error code, shared by all calls. `rel` resolves the whole path
  // (readlink on each part: 5% of start-up at 5,000 questions, on one core), so the questions
  // folder is resolved once and each file's path below it joined on lexically.
  std::vector<std::string> names;
  names.reserve(files.size());
  const fs::path questions_dir = root / "questions";
  const fs::path questions_rel = rel(questions_dir);
  for (const auto& path : files) names.push_back((questions_rel / path.lexically_relative(questions_dir)).string());
  {
    // A thread per core, fewer for a small bank (about 64 files a thread is worth starting).
    size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 16);
    threads = std::min(threads, files.size() / 64 + 1);
    std::atomic<size_t> next{0};
    auto parse_some = [&] {
      for (size_t i = next++; i < files.size(); i = next++) {
        Parsed& p = parsed[i];
        try {
          p.ok = parse_question(read_file(files[i]), names[i], known, registry, catalog, options, p.q, p.diags);
        } catch (const std::exception& e) {  // never out of a thread (that would end the process)
          p.diags.push_back({names[i], 1, std::string("could not be loaded: ") + e.what()});
        }
      }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(parse_some);
    parse_some();
    for (auto& t : pool) t.join();
  }
  concept_thread.join();
  if (concept_failure) std::rethrow_exception(concept_failure);
  diags.insert(diags.end(), std::make_move_iterator(concept_diags.begin()), std::make_move_iterator(concept_diags.end()));
  // Prerequisites form no cycle (a depth-first walk that meets a concept on its own path).
  {
    std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
    std::vector<std::string> path;
    std::function<void(const std::string&)> visit = [&](const std::string& id) {
      state[id] = 1;
      path.push_back(id);
      auto it = bank.concepts.find(id);
      if (it != bank.concepts.end()) {
        for (const auto& p : it->second.prerequisites) {
          if (state[p] == 1) {
            std::string cycle;
            for (auto k = std::find(path.begin(), path.end(), p); k != path.end(); ++k) cycle += *k + " -> ";
            diags.push_back({it->second.file, 1, "prerequisites form a cycle: " + cycle + p});
          } else if (state[p] == 0 && bank.concepts.count(p)) {
            visit(p);
          }
        }
      }
      path.pop_back();
      state[id] = 2;
    };
    for (const auto& [id, c] : bank.concepts) {
      if (options.lint && state[id] == 0) visit(id);
    }
  }

  std::map<std::string, std::string> slugs;
  for (size_t i = 0; i < files.size(); ++i) {
    const fs::path& path = files[i];
    const std::string& file = names[i];
    diags.insert(diags.end(), std::make_move_iterator(parsed[i].diags.begin()), std::make_move_iterator(parsed[i].diags.end()));
    if (!parsed[i].ok) continue;
    Question q = std::move(parsed[i].q);
    std::string dir_topic = path.parent_path().filename().string();
    if (!q.topic.empty() && dir_topic != q.topic) {
      diags.push_back({file, 1, "is in questions/" + dir_topic + "/ but its topic is '" + q.topic + "'"});
    }
    if (auto [it, inserted] = slugs.emplace(q.slug, file); !inserted) {
      diags.push_back({file, 1, "slug '" + q.slug + "' is already used by " + it->second});
      continue;
    }
    result.calc_blocks += static_cast<int>(q.calcs.size());
    result.snippets += static_cast<int>(q.snippets.size());
    bank.questions.push_back(std::move(q));
  }
  // A company page's question tags join the questions' own, with the source that justifies them.
  for (const auto& [cid, c] : bank.companies) {
    for (const auto& tag : c.questions) {
      auto it = std::find_if(bank.questions.begin(), bank.questions.end(), [&](const Question& q) { return q.slug == tag.slug; });
      if (it == bank.questions.end()) {
        if (options.lint) diags.push_back({c.file, 1, "question tag '" + tag.slug + "' is not a question in the bank"});
        continue;
      }
      const CompanySource* src = c.find_source(tag.source);
      std::string confidence = src == nullptr ? "limited" : src->kind == "company" ? "documented" : src->kind == "candidate" ? "partial" : "limited";
      std::string source_text = src == nullptr ? tag.source : src->title + " (" + src->url + ", read " + src->read + ")";
      if (std::none_of(it->companies.begin(), it->companies.end(), [&](const CompanyRef& r) { return r.id == cid; })) {
        it->companies.push_back({cid, source_text, confidence});
      }
    }
  }
  bank.build_indexes();

  if (options.lint && !options.seeds_dir.empty() && fs::is_directory(options.seeds_dir, ec)) {
    std::set<std::string> runs = seed_runs(options.seeds_dir);
    for (const auto& q : bank.questions) {
      check_seed_overlap(q.title + "\n" + q.summary + "\n" + q.tldr() + "\n" + q.plain_text, q.file, runs, diags);
    }
    if (fs::exists(root / "README.md", ec)) check_seed_overlap(read_file(root / "README.md"), rel(root / "README.md"), runs, diags);
  }

  // Courses, once questions and concepts are known.
  for (const auto& entry : fs::directory_iterator(root / "courses", ec)) {
    if (entry.path().extension() != ".toml") continue;
    std::vector<Diagnostic> local;
    std::string course_text = read_file(entry.path());
    Course c = parse_course(course_text, entry.path().stem().string(), rel(entry.path()), bank, registry,
                            catalog, options, local);
    check_retired_names(course_text, 1, c.file, known.policy, local);
    if (options.lint) diags.insert(diags.end(), local.begin(), local.end());
    bank.courses.emplace(c.id, std::move(c));
  }

  // Every concept is used by a question (its page lists them; an unused concept teaches
  // nothing the bank practises).
  {
    std::set<std::string> used;
    for (const auto& q : bank.questions) used.insert(q.concepts.begin(), q.concepts.end());
    for (const auto& [id, c] : bank.concepts) {
      if (options.lint && !used.count(id)) diags.push_back({c.file, 1, "concept '" + id + "' is used by no question (tag it in a question's concepts)"});
    }
  }

  // Internal links resolve (questions and concept pages).
  std::vector<const Question*> linked;
  for (const auto& q : bank.questions) linked.push_back(&q);
  if (options.lint) {
    for (const auto& [id, doc] : concept_docs) linked.push_back(&doc);
  }
  for (const Question* qp : linked) {
    const Question& q = *qp;
    for (const auto& [target, line] : q.links) {
      std::string_view t = target;
      auto after = [&](std::string_view prefix) { return std::string(t.substr(prefix.size())); };
      bool ok = true;
      if (t.rfind("/q/", 0) == 0) {
        ok = bank.find(after("/q/")) != nullptr;
      } else if (t.rfind("/concepts/", 0) == 0) {
        ok = bank.concepts.count(after("/concepts/")) > 0;
      } else if (t.rfind("/topics/", 0) == 0) {
        ok = bank.find_topic(after("/topics/")) != nullptr;
      } else if (t.rfind("/tracks/", 0) == 0) {
        ok = bank.find_track(after("/tracks/")) != nullptr;
      } else if (t.rfind("/calc/", 0) == 0) {
        ok = registry.find(after("/calc/")) != nullptr;
      } else {
        diags.push_back({q.file, line, "link " + target + " is not /q/, /concepts/, /topics/, /tracks/ or /calc/"});
        continue;
      }
      if (!ok) diags.push_back({q.file, line, "link " + target + " points to nothing in the bank"});
    }
  }
  return result;
}

}  // namespace ridge::bank
