// HTML pages, rendered from the bank, the catalogs and the registry. Pure functions of
// their inputs: the App renders the fixed pages once at start-up and keeps the bytes.
// Each page is a view struct (web/pages/, one file per page family; the pieces they share in
// web/pages/parts.h) rendered by its template in web/templates
// (template.h): every text value is escaped by the template; only HTML this program made
// (a rendered answer, a derivation, a diagram, a page body) goes in raw. Thread-safe: any
// function here may run on several threads at once (search and sign-in pages do).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bank/bank.h"
#include "calc/registry.h"
#include "web/assets.h"
#include "web/search.h"

namespace ridge::web {

struct Site {
  const bank::Bank& bank;
  const calc::Catalog& catalog;
  const calc::Registry& registry;
  const Assets& assets;
};

// The nav's account link as layout() renders it on every page, and what App::handle puts in
// its place, from the session, for a signed-in visitor (so "Sign in" never shows to them,
// with or without script).
inline constexpr std::string_view kNavSignedOut = "<a href=\"/signin\" id=\"nav-account\">Sign in</a>";
inline constexpr std::string_view kNavSignedIn = "<a href=\"/dashboard\" id=\"nav-account\">Progress</a>";

std::string layout(const Site& site, const std::string& title, const std::string& description,
                   const std::string& body);

// What the home page says about paying (from the billing configuration).
struct Offer {
  std::string price;  // "$39"
  int months = 6;
};
std::string home_page(const Site& site, const Offer& offer);
// The full accelerator and system spec tables, every figure with its source and date.
std::string hardware_page(const Site& site);
std::string topic_page(const Site& site, const bank::Topic& topic);
std::string track_page(const Site& site, const bank::Track& track);
std::string difficulty_page(const Site& site, bank::Difficulty d);
std::string concept_page(const Site& site, const bank::Concept& c);
std::string concepts_index(const Site& site);
std::string company_page(const Site& site, const bank::Company& c);
std::string companies_index(const Site& site);
// The table of companies: kind, what each loop weighs, confidence, tagged questions.
std::string company_table(const Site& site);
std::string topics_index(const Site& site);
// `workable`: the page links to Work it (/q/{slug}/work); the server says so for the
// questions WorkService::workable accepts, the static export never (it has no server).
std::string question_page(const Site& site, const bank::Question& q, bool workable = false);
// The calculators, then the performance model's validation table when `validation` holds
// `ridge validate --json`'s object (null: no table).
std::string calculators_index(const Site& site, const nlohmann::json& validation = nullptr);

// A calculator's page: the form from its specs, filled with `values`, and either the
// derivation or the errors next to their fields.
std::string calculator_page(const Site& site, const calc::Calculator& c, const calc::Given& values,
                            const calc::Result<calc::Derivation>* result);

struct SearchPaging {
  int page = 1, per_page = 20, total = 0;
  bool timed_out = false;
};
std::string search_page(const Site& site, const std::string& query, const std::string& topic,
                        const std::string& difficulty, const std::vector<SearchHit>& hits, const SearchPaging& paging);

// One of each diagram kind, drawn from example parameters: for authors, and for the
// browser test's screenshots.
std::string diagrams_page(const Site& site);

// A paid question for a visitor without an account: title, topic and the way in.
std::string locked_question_page(const Site& site, const bank::Question& q);
// A paid question for a signed-in visitor without access: title, TL;DR, the price and the way to pay.
std::string paywall_question_page(const Site& site, const bank::Question& q, const std::string& price, bool billing_enabled);
// Sign-in or sign-up form; `error` shows above it, `next` is where to go after.
std::string auth_page(const Site& site, bool signup, const std::string& error, const std::string& next,
                      const std::string& pre_token);

std::string error_page(const Site& site, int status, const std::string& message);

// The calculator's example as parameter values ("--gpu h100-sxm --gpus 8").
calc::Given example_values(const calc::Calculator& c);

}  // namespace ridge::web
