// Test helper: the real catalogs from data/, loaded once per test binary.
#pragma once

#include <gtest/gtest.h>

#include "calc/registry.h"
#include "calc_io/load_catalog.h"

namespace ridge::calc::testing {

inline const Catalog& real_catalog() {
  static const Catalog catalog = [] {
    auto loaded = calc_io::load_catalog(RIDGE_DATA_DIR);
    if (!loaded) {
      ADD_FAILURE() << to_string(loaded.errors());
      return Catalog{};
    }
    return std::move(loaded).value();
  }();
  return catalog;
}

inline const Registry& registry() {
  static const Registry r = make_builtin_registry();
  return r;
}

// Runs a calculator; fails the test with the errors when it does not succeed.
inline Derivation run(std::string_view name, const Given& given) {
  auto d = registry().evaluate(name, given, real_catalog());
  if (!d) {
    ADD_FAILURE() << name << ": " << to_string(d.errors());
    return Derivation(std::string(name), "failed");
  }
  return *d;
}

inline double result(const Derivation& d, std::string_view key) {
  const NamedResult* r = d.find(key);
  if (r == nullptr) {
    ADD_FAILURE() << "no result " << key << " in " << d.calculator();
    return -1;
  }
  return r->value;
}

inline Errors errors_of(std::string_view name, const Given& given) {
  auto d = registry().evaluate(name, given, real_catalog());
  if (d) {
    ADD_FAILURE() << name << " unexpectedly succeeded";
    return {};
  }
  return d.errors();
}

}  // namespace ridge::calc::testing
