#include "bank/checks.h"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "calc/expr.h"
#include "calc/params.h"

namespace ridge::bank {
namespace {

int node_line(const toml::node* n) { return n ? static_cast<int>(n->source().begin.line) : 1; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

int line_at(std::string_view text, size_t offset, int first_line) {
  return first_line + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

// Parses `text` as TOML and calls `each` for every table of the array `key`, with a reader
// of its string fields that reports a missing one.
template <typename Each>
void for_each_entry(std::string_view text, const std::string& file, const char* key, std::vector<Diagnostic>& diags,
                    Each each) {
  toml::table t;
  try {
    t = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    diags.push_back({file, static_cast<int>(e.source().begin.line), std::string("TOML: ") + std::string(e.description())});
    return;
  }
  const toml::array* entries = t[key].as_array();
  if (entries == nullptr) {
    diags.push_back({file, 1, std::string("no [[") + key + "]] entries"});
    return;
  }
  for (const auto& node : *entries) {
    const toml::table* e = node.as_table();
    if (e == nullptr) continue;
    int ln = node_line(&node);
    auto field = [&](const char* name, bool required) {
      if (auto v = (*e)[name].value<std::string>()) {
        if (!v->empty() || !required) return *v;
      }
      if (required) diags.push_back({file, ln, std::string("[[") + key + "]] needs a non-empty '" + name + "'"});
      return std::string();
    };
    each(*e, ln, field);
  }
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Spans of http(s) URLs, blanked before names are searched (a URL path may carry an old
// name legitimately: the address of the page that documents the rename).
std::string mask_urls(std::string_view text) {
  std::string s(text);
  for (size_t pos = 0; (pos = s.find("http", pos)) != std::string::npos;) {
    if (s.compare(pos, 7, "http://") != 0 && s.compare(pos, 8, "https://") != 0) {
      pos += 4;
      continue;
    }
    size_t end = pos;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) && s[end] != ')' && s[end] != '>' &&
           s[end] != '"') {
      ++end;
    }
    std::fill(s.begin() + static_cast<long>(pos), s.begin() + static_cast<long>(end), ' ');
    pos = end;
  }
  return s;
}

// The sentence around `offset`: it ends at ". ", "? ", "! ", a blank line, a table cell
// border, or the end of a line that is code, a list item, a heading or a table row.
std::pair<size_t, size_t> sentence_at(std::string_view s, size_t offset, bool in_code) {
  size_t line_begin = offset == 0 ? std::string_view::npos : s.rfind('\n', offset - 1);
  line_begin = line_begin == std::string_view::npos ? 0 : line_begin + 1;
  size_t line_end = s.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = s.size();
  std::string_view line = s.substr(line_begin, line_end - line_begin);
  bool line_bound = in_code || line.rfind("|", 0) == 0 || line.rfind("- ", 0) == 0 || line.rfind("#", 0) == 0 ||
                    line.rfind("    ", 0) == 0 || line.rfind("[^", 0) == 0;
  auto is_end = [&](size_t k) {
    if (s[k] == '|' && line_bound) return true;
    if ((s[k] == '.' || s[k] == '?' || s[k] == '!') && k + 1 < s.size() && (s[k + 1] == ' ' || s[k + 1] == '\n')) return true;
    if (s[k] == '\n') return line_bound || (k + 1 < s.size() && s[k + 1] == '\n') || k + 1 >= s.size();
    return false;
  };
  size_t begin = offset;
  while (begin > 0 && !is_end(begin - 1) && (!line_bound || begin > line_begin)) --begin;
  size_t end = offset;
  while (end < s.size() && !is_end(end) && (!line_bound || end < line_end)) ++end;
  return {begin, end};
}

constexpr std::array<std::string_view, 6> kRenameWords = {"renamed", "deprecated", "replaced", "formerly", "retired",
                                                          "older"};

// The host and path of the first http(s) URL in `text`, lowercased, without "www.".
std::pair<std::string, std::string> first_url(std::string_view text) {
  size_t pos = text.find("://");
  while (pos != std::string_view::npos) {
    size_t scheme = pos >= 5 && text.substr(pos - 5, 5) == "https" ? pos - 5 : pos >= 4 ? pos - 4 : pos;
    if (text.substr(scheme, pos - scheme) == "http" || text.substr(scheme, pos - scheme) == "https") break;
    pos = text.find("://", pos + 3);
  }
  if (pos == std::string_view::npos) return {};
  size_t host_begin = pos + 3;
  size_t end = host_begin;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ')' && text[end] != '>') {
    ++end;
  }
  std::string url = lower(text.substr(host_begin, end - host_begin));
  size_t slash = url.find('/');
  std::string host = url.substr(0, slash);
  std::string path = slash == std::string::npos ? "/" : url.substr(slash);
  if (size_t colon = host.find(':'); colon != std::string::npos) host.resize(colon);
  if (host.rfind("www.", 0) == 0) host.erase(0, 4);
  return {host, path};
}

}  // namespace

void parse_retired_names(std::string_view text, const std::string& file, ContentPolicy& policy,
                         std::vector<Diagnostic>& diags) {
  for_each_entry(text, file, "retired", diags, [&](const toml::table&, int ln, auto& field) {
    RetiredName r{field("name", true), field("replacement", true), field("since", true), field("source", true), ln};
    if (r.source.rfind("https://", 0) != 0) {
      diags.push_back({file, ln, "retired name '" + r.name + "': source '" + r.source.substr(0, 80) +
                                     "' is not an https URL (the page that documents the rename)"});
    }
    if (!r.name.empty()) policy.retired.push_back(std::move(r));
  });
}

void parse_source_kinds(std::string_view text, const std::string& file, ContentPolicy& policy,
                        std::vector<Diagnostic>& diags) {
  static constexpr std::array<std::string_view, 7> kKinds = {"news", "forum", "mirror", "aggregator", "content farm",
                                                             "job-prep service", "model card"};
  for_each_entry(text, file, "refused", diags, [&](const toml::table& e, int ln, auto& field) {
    RefusedSource r{lower(field("domain", true)), lower(field("path", false)), field("kind", true), field("why", true),
                    e["candidate_reports"].value_or(false), ln};
    if (!r.kind.empty() && std::find(kKinds.begin(), kKinds.end(), r.kind) == kKinds.end()) {
      diags.push_back({file, ln, "refused source '" + r.domain + "': kind '" + r.kind +
                                     "' is not one of news, forum, mirror, aggregator, content farm, job-prep service, "
                                     "model card"});
    }
    if (r.path.empty()) r.path = "/";
    if (!r.domain.empty()) policy.refused.push_back(std::move(r));
  });
}

void check_flip_cells(std::string_view body, int first_line, const std::string& file, std::vector<Diagnostic>& diags) {
  static constexpr std::array<std::string_view, 7> kRefused = {"none", "never", "nothing", "n/a", "na", "-", "\xE2\x80\x93"};
  bool in_table_section = false, in_fence = false;
  int rows = 0;  // rows of the current table: the first is its header, the second its rule
  size_t pos = 0;
  for (int ln = first_line; pos <= body.size(); ++ln) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("```", 0) == 0) in_fence = !in_fence;
    if (in_fence) continue;
    if (line.rfind("## ", 0) == 0) {
      in_table_section = line == "## Decision table";
      rows = 0;
      continue;
    }
    if (!in_table_section || line.rfind("|", 0) != 0) {
      rows = 0;
      continue;
    }
    if (++rows <= 2) continue;  // header and rule
    std::string_view row = line;
    while (!row.empty() && (row.back() == ' ' || row.back() == '\r')) row.remove_suffix(1);
    if (!row.empty() && row.back() == '|') row.remove_suffix(1);
    size_t bar = row.rfind('|');
    std::string cell = lower(bar == std::string_view::npos ? row : row.substr(bar + 1));
    // The first word, markup and trailing punctuation aside ("**never**", "none:", "never.").
    size_t b = cell.find_first_not_of(" *_`");
    std::string first;
    if (b != std::string::npos) {
      size_t e = b;
      while (e < cell.size() && cell[e] != ' ' && cell[e] != ':' && cell[e] != ';' && cell[e] != ',' && cell[e] != '.' &&
             cell[e] != '*' && cell[e] != '_' && cell[e] != '(') {
        ++e;
      }
      first = cell.substr(b, e - b);
    }
    bool refused = first.empty() || std::find(kRefused.begin(), kRefused.end(), first) != kRefused.end();
    if (refused) {
      std::string shown = cell.substr(b == std::string::npos ? cell.size() : b);
      while (!shown.empty() && shown.back() == ' ') shown.pop_back();
      diags.push_back({file, ln, "decision table: the last cell '" + shown.substr(0, 60) +
                                     "' states no flip; the last column is the condition that reverses the choice "
                                     "(with its number where one exists), not none, never, nothing, n/a, - or empty"});
    }
  }
}

void check_retired_names(std::string_view text, int first_line, const std::string& file, const ContentPolicy& policy,
                         std::vector<Diagnostic>& diags) {
  if (policy.retired.empty()) return;
  std::string s = mask_urls(text);
  // Offsets where fenced code starts and ends: a line of code is a sentence of its own.
  std::vector<std::pair<size_t, size_t>> fences;
  for (size_t pos = 0, fence_open = std::string::npos; pos < s.size();) {
    size_t end = s.find('\n', pos);
    if (end == std::string::npos) end = s.size();
    if (s.compare(pos, 3, "```") == 0) {
      if (fence_open == std::string::npos) {
        fence_open = pos;
      } else {
        fences.emplace_back(fence_open, end);
        fence_open = std::string::npos;
      }
    }
    pos = end + 1;
  }
  auto in_code = [&](size_t pos) {
    return std::any_of(fences.begin(), fences.end(), [&](const auto& f) { return pos > f.first && pos < f.second; });
  };
  for (const RetiredName& r : policy.retired) {
    for (size_t pos = 0; (pos = s.find(r.name, pos)) != std::string::npos; pos += r.name.size()) {
      // Whole identifiers only: DCGM_FI_DEV_X must not match DCGM_FI_DEV_X_Y, nor a flag
      // --foo match --foo-bar.
      size_t after = pos + r.name.size();
      bool left = pos == 0 || !(is_ident_char(s[pos - 1]) || s[pos - 1] == '-');
      bool right = after >= s.size() || !(is_ident_char(s[after]) || s[after] == '-');
      if (!left || !right) continue;
      auto [b, e] = sentence_at(s, pos, in_code(pos));
      std::string sentence = lower(std::string_view(s).substr(b, e - b));
      bool about_rename = sentence.find(lower(r.replacement)) != std::string::npos;
      for (std::string_view w : kRenameWords) about_rename = about_rename || sentence.find(w) != std::string::npos;
      if (about_rename) continue;
      diags.push_back({file, line_at(s, pos, first_line), "'" + r.name + "' is retired (" + r.since + "): write '" +
                                                              r.replacement + "' (" + r.source +
                                                              "), or say in the sentence that it was renamed"});
    }
  }
}

const RefusedSource* refused_source(std::string_view url_or_text, const ContentPolicy& policy) {
  auto [host, path] = first_url(url_or_text);
  if (host.empty()) return nullptr;
  for (const RefusedSource& r : policy.refused) {
    bool host_match = host == r.domain ||
                      (host.size() > r.domain.size() && host.compare(host.size() - r.domain.size(), r.domain.size(), r.domain) == 0 &&
                       host[host.size() - r.domain.size() - 1] == '.');
    if (host_match && path.rfind(r.path, 0) == 0) return &r;
  }
  return nullptr;
}

void check_source_kinds(const std::vector<SourceEntry>& sources, const std::string& file, const ContentPolicy& policy,
                        std::vector<Diagnostic>& diags) {
  for (const SourceEntry& s : sources) {
    const RefusedSource* r = refused_source(s.text, policy);
    if (r == nullptr) continue;
    if (lower(s.text).find("cited as the subject") != std::string::npos) continue;
    diags.push_back({file, s.line, "source [^" + s.key + "] cites " + r->domain + " (" + r->kind + ": " + r->why +
                                       "): cite the primary source (the paper, datasheet, standard, project or "
                                       "company page), or say 'cited as the subject' when this page is itself what "
                                       "the sentence is about"});
  }
}

void check_company_sources(const Company& company, const ContentPolicy& policy, std::vector<Diagnostic>& diags) {
  for (const CompanySource& s : company.sources) {
    const RefusedSource* r = refused_source(s.url, policy);
    if (r == nullptr) continue;
    if (r->candidate_reports && s.kind == "candidate") continue;
    diags.push_back({company.file, s.line, "source '" + s.id + "' cites " + r->domain + " (" + r->kind + ": " + r->why + ")" +
                                          (r->candidate_reports ? "; this host is accepted only as a first-hand "
                                                                  "candidate report (kind = \"candidate\")"
                                                                : "; cite the company's own page or posting")});
  }
}

namespace {

// A link the catalog holds and the name to read it by.
struct CatalogLink {
  double rate;
  std::string what, use;
};

// Every link of a catalog system GPU (its scale-up both ways and per direction, one NIC, the
// node's NICs, its host link per direction). `calculator`: allreduce and alltoall are offered
// the fabric model as well. Only chips with a system entry: their links are the fabric
// model's (a PCIe card's "scale-up" is its host link, and a typed 64 GB/s is as often
// PCIe 5.0 as an L40S).
std::vector<CatalogLink> catalog_links(const calc::HardwareCatalog& hardware, std::string_view calculator) {
  std::vector<CatalogLink> links;
  const bool collective_call = calculator == "allreduce" || calculator == "alltoall";
  for (const calc::Accelerator& g : hardware.all()) {
    if (!g.has_system()) continue;
    const std::string chip = "`chip gpu=" + g.id + "`";
    const std::string collective =
        collective_call ? std::string(calculator) + " gpu=" + g.id + " (the fabric model), or " : "";
    links.push_back({g.scale_up_bandwidth, g.id + " " + g.scale_up + " both directions added (per direction is half)",
                     collective + "{{ID.scale_up_per_direction}} from " + chip});
    links.push_back({g.scale_up_bandwidth / 2, g.id + " " + g.scale_up + " per direction",
                     collective + "{{ID.scale_up_per_direction}} from " + chip});
    links.push_back({g.system.nic_bandwidth, g.system.name + ": one NIC, one direction",
                     collective + "{{ID.nic_bandwidth}} from " + chip + " (a group of one GPU per node uses one NIC)"});
    links.push_back({g.system.nics * g.system.nic_bandwidth, g.system.name + ": all its NICs together, one direction",
                     collective + "{{ID.node_nic_bandwidth}} from " + chip +
                         " (a collective spanning whole nodes uses all of them)"});
    if (g.host_link_bandwidth > 0) {
      links.push_back({g.host_link_bandwidth, g.id + " host link (PCIe) per direction",
                       "{{ID.host_link_per_direction}} from " + chip});
    }
  }
  return links;
}

const CatalogLink* matching_link(const std::vector<CatalogLink>& links, double rate) {
  for (const CatalogLink& l : links) {
    if (l.rate > 0 && std::fabs(rate - l.rate) <= 0.005 * l.rate) return &l;
  }
  return nullptr;
}

}  // namespace

void check_typed_links(std::string_view calculator, const std::map<std::string, std::string, std::less<>>& args,
                       const calc::HardwareCatalog& hardware, const std::string& file, int line, const std::string& id,
                       std::vector<Diagnostic>& diags) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kLinkFlags = {
      {"allreduce", {"bus-bandwidth"}}, {"alltoall", {"intra-bandwidth", "inter-bandwidth"}}, {"transfer", {"bandwidth"}}};
  auto flags = kLinkFlags.find(calculator);
  if (flags == kLinkFlags.end()) return;
  // A transfer that says it crosses storage or a wide-area link is not a catalog link.
  if (auto m = args.find("medium"); m != args.end() && m->second != "link") return;
  const std::vector<CatalogLink> links = catalog_links(hardware, calculator);
  calc::ParamSpec spec;
  spec.unit = calc::Unit::kBytesPerSecond;
  for (const std::string& flag : flags->second) {
    for (const auto& [key, value] : args) {
      if (calc::normalize_param_name(key) != flag || value.find("{{") != std::string::npos) continue;
      auto rate = calc::parse_number(spec, value);
      if (!rate || *rate <= 0) continue;
      if (const CatalogLink* l = matching_link(links, *rate)) {
        diags.push_back({file, line, "calc " + id + ": " + key + "=" + value + " is a link the catalog holds (" + l->what +
                                         "); name it instead of typing it: " + l->use});
      }
    }
  }
}

void check_typed_link_literals(std::string_view block_text, int first_line, const calc::HardwareCatalog& hardware,
                               const std::string& file, const std::string& id, std::vector<Diagnostic>& diags) {
  std::vector<calc::RateLiteral> literals = calc::expr_rate_literals(block_text);
  if (literals.empty()) return;
  const std::vector<CatalogLink> links = catalog_links(hardware, "expr");
  for (const calc::RateLiteral& lit : literals) {
    const CatalogLink* l = matching_link(links, lit.value);
    if (l == nullptr) continue;
    // The exemptions, on the line just above: the number is itself what the answer is about
    // (a unit conversion, a NIC generation compared with the next), or the rate crosses no
    // catalog link (a filesystem, a wide-area wave, host DRAM). Each names its reason.
    std::string_view c = lit.comment_above;
    bool exempt = false;
    for (std::string_view tag : {"subject:", "medium=storage:", "medium=wan:", "medium=memory:"}) {
      if (c.substr(0, tag.size()) != tag) continue;
      exempt = c.find_first_not_of(' ', tag.size()) != std::string_view::npos;
    }
    if (exempt) continue;
    diags.push_back({file, first_line + lit.line,
                     "calc " + id + ": " + lit.name + " types " + lit.text + ", a link the catalog holds (" + l->what +
                         "); read it from the catalog: " + l->use +
                         "; or, only where the number itself is the subject or it crosses no catalog link, say why on "
                         "the line above: '# subject: WHY' or '# medium=storage|wan|memory: WHAT'"});
  }
}

}  // namespace ridge::bank
