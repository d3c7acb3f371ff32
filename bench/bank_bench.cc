// Loads and renders a bank of 413 questions: generated copies of the real questions
// (cycled, each under its own slug), with the real topics, concepts and companies.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bank/loader.h"
#include "calc_io/load_catalog.h"

namespace {
namespace fs = std::filesystem;

constexpr int kQuestions = 413;

fs::path make_bank() {
  fs::path src = fs::path(RIDGE_SOURCE_DIR) / "content";
  fs::path root = fs::temp_directory_path() / ("ridge-bank-bench-" + std::to_string(::getpid())) / "content";
  fs::create_directories(root);
  fs::copy(src / "topics.toml", root / "topics.toml");
  fs::copy(src / "concepts", root / "concepts", fs::copy_options::recursive);
  fs::copy(src / "companies", root / "companies", fs::copy_options::recursive);
  std::vector<fs::path> originals;
  for (const auto& e : fs::recursive_directory_iterator(src / "questions")) {
    if (e.path().extension() == ".md") originals.push_back(e.path());
  }
  std::sort(originals.begin(), originals.end());
  for (int i = 0; i < kQuestions && !originals.empty(); ++i) {
    const fs::path& from = originals[static_cast<size_t>(i) % originals.size()];
    fs::path dir = root / "questions" / from.parent_path().filename();
    fs::create_directories(dir);
    // Links to other questions (/q/slug) still resolve: the originals keep their slugs.
    std::string name = i < static_cast<int>(originals.size()) ? from.filename().string()
                                                              : from.stem().string() + "-" + std::to_string(i) + ".md";
    fs::copy_file(from, dir / name, fs::copy_options::overwrite_existing);
  }
  return root;
}

void BM_LoadBank(benchmark::State& state, bool lint) {
  static const auto catalog = ridge::calc_io::load_catalog(fs::path(RIDGE_SOURCE_DIR) / "data").value();
  static const auto registry = ridge::calc::make_builtin_registry();
  static const fs::path root = make_bank();
  size_t questions = 0;
  for (auto _ : state) {
    auto result = ridge::bank::load_bank(root, registry, catalog, {lint});
    questions = result.bank.questions.size();
    benchmark::DoNotOptimize(result);
  }
  state.counters["questions"] = static_cast<double>(questions);
}

}  // namespace

BENCHMARK_CAPTURE(BM_LoadBank, serve, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadBank, check, true)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
