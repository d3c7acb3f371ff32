// The ledger of issue 31 item 5: `ridge validate --json`, `--markdown` and /calc show the same
// per-regime table. The figures are recomputed here from the JSON's runs (an independent
// computation of mean, median, p90 and worst), then looked for in the page and the Markdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "calc/test_catalog.h"
#include "cli/validate_command.h"
#include "web/assets.h"
#include "web/pages.h"

namespace ridge::cli {
namespace {

std::string validate(bool json, bool markdown) {
  ValidateFlags f;
  f.json = json;
  f.markdown = markdown;
  std::ostringstream out, err;
  const int rc = run_validate(f, calc::testing::registry(), calc::testing::real_catalog(),
                              std::string(RIDGE_DATA_DIR) + "/published-runs.toml", out, err);
  EXPECT_EQ(rc, 0) << err.str();
  return out.str();
}

// Mean / median / p90 (nearest rank: the ceil(0.9 n)-th smallest) / worst of |error| in percent,
// a failed run counting 100%, written as the ledger writes a cell.
std::string cell(std::vector<double> e) {
  if (e.empty()) return "no runs";
  std::sort(e.begin(), e.end());
  const size_t n = e.size();
  double mean = 0;
  for (double x : e) mean += x;
  mean /= static_cast<double>(n);
  const double median = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
  const double p90 = e[static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1];
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.1f / %.1f / %.1f / %.1f%% (%zu %s)", mean * 100, median * 100, p90 * 100,
                e.back() * 100, n, n == 1 ? "run" : "runs");
  return buf;
}

TEST(ValidateLedger, PageAndMarkdownShowTheJsonsFiguresPerRegime) {
  const auto j = nlohmann::json::parse(validate(true, false));
  const std::string markdown = validate(false, true);
  const bank::Bank bank;
  const web::Assets assets;
  const web::Site site{bank, calc::testing::real_catalog(), calc::testing::registry(), assets};
  const std::string page = web::calculators_index(site, j);

  ASSERT_TRUE(j["ledger"].is_array());
  // Issue 31's regimes: 4 training (dense/MoE × bf16/fp8) and at least 3 serving, plus a line
  // for each group's every regime.
  ASSERT_GE(j["ledger"].size(), 9u);
  int regimes_with_held_out = 0;
  for (const auto& line : j["ledger"]) {
    const std::string group = line["group"], regime = line["regime"];
    std::vector<double> held_out, all;
    for (const auto& r : j["runs"]) {
      if (r["group"] != group || (!regime.empty() && r["regime"] != regime)) continue;
      const double e = r.contains("error") ? std::abs(r["error"].get<double>()) : 1.0;
      all.push_back(e);
      if (r["half"] == "held-out") held_out.push_back(e);
    }
    ASSERT_EQ(line["all"]["n"].get<size_t>(), all.size()) << group << " " << regime;
    ASSERT_EQ(line["held-out"]["n"].get<size_t>(), held_out.size()) << group << " " << regime;
    regimes_with_held_out += held_out.empty() ? 0 : 1;
    const std::string name = group + (regime.empty() ? ", every regime" : " " + regime);
    const std::string figures = "<td>" + cell(held_out) + "</td><td>" + cell(all) + "</td>";
    // The page: the row headed by the regime, then its held-out and all cells.
    const size_t row = page.find(name + (regime.empty() ? "</th>" : "</a></th>"));
    ASSERT_NE(row, std::string::npos) << name << " has no row on /calc";
    EXPECT_EQ(page.compare(page.find("<td>", row), figures.size(), figures), 0)
        << name << ": expected " << figures << " on /calc";
    // The Markdown: the same cells in the row of the same name.
    const std::string md_row = "| " + (regime.empty() ? "**" + name + "**" : name) + " | " + cell(held_out) + " | " +
                               cell(all) + " | ";
    EXPECT_NE(markdown.find(md_row), std::string::npos) << name << ": expected " << md_row << " in --markdown";
  }
  EXPECT_GE(regimes_with_held_out, 6);

  // Every gate on the page with the verdict its own figures give.
  for (const auto& g : j["gates"]) {
    const double mean = g["mean_abs_error"].get<double>() * 100, worst = g["worst_abs_error"].get<double>() * 100;
    const bool pass = g["n"].get<int>() > 0 && (g["max_mean_percent"] == 0 || mean <= g["max_mean_percent"].get<double>() + 1e-9) &&
                      (g["max_worst_percent"] == 0 || worst <= g["max_worst_percent"].get<double>() + 1e-9);
    EXPECT_EQ(g["pass"].get<bool>(), pass) << g["regime"];
    const std::string shown = "<div>" + g["bound"].get<std::string>() + ": " + (pass ? "passes" : "fails") + "; ";
    EXPECT_NE(page.find(shown), std::string::npos) << shown;
  }
  // Every run under its regime's heading, with its source.
  for (const auto& r : j["runs"]) {
    const size_t heading = page.find("Runs: " + r["group"].get<std::string>() + " " + r["regime"].get<std::string>() + "</h3>");
    ASSERT_NE(heading, std::string::npos) << r["regime"];
    const size_t row = page.find("<th scope=\"row\">" + r["id"].get<std::string>() + "</th>");
    EXPECT_GT(row, heading) << r["id"];
    EXPECT_LT(row, page.find("</table>", heading)) << r["id"] << " is not in its regime's table";
  }
  EXPECT_EQ(page.find("**"), std::string::npos) << "raw Markdown on /calc";
}

}  // namespace
}  // namespace ridge::cli
