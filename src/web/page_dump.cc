// page_dump CONTENT OUT [VALIDATION_JSON]: writes every page the App renders at start-up, and
// the per-request pages from fixed inputs, as files under OUT, and prints the load and App
// construction times. For checking a change to how pages are made: dump before and after,
// then `diff -r` (a refactor must leave the bytes as they were). VALIDATION_JSON is what
// `ridge validate --json` prints, for the table on /calc (ridge serve computes it too).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bank/loader.h"
#include "calc_io/load_catalog.h"
#include "web/app.h"
#include "web/course_pages.h"
#include "web/pages.h"
#include "calc/source_dir.h"

namespace {

using namespace ridge;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void write(const std::filesystem::path& out, std::string path, std::string_view body) {
  // "/" is the home page; every other path becomes a file named after it.
  if (path == "/") path = "/index";
  std::filesystem::path file = out / (path.substr(1) + ".html");
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << body;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: page_dump CONTENT OUT [VALIDATION_JSON]\n";
    return 2;
  }
  std::filesystem::path out = argv[2];
  auto t0 = std::chrono::steady_clock::now();
  auto catalog = calc_io::load_catalog(RIDGE_DATA_DIR);
  if (!catalog) {
    std::cerr << calc::to_string(catalog.errors());
    return 1;
  }
  auto registry = calc::make_builtin_registry();
  // Loaded as `ridge serve` loads it (issue 30): each answer is rendered when its page is, so
  // a dump compared with one made before shows the lazy rendering changed no byte.
  bank::LoadOptions load_options{/*lint=*/false};
  load_options.render_bodies = false;
  auto loaded = bank::load_bank(argv[1], registry, *catalog, load_options);
  for (const auto& d : loaded.errors) std::cerr << d.to_string() << "\n";
  if (!loaded.errors.empty()) return 1;
  double load_ms = ms_since(t0);
  web::AppOptions options;
  if (argc > 3) {
    std::ifstream in(argv[3]);
    std::stringstream text;
    text << in.rdbuf();
    options.validation = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  }
  auto t1 = std::chrono::steady_clock::now();
  web::Assets assets(std::string(ridge::source_dir()) + "/web/static");
  web::App app(std::move(loaded.bank), *catalog, calc::make_builtin_registry(), assets, options);
  double app_ms = ms_since(t1);
  const bank::Bank& bank = app.bank();
  std::cout << bank.questions.size() << " questions: catalogs and bank loaded in " << load_ms << " ms, App built in "
            << app_ms << " ms (" << app.cached_pages() << " cached pages)\n";

  // The cached pages, through App::handle as a visitor without a session gets them.
  std::vector<std::string> paths = {"/", "/hardware", "/topics", "/concepts", "/companies", "/calc", "/diagrams", "/courses",
                                    "/easy", "/medium", "/hard", "/expert"};
  for (const auto& t : bank.topics) paths.push_back("/topics/" + t.id);
  for (const auto& t : bank.tracks) paths.push_back("/tracks/" + t.id);
  for (const auto& [id, c] : bank.concepts) paths.push_back("/concepts/" + id);
  for (const auto& [id, c] : bank.companies) paths.push_back("/companies/" + id);
  for (const auto& [id, c] : bank.courses) paths.push_back("/courses/" + id);
  for (const auto& q : bank.questions) paths.push_back("/q/" + q.slug);
  for (const auto& c : registry.all()) paths.push_back("/calc/" + c.name);
  int failed = 0;
  for (const auto& path : paths) {
    web::Request req;
    req.method = "GET";
    req.target = path;
    if (!web::parse_target(path, req)) continue;
    web::Response r = app.handle(req);
    if (r.status != 200) {
      std::cerr << path << ": status " << r.status << "\n";
      ++failed;
    }
    write(out, path, r.view());
  }

  // Pages made per request or per visitor, from fixed inputs.
  web::Site site{bank, *catalog, registry, assets};
  for (const auto& q : bank.questions) {
    if (q.free) continue;
    write(out, "/locked/" + q.slug, web::locked_question_page(site, q));
    write(out, "/paywall/" + q.slug, web::paywall_question_page(site, q, "$39", true));
    write(out, "/paywall-manual/" + q.slug, web::paywall_question_page(site, q, "$39", false));
  }
  write(out, "/error/404", web::error_page(site, 404, "There is no page at /nowhere <b>'x'</b>."));
  write(out, "/error/500", web::error_page(site, 500, "Something failed & was logged."));
  write(out, "/auth/signin", web::auth_page(site, false, "", "", "pre-token"));
  write(out, "/auth/signup-error", web::auth_page(site, true, "That password is too short: 'abc' <10>", "/q/x?y=1&z=\"2\"", "p\"t"));
  std::vector<web::SearchHit> hits = {{"question", "a-slug", "A <title>", "some <mark>kv</mark> cache", "topic", "hard"},
                                      {"concept", "kv-cache", "KV cache", "the <mark>kv</mark>", "", ""}};
  write(out, "/search/empty", web::search_page(site, "", "", "", {}, {}));
  write(out, "/search/hits", web::search_page(site, "kv \"cache\"", bank.topics.front().id, "hard", hits, {2, 2, 7, true}));
  write(out, "/search/one", web::search_page(site, "x", "", "", {hits[0]}, {1, 20, 1, false}));
  for (const auto& c : registry.all()) {
    calc::Given bad = web::example_values(c);
    for (auto& [k, v] : bad) v = "<bad>'" + v;
    bad["no-such-flag"] = "1";
    auto d = registry.evaluate(c.name, bad, *catalog);
    write(out, "/calc-errors/" + c.name, web::calculator_page(site, c, bad, &d));
    write(out, "/calc-empty/" + c.name, web::calculator_page(site, c, {}, nullptr));
  }
  for (const auto& [id, c] : bank.courses) {
    std::vector<web::ModuleProgress> progress(c.modules.size());
    for (size_t i = 0; i < progress.size(); ++i) progress[i] = {static_cast<int>(i % 3), 2, static_cast<int>(i % 2)};
    write(out, "/course-progress/" + id, web::course_page(site, c, &progress));
    std::vector<web::ModuleProgress> done(c.modules.size());
    write(out, "/course-done/" + id, web::course_page(site, c, &done));
  }
  // RIDGE_DUMP_PROFILE=1: the time each page kind takes to render, over the whole bank.
  if (std::getenv("RIDGE_DUMP_PROFILE")) {
    auto time = [](const char* kind, auto&& body) {
      auto t = std::chrono::steady_clock::now();
      size_t bytes = body();
      std::cout << "  " << kind << ": " << ms_since(t) << " ms, " << bytes << " bytes\n";
    };
    time("question pages", [&] {
      size_t n = 0;
      for (const auto& q : bank.questions) n += web::question_page(site, q).size();
      return n;
    });
    time("locked and paywall pages", [&] {
      size_t n = 0;
      for (const auto& q : bank.questions) n += web::locked_question_page(site, q).size() + web::paywall_question_page(site, q, "$39", true).size();
      return n;
    });
    time("concept pages", [&] {
      size_t n = 0;
      for (const auto& [id, c] : bank.concepts) n += web::concept_page(site, c).size();
      return n;
    });
    time("topic, track and difficulty pages", [&] {
      size_t n = 0;
      for (const auto& t : bank.topics) n += web::topic_page(site, t).size();
      for (const auto& t : bank.tracks) n += web::track_page(site, t).size();
      for (bank::Difficulty d : {bank::Difficulty::kEasy, bank::Difficulty::kMedium, bank::Difficulty::kHard, bank::Difficulty::kExpert}) {
        n += web::difficulty_page(site, d).size();
      }
      return n;
    });
    time("the other pages", [&] {
      size_t n = web::home_page(site, {"$39", 6}).size() + web::hardware_page(site).size() + web::topics_index(site).size() +
                 web::concepts_index(site).size() + web::companies_index(site).size() + web::diagrams_page(site).size() +
                 web::courses_index(site).size();
      for (const auto& [id, c] : bank.companies) n += web::company_page(site, c).size();
      for (const auto& [id, c] : bank.courses) n += web::course_page(site, c, nullptr).size();
      return n;
    });
  }
  std::cout << paths.size() << " cached paths written to " << out.string() << (failed ? ", some failed" : "") << "\n";
  return failed ? 1 : 0;
}
