#include "practice/drills.h"

#include "calc/units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <random>

namespace ridge::practice {
namespace {

struct Template {
  const char* id;
  const char* calculator;
  const char* topic;
  const char* result;
  // Builds the inputs and the prompt from a random engine.
  std::string (*build)(std::mt19937_64& rng, calc::Given& in);
};

template <class T, size_t N>
const T& pick(std::mt19937_64& rng, const T (&items)[N]) {
  return items[std::uniform_int_distribution<size_t>(0, N - 1)(rng)];
}

const char* kModels[] = {"llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "qwen3-32b", "llama-3.3-70b"};
const char* kGpus[] = {"h100-sxm", "h200", "b200", "mi300x", "a100-80gb-sxm"};
const char* kContexts[] = {"4096", "8192", "32768", "131072"};

// 1e12 -> "1e12"; 4096 -> "4,096"; 3.5 -> "3.5": how a number reads in a prompt, at the
// precision the engine grades it with (group_thousands alone rounded $3.50 to "$4").
std::string words(const std::string& raw) {
  char* end = nullptr;
  double v = std::strtod(raw.c_str(), &end);
  if (end == raw.c_str() || *end != 0) return raw;
  if (v >= 1e6 && std::floor(v) == v) return calc::format_significant(v, 3, true);
  if (std::floor(v) == v) return calc::group_thousands(v);
  const size_t dot = raw.find('.');
  if (dot == std::string::npos || raw.find_first_of("eE") != std::string::npos) return raw;
  return calc::group_thousands(std::trunc(v)) + raw.substr(dot);
}

// "a" or "an" before a number as it is read aloud: an 8,192-token prompt, an 11-hour MTBF, an 18 s write.
std::string a_or_an(const std::string& spoken) {
  if (spoken.empty()) return "a";
  if (spoken[0] == '8') return "an";
  const bool eleven_or_eighteen = spoken.rfind("11", 0) == 0 || spoken.rfind("18", 0) == 0;
  const bool group_ends = spoken.size() == 2 || !std::isdigit(static_cast<unsigned char>(spoken[2]));
  return eleven_or_eighteen && group_ends ? "an" : "a";
}

// "1 element", "2 elements".
std::string count_of(const std::string& raw, const char* noun) {
  return words(raw) + " " + noun + (raw == "1" ? "" : "s");
}

const Template kTemplates[] = {
    {"kv-per-token", "fit", "napkin-math", "kv_bytes_per_token",
     [](std::mt19937_64& rng, calc::Given& in) {
       in = {{"model", pick(rng, kModels)}, {"gpu", "h100-sxm"}, {"context", "4096"}};
       return "How many bytes of KV cache does one token of " + words(in["model"]) + " take in bf16?";
     }},
    {"weights", "fit", "napkin-math", "weights_bytes",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* dtypes[] = {"bf16", "fp8", "int4"};
       in = {{"model", pick(rng, kModels)}, {"gpu", "h100-sxm"}, {"context", "4096"}, {"weights-dtype", pick(rng, dtypes)}};
       return "How much memory do the weights of " + words(in["model"]) + " take in " + words(in["weights-dtype"]) + "?";
     }},
    {"max-sequences", "fit", "inference-serving", "max_sequences",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* gpus[] = {"4", "8"};
       in = {{"model", pick(rng, kModels)}, {"gpu", pick(rng, kGpus)}, {"gpus", pick(rng, gpus)}, {"context", pick(rng, kContexts)}};
       return "How many sequences of " + words(in["context"]) + " tokens of " + words(in["model"]) + " fit on " + words(in["gpus"]) + " × " +
              words(in["gpu"]) + " in bf16, keeping 10% of memory in reserve?";
     }},
    {"ridge", "roofline", "gpu-architecture", "ridge_flops_per_byte",
     [](std::mt19937_64& rng, calc::Given& in) {
       in = {{"gpu", pick(rng, kGpus)}};
       return "What is the bf16 ridge point of " + words(in["gpu"]) + " in FLOP per byte?";
     }},
    {"decode-tps", "decode", "inference-serving", "tokens_per_second",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* batches[] = {"1", "8", "32"};
       in = {{"model", "llama-3.1-70b"}, {"gpu", pick(rng, kGpus)}, {"tp", "8"}, {"batch", pick(rng, batches)}, {"context", "4096"}};
       return "At batch " + words(in["batch"]) + " with 4,096 tokens of context, what is the bandwidth floor on tokens per second "
              "for llama-3.1-70b on 8 × " + words(in["gpu"]) + " (tp 8, bf16)?";
     }},
    {"train-days", "train", "distributed-training", "days",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* params[] = {"8B", "70B", "405B"};
       const char* tokens[] = {"2T", "15T"};
       const char* gpus[] = {"1024", "4096", "16384"};
       in = {{"params", pick(rng, params)}, {"tokens", pick(rng, tokens)}, {"gpu", "h100-sxm"}, {"gpus", pick(rng, gpus)}, {"mfu", "0.4"}};
       return "How many days does training " + a_or_an(words(in["params"])) + " " + words(in["params"]) + " dense model on " + words(in["tokens"]) + " tokens take on " +
              words(in["gpus"]) + " H100 at 40% MFU?";
     }},
    {"allreduce", "allreduce", "networking-storage", "seconds",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* bytes[] = {"2GB", "16GB", "140GB"};
       const char* ranks[] = {"8", "64", "512"};
       in = {{"bytes", pick(rng, bytes)}, {"ranks", pick(rng, ranks)}, {"bus-bandwidth", "400GB/s"}};
       return "How long does a ring all-reduce of " + words(in["bytes"]) + " over " + words(in["ranks"]) + " ranks take at 400 GB/s bus bandwidth?";
     }},
    {"checkpoint", "checkpoint", "fleet-reliability", "interval_seconds",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* mtbf[] = {"1", "3", "8"};
       const char* write[] = {"30", "60", "300"};
       in = {{"mtbf-hours", pick(rng, mtbf)}, {"write-seconds", pick(rng, write)}};
       return "With a job MTBF of " + words(in["mtbf-hours"]) + " hours and " + a_or_an(words(in["write-seconds"])) + " " + words(in["write-seconds"]) +
              " s checkpoint write, what interval minimizes lost time (Young/Daly)?";
     }},
    {"cost", "cost", "napkin-math", "usd_per_million_tokens",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* price[] = {"2", "3.5", "25"};
       const char* tps[] = {"500", "2000", "20000"};
       in = {{"usd-per-hour", pick(rng, price)}, {"tokens-per-second", pick(rng, tps)}};
       return "A unit costs $" + words(in["usd-per-hour"]) + " per hour and produces " + words(in["tokens-per-second"]) +
              " tokens per second. What does a million tokens cost?";
     }},

    // GPU architecture
    {"ridge-fp8", "roofline", "gpu-architecture", "ridge_flops_per_byte",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* g[] = {"h100-sxm", "h200", "b200", "mi300x"};
       in = {{"gpu", pick(rng, g)}, {"dtype", "fp8"}};
       return "What is the fp8 ridge point of " + words(in["gpu"]) + " in FLOP per byte (dense peak over HBM bandwidth)?";
     }},
    {"attainable", "roofline", "gpu-architecture", "attainable_flops",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* flops[] = {"1e12", "4e12", "2e13"};
       const char* bytes[] = {"1e10", "4e10", "1e11"};
       in = {{"gpu", pick(rng, kGpus)}, {"flops", pick(rng, flops)}, {"bytes", pick(rng, bytes)}};
       return "A kernel does " + words(in["flops"]) + " FLOP and moves " + words(in["bytes"]) + " bytes on " + words(in["gpu"]) +
              ". What FLOP/s can it attain at best in bf16 (the roofline's min of the two roofs)?";
     }},
    {"memory-bandwidth", "chip", "gpu-architecture", "memory_bandwidth",
     [](std::mt19937_64& rng, calc::Given& in) {
       in = {{"gpu", pick(rng, kGpus)}};
       return "What is the HBM bandwidth of " + words(in["gpu"]) + " per the vendor's datasheet?";
     }},
    // Kernels (the coalescing, bank-conflict and occupancy analysers)
    {"coalescing-sectors", "coalescing", "kernels", "sectors",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* stride[] = {"1", "2", "4", "32"};
       const char* bytes[] = {"4", "8", "16"};
       in = {{"base", "0"}, {"stride", pick(rng, stride)}, {"element-bytes", pick(rng, bytes)}};
       return "A warp of 32 lanes loads " + words(in["element-bytes"]) + "-byte elements with a stride of " + count_of(in["stride"], "element") + " from an aligned base. How many 32-byte sectors does the access touch?";
     }},
    {"coalescing-efficiency", "coalescing", "kernels", "efficiency",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* stride[] = {"1", "2", "3", "8"};
       in = {{"base", "0"}, {"stride", pick(rng, stride)}, {"element-bytes", "4"}};
       return "A warp reads floats with a stride of " + count_of(in["stride"], "element") + ". What share of the bytes moved does it use?";
     }},
    {"bank-conflicts", "bank-conflicts", "kernels", "conflict_degree",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* width[] = {"32", "64", "16"};
       const char* pad[] = {"0", "1"};
       in = {{"tile-width", pick(rng, width)}, {"element-bytes", "4"}, {"walk", "column"}, {"padding", pick(rng, pad)}};
       return "Lane i reads row i of one column of a float tile " + words(in["tile-width"]) + " wide, padded by " +
              count_of(in["padding"], "element") + " per row. What is the bank-conflict degree (the lanes that share a bank)?";
     }},
    {"occupancy", "occupancy", "kernels", "blocks_per_sm",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* threads[] = {"128", "256", "512"};
       const char* regs[] = {"32", "64", "128"};
       const char* smem[] = {"0", "16KiB", "48KiB"};
       in = {{"cc", "9.0"}, {"threads-per-block", pick(rng, threads)}, {"registers-per-thread", pick(rng, regs)},
             {"shared-bytes-per-block", pick(rng, smem)}};
       return "On an H100 (compute capability 9.0), how many blocks of " + words(in["threads-per-block"]) + " threads using " +
              words(in["registers-per-thread"]) + " registers per thread and " + words(in["shared-bytes-per-block"]) +
              " of shared memory each fit on one SM?";
     }},
    {"score-matrix", "attention", "kernels", "score_bytes_per_head",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* seq[] = {"2048", "8192", "32768"};
       in = {{"seq", pick(rng, seq)}, {"dtype", "bf16"}, {"heads", "1"}, {"batch", "1"}};
       return "How many bytes is one head's N by N attention score matrix at " + words(in["seq"]) + " tokens in bf16, the matrix FlashAttention never writes?";
     }},
    // Distributed training
    {"zero-state", "training-memory", "distributed-training", "state_bytes_per_gpu",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* params[] = {"8B", "70B", "405B"};
       const char* gpus[] = {"8", "64", "512"};
       const char* stage[] = {"1", "2", "3"};
       in = {{"params", pick(rng, params)}, {"gpus", pick(rng, gpus)}, {"zero-stage", pick(rng, stage)}, {"optimizer", "adam"}};
       return "Training " + a_or_an(words(in["params"])) + " " + words(in["params"]) + " model with Adam in mixed precision on " + words(in["gpus"]) + " GPUs with ZeRO stage " +
              words(in["zero-stage"]) + ": how many bytes of weights, gradients and optimizer state does each GPU hold?";
     }},
    {"mfu", "mfu", "distributed-training", "mfu",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* hours[] = {"1e6", "3e6", "30e6"};
       in = {{"params", "70B"}, {"tokens", "15T"}, {"gpu", "h100-sxm"}, {"gpu-hours", pick(rng, hours)}};
       return "A 70B dense model trained on 15T tokens used " + words(in["gpu-hours"]) + " H100 GPU-hours. What MFU is that, in bf16?";
     }},
    {"bubble", "pipeline-bubble", "distributed-training", "bubble_fraction",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* stages[] = {"4", "8", "16"};
       const char* micro[] = {"8", "32", "64"};
       in = {{"stages", pick(rng, stages)}, {"microbatches", pick(rng, micro)}, {"schedule", "1f1b"}};
       return "With " + words(in["stages"]) + " pipeline stages and " + words(in["microbatches"]) + " microbatches under 1F1B, what fraction of the step is bubble?";
     }},
    {"fleet-gpus", "fleet", "distributed-training", "gpus",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* params[] = {"70B", "405B"};
       const char* days[] = {"30", "60", "90"};
       in = {{"params", pick(rng, params)}, {"tokens", "15T"}, {"days", pick(rng, days)}, {"gpu", "h100-sxm"}, {"mfu", "0.4"}};
       return "How many H100s train " + a_or_an(words(in["params"])) + " " + words(in["params"]) + " dense model on 15T tokens in " + words(in["days"]) + " days at 40% MFU?";
     }},
    // Inference and serving
    {"prefill-seconds", "prefill", "inference-serving", "seconds",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* prompt[] = {"2048", "8192", "32768"};
       in = {{"model", pick(rng, kModels)}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"prompt", pick(rng, prompt)}, {"efficiency", "0.5"}};
       return "How long does prefill of " + a_or_an(words(in["prompt"])) + " " + words(in["prompt"]) + "-token prompt take for " +
              words(in["model"]) + " on 8 × H100 (tp 8, bf16) if the kernels reach 50% of the dense bf16 peak?";
     }},
    {"decode-step", "decode", "inference-serving", "step_seconds_floor",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* batches[] = {"1", "16", "64"};
       in = {{"model", "llama-3.1-8b"}, {"gpu", pick(rng, kGpus)}, {"tp", "1"}, {"batch", pick(rng, batches)}, {"context", "8192"}};
       return "What is the bandwidth floor of one decode step of llama-3.1-8b on one " + words(in["gpu"]) + " at batch " + words(in["batch"]) +
              " with 8,192 tokens of context each?";
     }},
    {"replicas", "replicas", "inference-serving", "replicas",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* qps[] = {"100", "1000", "10000"};
       const char* out[] = {"200", "500"};
       const char* tps[] = {"2000", "5000"};
       in = {{"qps", pick(rng, qps)}, {"output-tokens", pick(rng, out)}, {"tokens-per-second", pick(rng, tps)}, {"headroom", "0.3"}};
       return "Peak load is " + words(in["qps"]) + " requests/s of " + words(in["output-tokens"]) + " output tokens; one replica sustains " +
              words(in["tokens-per-second"]) + " tokens/s at the SLO. With 30% headroom, how many replicas?";
     }},
    // Open weights
    {"kv-sequence", "fit", "open-weights", "kv_bytes_per_sequence",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* models[] = {"qwen3-32b", "deepseek-v3", "gpt-oss-120b", "mixtral-8x7b", "llama-3.1-405b"};
       in = {{"model", pick(rng, models)}, {"gpu", "h200"}, {"gpus", "8"}, {"context", pick(rng, kContexts)}};
       return "How many bytes of KV cache does one " + words(in["context"]) + "-token sequence of " + words(in["model"]) + " hold in bf16?";
     }},
    {"weights-open", "fit", "open-weights", "weights_bytes",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* models[] = {"qwen3-235b-a22b", "deepseek-v3", "gpt-oss-120b", "kimi-k2", "glm-4.7"};
       const char* dtypes[] = {"bf16", "fp8"};
       in = {{"model", pick(rng, models)}, {"gpu", "h200"}, {"gpus", "8"}, {"context", "4096"}, {"weights-dtype", pick(rng, dtypes)}};
       return "From its config.json, how many bytes are the weights of " + words(in["model"]) + " in " + words(in["weights-dtype"]) + "?";
     }},
    // Napkin math
    {"power", "cluster-power", "napkin-math", "facility_watts",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* gpus[] = {"1024", "8192", "32768"};
       const char* pue[] = {"1.1", "1.3"};
       in = {{"gpu", pick(rng, kGpus)}, {"gpus", pick(rng, gpus)}, {"pue", pick(rng, pue)}};
       return "What does a cluster of " + words(in["gpus"]) + " " + words(in["gpu"]) + " draw at the facility meter at a PUE of " + words(in["pue"]) +
              ", every GPU at rated power and the rest of each node as in the vendor's reference system (its maximum system power over its GPUs)?";
     }},
    {"train-gpu-hours", "train", "napkin-math", "gpu_hours",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* params[] = {"8B", "70B"};
       const char* tokens[] = {"1T", "15T"};
       in = {{"params", pick(rng, params)}, {"tokens", pick(rng, tokens)}, {"gpu", "h100-sxm"}, {"gpus", "1024"}, {"mfu", "0.4"}};
       return "How many H100 GPU-hours does 6ND cost for " + a_or_an(words(in["params"])) + " " + words(in["params"]) + " model on " + words(in["tokens"]) + " tokens at 40% MFU?";
     }},
    // Networking and storage
    {"transfer", "transfer", "networking-storage", "seconds",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* bytes[] = {"140GB", "1.1TB", "16TB"};
       const char* bw[] = {"10GB/s", "50GB/s", "400GB/s"};
       in = {{"bytes", pick(rng, bytes)}, {"bandwidth", pick(rng, bw)}, {"efficiency", "0.8"}};
       return "How long does moving " + words(in["bytes"]) + " take at " + words(in["bandwidth"]) + " if you reach 80% of it?";
     }},
    {"allreduce-bytes", "allreduce", "networking-storage", "bytes_per_rank",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* bytes[] = {"2GB", "16GB"};
       const char* ranks[] = {"8", "16", "1024"};
       in = {{"bytes", pick(rng, bytes)}, {"ranks", pick(rng, ranks)}, {"bus-bandwidth", "400GB/s"}};
       return "In a ring all-reduce of " + words(in["bytes"]) + " over " + words(in["ranks"]) + " ranks, how many bytes does each rank send?";
     }},
    // Fleet reliability
    {"interruptions", "interruptions", "fleet-reliability", "hours_between",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* target[] = {"4096", "16384", "65536"};
       in = {{"events", "419"}, {"days", "54"}, {"gpus", "16384"}, {"target-gpus", pick(rng, target)}};
       return "A fleet saw 419 interruptions in 54 days on 16,384 GPUs. At that rate, how many hours pass between interruptions of a job on " +
              words(in["target-gpus"]) + " GPUs?";
     }},
    {"checkpoint-overhead", "checkpoint", "fleet-reliability", "overhead_fraction",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* mtbf[] = {"2", "6", "24"};
       const char* write[] = {"20", "120"};
       in = {{"mtbf-hours", pick(rng, mtbf)}, {"write-seconds", pick(rng, write)}};
       return "At the Young/Daly interval, what fraction of time goes to checkpoints and lost work with " + a_or_an(words(in["mtbf-hours"])) + " " + words(in["mtbf-hours"]) +
              "-hour MTBF and " + a_or_an(words(in["write-seconds"])) + " " + words(in["write-seconds"]) + " s write?";
     }},
    // Cluster build-out
    {"it-power", "cluster-power", "cluster-buildout", "it_watts",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* gpus[] = {"256", "1024", "4096"};
       in = {{"gpu", pick(rng, kGpus)}, {"gpus", pick(rng, gpus)}, {"pue", "1.2"}};
       return "What IT power do " + words(in["gpus"]) + " " + words(in["gpu"]) + " draw (before cooling), every GPU at rated power and the rest "
              "of each node as in the vendor's reference system (its maximum system power over its GPUs)?";
     }},
    {"gpu-power", "chip", "cluster-buildout", "power_watts",
     [](std::mt19937_64& rng, calc::Given& in) {
       in = {{"gpu", pick(rng, kGpus)}};
       return "What is the rated board power of one " + words(in["gpu"]) + "?";
     }},
    // Scheduling
    {"mig-share", "transfer", "scheduling", "seconds",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* bytes[] = {"16GB", "20GB"};
       const char* bw[] = {"480GB/s", "960GB/s", "3.35TB/s"};
       in = {{"bytes", pick(rng, bytes)}, {"bandwidth", pick(rng, bw)}};
       return "A tenant's slice streams " + words(in["bytes"]) + " of weights per decode step at " + words(in["bandwidth"]) +
              " of memory bandwidth. How long is one step's weight read?";
     }},
    {"gang-power", "cluster-power", "scheduling", "gpu_watts",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* gpus[] = {"512", "2048"};
       in = {{"gpu", pick(rng, kGpus)}, {"gpus", pick(rng, gpus)}};
       return "A gang of " + words(in["gpus"]) + " " + words(in["gpu"]) + " starts at once. What do its GPUs alone draw at full board power?";
     }},
    // System design
    {"sd-replicas", "replicas", "system-design", "tokens_per_second_needed",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* qps[] = {"500", "10000"};
       const char* out[] = {"300", "800"};
       in = {{"qps", pick(rng, qps)}, {"output-tokens", pick(rng, out)}, {"tokens-per-second", "3000"}, {"headroom", "0.2"}};
       return "A service peaks at " + words(in["qps"]) + " requests/s of " + words(in["output-tokens"]) +
              " output tokens each, with 20% headroom. How many output tokens per second must the fleet sustain?";
     }},
    {"sd-cost", "cost", "system-design", "usd_per_million_tokens",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* price[] = {"20", "40"};
       const char* tps[] = {"5000", "20000"};
       in = {{"usd-per-hour", pick(rng, price)}, {"tokens-per-second", pick(rng, tps)}};
       return "An 8-GPU node rents at $" + words(in["usd-per-hour"]) + " per hour and serves " + words(in["tokens-per-second"]) +
              " tokens/s. What is the cost per million tokens?";
     }},
    // Coding for infra
    {"coding-ring-bytes", "allreduce", "coding", "bytes_per_rank",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* ranks[] = {"4", "8", "32"};
       in = {{"bytes", "1GB"}, {"ranks", pick(rng, ranks)}, {"bus-bandwidth", "100GB/s"}};
       return "Your ring all-reduce simulator reduces a 1 GB buffer over " + words(in["ranks"]) +
              " ranks. What byte count per rank should its counter report (2(n-1)/n of the buffer)?";
     }},
    {"coding-coalescing", "coalescing", "coding", "bytes_moved",
     [](std::mt19937_64& rng, calc::Given& in) {
       const char* stride[] = {"1", "4", "16"};
       in = {{"base", "0"}, {"stride", pick(rng, stride)}, {"element-bytes", "4"}};
       return "Your access-pattern analyser sees 32 lanes read floats at a stride of " + count_of(in["stride"], "element") + ". How many bytes does the memory system move for the instruction?";
     }},
};

std::string unit_hint(calc::Unit u) {
  switch (u) {
    case calc::Unit::kBytes: return "bytes: a number (10.7e9) or with kB, MB, GB (powers of 10) or KiB, MiB, GiB (powers of 2, converted)";
    case calc::Unit::kSeconds: return "seconds: a number, or with ms, s, min, h";
    case calc::Unit::kDays: return "days";
    case calc::Unit::kUsd: return "US dollars";
    case calc::Unit::kFlopPerByte: return "FLOP per byte";
    case calc::Unit::kTokensPerSecond: return "tokens per second";
    default: return "a number";
  }
}

}  // namespace

std::string answer_unit_hint(calc::Unit unit) { return unit_hint(unit); }

std::vector<std::string> drill_template_ids() {
  std::vector<std::string> out;
  for (const auto& t : kTemplates) out.push_back(t.id);
  return out;
}

std::string drill_template_topic(const std::string& template_id) {
  for (const auto& t : kTemplates) {
    if (t.id == template_id) return t.topic;
  }
  return "";
}

std::optional<uint64_t> seed_for_template(uint64_t seed, const std::string& template_id) {
  // make_drill takes seed mod the template count as the template's index.
  constexpr size_t n = std::size(kTemplates);
  for (size_t i = 0; i < n; ++i) {
    if (kTemplates[i].id == template_id) return seed - seed % n + i;
  }
  return std::nullopt;
}

std::vector<std::string> drill_topics() {
  std::vector<std::string> out;
  for (const auto& t : kTemplates) {
    if (std::find(out.begin(), out.end(), t.topic) == out.end()) out.push_back(t.topic);
  }
  return out;
}

std::optional<Drill> make_drill(uint64_t seed, const std::string& topic, const calc::Registry& registry,
                                const calc::Catalog& catalog) {
  // The seed alone names the drill: its template is the seed's (seed mod the template count)
  // and its inputs come from a generator seeded with it. A topic moves to the first seed from
  // `seed` on whose template is of that topic (within one turn of the templates), so the seed a
  // topic's drill prints reproduces it without the topic (issue 33 item 2).
  constexpr size_t n = std::size(kTemplates);
  const Template* chosen = nullptr;
  for (size_t step = 0; step < n && chosen == nullptr; ++step) {
    const Template& t = kTemplates[(seed + step) % n];
    if (topic.empty() || topic == t.topic) {
      chosen = &t;
      seed += step;
    }
  }
  if (chosen == nullptr) return std::nullopt;
  const Template& t = *chosen;
  std::mt19937_64 rng(seed);
  Drill d;
  d.seed = seed;
  d.template_id = t.id;
  d.calculator = t.calculator;
  d.topic = t.topic;
  d.result_key = t.result;
  d.prompt = t.build(rng, d.inputs);
  auto result = registry.evaluate(t.calculator, d.inputs, catalog);
  if (!result) return std::nullopt;
  d.answer = *result;
  const calc::NamedResult* r = d.answer.find(t.result);
  if (r == nullptr) return std::nullopt;
  d.expected = r->value;
  d.unit = r->unit;
  d.unit_hint = unit_hint(r->unit);
  return d;
}

Graded grade_drill(const Drill& drill, const std::string& answer, double tolerance) {
  Graded g;
  g.expected = drill.expected;
  calc::ParamSpec spec;
  spec.name = "answer";
  spec.type = calc::ParamType::kNumber;
  spec.unit = drill.unit == calc::Unit::kDays || drill.unit == calc::Unit::kCount ? calc::Unit::kNone : drill.unit;
  std::string text = answer;
  // Units people type after the number that the parser does not need.
  for (const char* word : {" FLOP/B", "FLOP/B", " tokens/s", "tokens/s", " days", "days", " sequences", "sequences"}) {
    size_t pos = text.find(word);
    if (pos != std::string::npos && pos + std::string(word).size() == text.size()) text.erase(pos);
  }
  auto parsed = calc::parse_number(spec, text);
  if (!parsed) {
    const calc::FieldError& why = parsed.errors()[0];
    g.message = why.message + "; accepted: " + (drill.unit_hint.empty() ? why.accepted : drill.unit_hint);
    return g;
  }
  g.given = *parsed;
  g.relative_error = drill.expected == 0 ? std::fabs(g.given) : std::fabs(g.given - drill.expected) / std::fabs(drill.expected);
  g.correct = g.relative_error <= tolerance;
  return g;
}

}  // namespace ridge::practice
