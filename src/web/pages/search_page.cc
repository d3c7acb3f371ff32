// The search page: the form, filled in; the count, the hits and the pages.
#include "web/pages.h"



#include "web/http.h"
#include "web/pages/parts.h"

namespace ridge::web {

using namespace parts;

namespace {

// search.mustache: the form, filled in; the count, the hits and the pages.
struct SearchView {
  std::string query, topic, difficulty;
  std::vector<std::pair<std::string, std::string>> topics;  // id, name
  const std::vector<SearchHit>* hits = nullptr;
  SearchPaging paging;
};

View to_view(const SearchView& v) {
  View d;
  put(d, "query", v.query);
  ViewList topics, difficulties, hits, pages;
  for (const auto& [id, name] : v.topics) {
    View t;
    put(t, "id", id);
    put(t, "name", name);
    put(t, "selected", id == v.topic);
    topics.push_back(std::move(t));
  }
  put(d, "topics", std::move(topics));
  for (bank::Difficulty level : kDifficulties) {
    std::string name(bank::difficulty_name(level));
    View t;
    put(t, "name", name);
    put(t, "selected", name == v.difficulty);
    difficulties.push_back(std::move(t));
  }
  put(d, "difficulties", std::move(difficulties));
  put(d, "searched", !v.query.empty());
  const SearchPaging& paging = v.paging;
  int first = (paging.page - 1) * paging.per_page + 1;
  put(d, "total", std::to_string(paging.total));
  put(d, "plural", paging.total != 1);
  put(d, "shown", paging.total > paging.per_page && !v.hits->empty());
  put(d, "first", std::to_string(first));
  put(d, "last", std::to_string(first + static_cast<int>(v.hits->size()) - 1));
  put(d, "timed_out", paging.timed_out);
  for (const auto& h : *v.hits) {
    View hit;
    put(hit, "href", h.kind == "question" ? "/q/" + h.id : "/concepts/" + h.id);
    put(hit, "title", h.title);
    put(hit, "tag", h.kind == "question" ? h.difficulty : "concept");
    put(hit, "snippet_html", h.snippet_html);  // escaped by the search index, with <mark> around matches
    hits.push_back(std::move(hit));
  }
  put(d, "hits", std::move(hits));
  int count = (paging.total + paging.per_page - 1) / paging.per_page;
  put(d, "paged", count > 1);
  std::string base = "/search?q=" + url_encode(v.query) + (v.topic.empty() ? "" : "&topic=" + url_encode(v.topic)) +
                     (v.difficulty.empty() ? "" : "&difficulty=" + url_encode(v.difficulty)) + "&page=";
  auto link = [&](int p) { return object_with("href", base + std::to_string(p)); };
  put(d, "prev", paging.page > 1 ? link(paging.page - 1) : View(false));
  put(d, "next", paging.page < count ? link(paging.page + 1) : View(false));
  for (int p = 1; count > 1 && p <= count; ++p) {
    View page = link(p);
    put(page, "n", std::to_string(p));
    put(page, "current", p == paging.page);
    pages.push_back(std::move(page));
  }
  put(d, "pages", std::move(pages));
  return d;
}

}  // namespace

std::string search_page(const Site& site, const std::string& query, const std::string& topic,
                        const std::string& difficulty, const std::vector<SearchHit>& hits, const SearchPaging& paging) {
  SearchView v{query, topic, difficulty, {}, &hits, paging};
  for (const auto& t : site.bank.topics) v.topics.emplace_back(t.id, t.name);
  return layout(site, query.empty() ? "Search" : "Search: " + query, "Search questions and concepts", render("search", to_view(v)));
}

}  // namespace ridge::web
