#include "web/export/site_export.h"

#include <fstream>
#include <set>

#include "diagram/diagrams.h"
#include "web/routes/content_routes.h"
#include "web/routes/export_routes.h"

namespace ridge::web::exports {

namespace fs = std::filesystem;

std::string file_for(const std::string& path) {
  if (path == "/") return "index.html";
  if (path.rfind("/static/", 0) == 0 || (path.size() > 12 && path.compare(path.size() - 12, 12, "/diagram.svg") == 0)) {
    return path.substr(1);
  }
  return path.substr(1) + ".html";
}

std::string relativize(const std::string& html, const std::string& page_file, const std::set<std::string>& exported) {
  std::string up;
  for (char c : page_file) {
    if (c == '/') up += "../";
  }
  std::string out;
  out.reserve(html.size() + html.size() / 16);
  size_t i = 0;
  while (i < html.size()) {
    size_t best = std::string::npos, attr_len = 0;
    for (std::string_view attr : {" href=\"/", " src=\"/", " action=\"/", " data-base=\"/"}) {
      size_t at = html.find(attr, i);
      if (at < best) {
        best = at;
        attr_len = attr.size();
      }
    }
    if (best == std::string::npos) {
      out.append(html, i, std::string::npos);
      break;
    }
    size_t value = best + attr_len - 1;  // at the "/"
    size_t end = html.find('"', value);
    if (end == std::string::npos) end = html.size();
    out.append(html, i, value - i);
    std::string url = html.substr(value, end - value);
    size_t cut = url.find_first_of("?#");
    std::string path = url.substr(0, cut), rest = cut == std::string::npos ? "" : url.substr(cut);
    if (path.size() > 1 && path.back() == '/') path.pop_back();
    if (url.rfind("//", 0) == 0) {
      out += url;  // another host: left alone
    } else if (exported.count(path)) {
      // A query on a copied page (a calculator's inputs) cannot be answered from disk.
      out += up + file_for(path) + (rest.rfind('#', 0) == 0 ? rest : "");
    } else {
      out += up + "offline.html";
    }
    i = end;
  }
  return out;
}

namespace {

calc::Result<bool> write_file(const fs::path& file, std::string_view body) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(body.data(), static_cast<std::streamsize>(body.size()));
  if (ec || !out) return calc::FieldError{"dir", file.string(), "could not be written", "a writable directory"};
  return true;
}

constexpr std::string_view kCalcNote =
    "<p class=\"card offline-note\" role=\"note\"><strong>Offline copy.</strong> This calculator shows its worked example. "
    "Computing other inputs needs the server: run <code>ridge serve</code> and open it there, or <code>ridge calc</code> on "
    "the command line.</p>\n";

}  // namespace

calc::Result<SiteExport> export_site(const Site& site, const AppOptions& options, const fs::path& static_dir, const fs::path& dir,
                                     bool include_paid) {
  SiteExport report;
  routes::PageCache pages = routes::render_pages(site, options);
  // The print pages of the courses are the same for every visitor without paid access.
  std::map<std::string, std::string> bodies;
  for (const auto& [path, page] : pages) {
    if (path.find('#') != std::string::npos) continue;
    bodies[path] = page.body;
  }
  for (const auto& [id, course] : site.bank.courses) {
    bodies["/courses/" + id + "/print"] = routes::course_print_page(site, course, include_paid);
  }
  for (const auto& q : site.bank.questions) {
    if (q.free || include_paid) continue;
    auto locked = pages.find("/q/" + q.slug + "#locked");
    if (locked != pages.end()) bodies["/q/" + q.slug] = locked->second.body;
    ++report.paid_locked;
  }
  std::set<std::string> exported;
  for (const auto& [path, body] : bodies) exported.insert(path);
  // The assets under their fingerprinted names, as the pages link them.
  std::map<std::string, const Asset*> assets;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(static_dir, ec)) {
    if (!entry.is_regular_file()) continue;
    std::string url = site.assets.url(entry.path().filename().string());
    if (const Asset* a = site.assets.find(url)) {
      assets[url] = a;
      exported.insert(url);
    }
  }
  if (ec) return calc::FieldError{"static", static_dir.string(), "could not be read", "the web/static directory"};
  // Each calculator's diagram for its example, as the calculator page's <img> shows it.
  std::map<std::string, std::string> diagrams;
  for (const auto& c : site.registry.all()) {
    auto kind = diagram::kind_for_calculator(c.name);
    if (!kind) continue;
    auto d = site.registry.evaluate(c.name, example_values(c), site.catalog);
    if (!d) continue;
    diagram::Options o;
    o.standalone = true;
    auto drawn = diagram::draw(*kind, {}, site.registry, site.catalog, o, &*d);
    if (!drawn) continue;
    std::string path = "/calc/" + c.name + "/diagram.svg";
    diagrams[path] = drawn->svg;
    exported.insert(path);
  }
  for (const auto& [path, body] : bodies) {
    std::string file = file_for(path);
    std::string html = relativize(body, file, exported);
    if (path.rfind("/calc/", 0) == 0) {
      // The live update would call the API: switched off, and the note says why.
      for (size_t at = html.find(" data-live=\""); at != std::string::npos; at = html.find(" data-live=\"", at)) {
        html.replace(at, 12, " data-offline=\"");
      }
      if (size_t main = html.find("<main id=\"main\">"); main != std::string::npos) html.insert(main + 16, "\n" + std::string(kCalcNote));
    }
    auto w = write_file(dir / file, html);
    if (!w) return w.errors();
    ++report.pages;
  }
  for (const auto& [url, a] : assets) {
    auto w = write_file(dir / file_for(url), a->body);
    if (!w) return w.errors();
    ++report.assets;
  }
  for (const auto& [path, svg] : diagrams) {
    auto w = write_file(dir / file_for(path), svg);
    if (!w) return w.errors();
    ++report.diagrams;
  }
  // Where links to the server's own pages go.
  std::string note =
      "<h1>This needs the server</h1>\n<p>This is an offline copy of ridge: questions, concepts, courses, companies, "
      "diagrams and each calculator's worked example. Signing in, search, reviews, drills, the readiness check and "
      "calculators with your own inputs need the server: run <code>ridge serve</code> and open "
      "<code>http://localhost:8080</code>.</p>\n<p><a href=\"/\">Back to the start</a></p>\n";
  auto w = write_file(dir / "offline.html", relativize(layout(site, "Needs the server", "What the offline copy leaves out", note),
                                                       "offline.html", exported));
  if (!w) return w.errors();
  ++report.pages;
  return report;
}

}  // namespace ridge::web::exports
