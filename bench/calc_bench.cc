// Google Benchmark for each calculator's derivation, on the real catalogs. Parsing the
// inputs is part of what is timed, as it is for every CLI or API call.
#include <benchmark/benchmark.h>

#include "calc/registry.h"
#include "calc_io/load_catalog.h"

namespace {

const ridge::calc::Catalog& catalog() {
  static const ridge::calc::Catalog c = ridge::calc_io::load_catalog(RIDGE_DATA_DIR).value();
  return c;
}

void BM_Calculator(benchmark::State& state, std::string name, ridge::calc::Given given) {
  static const ridge::calc::Registry registry = ridge::calc::make_builtin_registry();
  for (auto _ : state) {
    auto d = registry.evaluate(name, given, catalog());
    benchmark::DoNotOptimize(d);
  }
}

void BM_RenderText(benchmark::State& state) {
  static const ridge::calc::Registry registry = ridge::calc::make_builtin_registry();
  auto d = registry.evaluate("fit", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}}, catalog());
  for (auto _ : state) benchmark::DoNotOptimize(ridge::calc::render_text(*d));
}

void BM_RenderJson(benchmark::State& state) {
  static const ridge::calc::Registry registry = ridge::calc::make_builtin_registry();
  auto d = registry.evaluate("fit", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}}, catalog());
  for (auto _ : state) benchmark::DoNotOptimize(ridge::calc::render_json(*d));
}

void BM_ParseDeepSeekConfig(benchmark::State& state) {
  auto text = ridge::calc_io::read_text_file(std::string(RIDGE_DATA_DIR) + "/models/deepseek-v3.json").value();
  for (auto _ : state) benchmark::DoNotOptimize(ridge::calc::parse_model_config(text, "deepseek-v3"));
}

}  // namespace

BENCHMARK_CAPTURE(BM_Calculator, fit, "fit", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"context", "32768"}, {"sequences", "64"}});
BENCHMARK_CAPTURE(BM_Calculator, roofline, "roofline", {{"gpu", "h100-sxm"}, {"flops", "2e12"}, {"bytes", "4e10"}});
BENCHMARK_CAPTURE(BM_Calculator, train, "train", {{"params", "405B"}, {"tokens", "15.6T"}, {"gpu", "h100-sxm"}, {"gpus", "16384"}});
BENCHMARK_CAPTURE(BM_Calculator, fleet, "fleet", {{"params", "70B"}, {"tokens", "15T"}, {"days", "30"}, {"gpu", "h100-sxm"}});
BENCHMARK_CAPTURE(BM_Calculator, mfu, "mfu", {{"params", "405B"}, {"tokens", "15.6T"}, {"gpu", "h100-sxm"}, {"gpu-hours", "30.84e6"}});
BENCHMARK_CAPTURE(BM_Calculator, decode, "decode", {{"model", "deepseek-v3"}, {"gpu", "h200"}, {"tp", "8"}, {"batch", "64"}, {"context", "4096"}});
BENCHMARK_CAPTURE(BM_Calculator, prefill, "prefill", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"prompt", "8192"}});
BENCHMARK_CAPTURE(BM_Calculator, attention, "attention", {{"seq", "8192"}, {"heads", "32"}});
BENCHMARK_CAPTURE(BM_Calculator, allreduce, "allreduce", {{"bytes", "16GB"}, {"ranks", "8"}, {"bus-bandwidth", "400GB/s"}});
BENCHMARK_CAPTURE(BM_Calculator, checkpoint, "checkpoint", {{"mtbf-hours", "3"}, {"write-seconds", "60"}});
BENCHMARK_CAPTURE(BM_Calculator, interruptions, "interruptions", {{"events", "419"}, {"days", "54"}, {"gpus", "16384"}});
BENCHMARK_CAPTURE(BM_Calculator, cost, "cost", {{"usd-per-hour", "2.5"}, {"tokens-per-second", "1000"}});
BENCHMARK_CAPTURE(BM_Calculator, training_memory, "training-memory", {{"params", "70B"}, {"gpus", "64"}, {"zero-stage", "3"}});
BENCHMARK_CAPTURE(BM_Calculator, pipeline_bubble, "pipeline-bubble", {{"stages", "8"}, {"microbatches", "32"}});
BENCHMARK_CAPTURE(BM_Calculator, cluster_power, "cluster-power", {{"gpu", "h100-sxm"}, {"gpus", "1024"}});
BENCHMARK_CAPTURE(BM_Calculator, replicas, "replicas", {{"qps", "100"}, {"output-tokens", "500"}, {"tokens-per-second", "2000"}});
BENCHMARK_CAPTURE(BM_Calculator, chip, "chip", {{"gpu", "b200"}});
BENCHMARK_CAPTURE(BM_Calculator, transfer, "transfer", {{"bytes", "1.1TB"}, {"bandwidth", "100GB/s"}});
BENCHMARK_CAPTURE(BM_Calculator, activation_memory, "activation-memory", {{"hidden", "12288"}, {"layers", "96"}, {"heads", "96"}, {"seq", "2048"}, {"tp", "8"}, {"pp", "8"}, {"sequence-parallel", "on"}, {"recompute", "selective"}});
BENCHMARK_CAPTURE(BM_Calculator, alltoall, "alltoall", {{"model", "deepseek-v3"}, {"tokens", "4096"}, {"ep", "64"}, {"gpu", "h100-sxm"}});
BENCHMARK_CAPTURE(BM_Calculator, layout, "layout", {{"model", "llama-3.1-70b"}, {"gpus", "1024"}, {"tp", "8"}, {"pp", "4"}, {"global-batch", "512"}, {"seq", "8192"}, {"sequence-parallel", "on"}, {"recompute", "selective"}, {"gpu", "h100-sxm"}});
BENCHMARK_CAPTURE(BM_Calculator, speculative, "speculative", {{"acceptance", "0.8"}, {"draft-tokens", "4"}, {"gpu", "h100-sxm"}, {"batch", "64"}});
BENCHMARK_CAPTURE(BM_Calculator, lora, "lora", {{"model", "llama-3.1-8b"}, {"rank", "16"}, {"modules", "q,k,v,o,gate,up,down"}, {"gpu", "h100-sxm"}});
BENCHMARK_CAPTURE(BM_Calculator, tco, "tco", {{"server-price", "300000"}, {"gpu", "h100-sxm"}, {"rent", "2.50"}});
BENCHMARK_CAPTURE(BM_Calculator, cluster_power_budget, "cluster-power", {{"gpu", "h100-sxm"}, {"power-budget", "20MW"}});
// Hybrid models (issue 29): a sum over layer runs with a fixed state.
BENCHMARK_CAPTURE(BM_Calculator, fit_hybrid, "fit", {{"model", "qwen3-next-80b-a3b"}, {"gpu", "h100-sxm"}, {"gpus", "4"}, {"context", "131072"}, {"sequences", "16"}});
BENCHMARK_CAPTURE(BM_Calculator, decode_hybrid, "decode", {{"model", "nemotron-h-56b"}, {"gpu", "h200"}, {"tp", "4"}, {"batch", "64"}, {"context", "8192"}});
BENCHMARK_CAPTURE(BM_Calculator, prefill_chunked, "prefill", {{"model", "llama-4-scout-17b-16e"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"prompt", "65536"}});
BENCHMARK(BM_RenderText);
BENCHMARK(BM_RenderJson);
BENCHMARK(BM_ParseDeepSeekConfig);

BENCHMARK_MAIN();
