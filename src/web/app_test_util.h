// Tests only: the App with default options (no store) on the real bank, built once per test
// program, and the helpers the tests that call it share (app_test.cc, metrics_test.cc,
// search_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "bank/loader.h"
#include "calc/test_catalog.h"
#include "web/app.h"
#include "calc/source_dir.h"

namespace ridge::web::app_testing {

inline const App& app() {
  static const App instance = [] {
    auto loaded = bank::load_bank(std::string(ridge::source_dir()) + "/content", calc::testing::registry(),
                                  calc::testing::real_catalog(), {false});
    for (const auto& d : loaded.errors) ADD_FAILURE() << d.to_string();
    AppOptions options;
    return App(std::move(loaded.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
               Assets(std::string(ridge::source_dir()) + "/web/static"), options);
  }();
  return instance;
}

inline Response get(const std::string& target, const std::string& method = "GET",
             std::map<std::string, std::string> headers = {}) {
  Request req;
  req.method = method;
  req.target = target;
  req.headers = std::move(headers);
  EXPECT_TRUE(parse_target(target, req)) << target;
  return app().handle(req);
}

inline std::string header(const Response& r, const std::string& name) {
  if (r.prebuilt_headers != nullptr) {  // a cached page: its header lines were prepared at start-up
    size_t pos = r.prebuilt_headers->find(name + ": ");
    if (pos != std::string::npos) {
      size_t start = pos + name.size() + 2;
      return r.prebuilt_headers->substr(start, r.prebuilt_headers->find("\r\n", start) - start);
    }
  }
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

inline bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

inline const std::string& any_slug() { return app().bank().questions.front().slug; }

}  // namespace ridge::web::app_testing
