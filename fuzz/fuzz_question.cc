// Fuzzes the question parser: front matter, fenced directives, references, citations, lint.
#include <cstdint>
#include <string>

#include "bank/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ridge::calc::Registry registry = ridge::calc::make_builtin_registry();
  static const ridge::calc::Catalog catalog = [] {
    ridge::calc::Catalog c;
    c.hardware = ridge::calc::HardwareCatalog::parse(
                     "[h100-sxm]\nname = \"H100\"\nvendor = \"NVIDIA\"\nmemory_bytes = 80e9\n"
                     "memory_bandwidth = 3.35e12\nsource = \"datasheet\"\nas_of = 2023-01-01\n"
                     "[h100-sxm.peak_flops]\nbf16 = 989.4e12\n",
                     "fuzz")
                     .value();
    return c;
  }();
  static const ridge::bank::KnownIds known = [] {
    ridge::bank::KnownIds k;
    k.topics = {"napkin-math"};
    k.tracks = {"serving"};
    k.concepts = {"kv-cache"};
    return k;
  }();
  std::string text(reinterpret_cast<const char*>(data), size);
  ridge::bank::Question q;
  std::vector<ridge::bank::Diagnostic> diags;
  ridge::bank::parse_question(text, "questions/napkin-math/fuzz.md", known, registry, catalog, {true}, q, diags);
  return 0;
}
