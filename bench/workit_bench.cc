// Work it's server-side cost (issue 34): for every workable question of the bank and seeds
// 1..N, the time to plan, draw and evaluate the exercise, and grade every step with a wrong
// answer (the worst case: every misconception is tried, some re-run the chain). Prints the
// p50, p99 and max over all samples. Then the pages as served: the App over the same bank and a
// SQLite store in the temporary directory, one signed-in user with access, and for every
// workable question and each seed-count a GET /q/{slug}/work (start: draw, render) and a POST
// grading its first step wrong (check the signature, grade trying every misconception, record,
// render), each through App::handle, wall and CPU time per request (issue 34: under 5 ms p99).
// Usage: workit_bench [seeds per question, default 5]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "bank/loader.h"
#include "calc/source_dir.h"
#include "calc_io/load_catalog.h"
#include "practice/workit.h"
#include "store/store.h"
#include "web/app.h"
#include "web/url_encode.h"

namespace {

struct Timed {
  std::vector<double> wall, cpu;
  int non_200 = 0;
  void print(const char* what) {
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    auto q = [](const std::vector<double>& v, double p) { return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))]; };
    if (wall.empty()) return;
    std::printf("%s (%zu requests, %d not 200): wall p50 %.3f ms, p99 %.3f ms, max %.3f ms; CPU p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
                what, wall.size(), non_200, q(wall, 0.5), q(wall, 0.99), wall.back(), q(cpu, 0.5), q(cpu, 0.99), cpu.back());
  }
};

std::string hidden(const std::string& body, const std::string& name) {
  const std::string key = "name=\"" + name + "\" value=\"";
  size_t at = body.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return body.substr(at, body.find('"', at) - at);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ridge;
  const int seeds = argc > 1 ? std::clamp(std::atoi(argv[1]), 1, 100) : 5;
  const calc::Catalog catalog = calc_io::load_catalog(RIDGE_DATA_DIR).value();
  const calc::Registry registry = calc::make_builtin_registry();
  bank::LoadResult loaded = bank::load_bank(RIDGE_CONTENT_DIR, registry, catalog, {/*lint=*/false});
  std::vector<double> ms, page_ms, page_cpu_ms;  // cpu: the process's CPU time (the machine may be shared)  // page: generate + grade the slowest single step
  std::vector<std::pair<double, std::string>> slowest;
  std::vector<std::string> workable;
  int questions = 0, failed = 0;
  for (const auto& q : loaded.bank.questions) {
    if (q.calcs.empty()) continue;
    for (int seed = 1; seed <= seeds; ++seed) {
      auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      practice::WorkPlan plan = practice::plan_question(q, registry, catalog);
      if (!plan.workable) break;
      if (seed == 1) {
        ++questions;
        workable.push_back(q.slug);
      }
      std::string error;
      auto ex = practice::make_exercise(plan, q.title, static_cast<uint64_t>(seed), registry, catalog, &error);
      if (!ex) {
        ++failed;
        continue;
      }
      const double generated = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const double generated_cpu = 1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
      double slowest_cpu = 0;
      double slowest_step = 0;
      for (size_t i = 0; i < ex->steps.size(); ++i) {
        // 3.7 times the right value: wrong for every step, and no misconception's factor.
        auto s0 = std::chrono::steady_clock::now();
        const std::clock_t sc = std::clock();
        auto g = practice::grade_step(*ex, i, std::to_string(ex->steps[i].value * 3.7), registry, catalog);
        slowest_step = std::max(slowest_step, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
        slowest_cpu = std::max(slowest_cpu, 1000.0 * static_cast<double>(std::clock() - sc) / CLOCKS_PER_SEC);
        if (g.correct) ++failed;
      }
      page_ms.push_back(generated + slowest_step);
      page_cpu_ms.push_back(generated_cpu + slowest_cpu);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      slowest.emplace_back(ms.back(), q.slug + " seed " + std::to_string(seed) + " (" + std::to_string(ex->attempts) +
                                          " draws, " + std::to_string(ex->chain.ids.size()) + " blocks, " +
                                          std::to_string(ex->steps.size()) + " steps)");
    }
  }
  if (ms.empty()) return 1;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<size_t>(p * static_cast<double>(ms.size())))]; };
  std::printf("workit_bench: %d questions x %d seeds = %zu exercises (%d failed)\n", questions, seeds, ms.size(), failed);
  std::printf("generate + grade every step wrong: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", at(0.5), at(0.99), ms.back());
  std::sort(page_ms.begin(), page_ms.end());
  auto page_at = [&](double p) { return page_ms[std::min(page_ms.size() - 1, static_cast<size_t>(p * static_cast<double>(page_ms.size())))]; };
  std::printf("one page (generate + grade its slowest step): p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", page_at(0.5),
              page_at(0.99), page_ms.back());
  std::sort(page_cpu_ms.begin(), page_cpu_ms.end());
  std::printf("one page, CPU time: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
              page_cpu_ms[page_cpu_ms.size() / 2], page_cpu_ms[std::min(page_cpu_ms.size() - 1, page_cpu_ms.size() * 99 / 100)],
              page_cpu_ms.back());
  std::sort(slowest.rbegin(), slowest.rend());
  for (size_t i = 0; i < slowest.size() && i < 5; ++i) std::printf("  %.3f ms  %s\n", slowest[i].first, slowest[i].second.c_str());

  // ---- as served: App::handle over a SQLite store ----
  const auto db = std::filesystem::temp_directory_path() / ("ridge-workit-bench-" + std::to_string(::getpid()) + ".db");
  auto remove_db = [&] {
    for (const char* x : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + x);
  };
  remove_db();
  auto opened = store::open_store("sqlite:" + db.string());
  if (!opened.ok()) {
    std::fprintf(stderr, "workit_bench: %s\n", opened.error().detail.c_str());
    return 1;
  }
  std::unique_ptr<store::Store> store = std::move(opened).value();
  // The baseline: the same App without a store (no Work it links), twice:
  // the first App of a process also pays one-time costs (the first run read slower than the
  // App with a store built after it).
  for (int round = 1; round <= 2; ++round) {
    bank::LoadResult again = bank::load_bank(RIDGE_CONTENT_DIR, registry, catalog, {/*lint=*/false});
    const auto b0 = std::chrono::steady_clock::now();
    const web::AppOptions no_store;  // named: GCC 12 -O2 warned maybe-uninitialized on a braced temporary
    web::App bare(std::move(again.bank), catalog, registry, web::Assets(std::string(source_dir()) + "/web/static"), no_store);
    std::printf("App start-up without a store (no Work it links), run %d: %.0f ms\n", round,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b0).count());
  }
  web::AppOptions options;
  options.store = store.get();
  const auto s0 = std::chrono::steady_clock::now();
  // Start-up renders every page but the questions' (issue 30: those, and the Work it plan
  // their link needs, are made on a question's first request, so the first GET of each
  // question's /work below includes its plan).
  web::App app(std::move(loaded.bank), catalog, registry, web::Assets(std::string(source_dir()) + "/web/static"), options);
  std::printf("App start-up (pages but the questions' rendered, nothing planned): %.0f ms\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
  int remote = 0;
  auto call = [&](const std::string& method, const std::string& target, const std::string& body, const std::string& cookie,
                  const std::string& csrf) {
    web::Request req;
    req.method = method;
    req.target = target;
    web::parse_target(target, req);
    req.body = body;
    // A different address per request: the per-address limits are not what is measured.
    ++remote;
    req.remote = "10." + std::to_string((remote >> 16) & 255) + "." + std::to_string((remote >> 8) & 255) + "." + std::to_string(remote & 255);
    if (!cookie.empty()) req.headers["cookie"] = cookie;
    if (!csrf.empty()) req.headers["x-csrf-token"] = csrf;
    return app.handle(req);
  };
  web::Response signed_up = call("POST", "/api/signup", nlohmann::json{{"email", "bench@example.com"}, {"password", "correct horse battery"}}.dump(), "", "");
  std::string cookie, csrf;
  for (const auto& [k, v] : signed_up.headers) {
    if (k == "Set-Cookie") cookie = v.substr(0, v.find(';'));
  }
  if (signed_up.status != 201 || cookie.empty()) {
    std::fprintf(stderr, "workit_bench: sign-up failed (%d): %s\n", signed_up.status, signed_up.body.c_str());
    remove_db();
    return 1;
  }
  csrf = nlohmann::json::parse(signed_up.body)["csrf_token"];
  (void)store->grant(1, 12, static_cast<int64_t>(std::time(nullptr)));  // paid questions too
  Timed get, post;
  for (const auto& slug : workable) {
    for (int seed = 1; seed <= seeds; ++seed) {
      auto w0 = std::chrono::steady_clock::now();
      std::clock_t c0 = std::clock();
      web::Response page = call("GET", "/q/" + slug + "/work", "", cookie, "");
      get.wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
      get.cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
      if (page.status != 200) {
        ++get.non_200;
        continue;
      }
      // The first step answered 1e-30: wrong for every step of a real chain, so every
      // misconception is tried (the worst case of a grade).
      const std::string form = "csrf=" + web::url_encode(csrf) + "&seed=" + hidden(page.body, "seed") + "&sig=" +
                               hidden(page.body, "sig") + "&step=0&answer=1e-30";
      w0 = std::chrono::steady_clock::now();
      c0 = std::clock();
      web::Response graded = call("POST", "/q/" + slug + "/work", form, cookie, "");
      post.wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
      post.cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
      if (graded.status != 200) ++post.non_200;
    }
  }
  get.print("GET /q/{slug}/work as served");
  post.print("POST /q/{slug}/work (grade a step) as served");
  store.reset();
  remove_db();
  return 0;
}
