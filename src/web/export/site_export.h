// The offline copy (`ridge export site DIR`): every page that does not depend on the visitor,
// as the server renders it at start-up, written as static files with relative links, so the
// copy opens from disk (file://) and any static server can serve it.
//
// Mapping: "/" is index.html, "/topics/kernels" is topics/kernels.html, "/static/style.H.css"
// keeps its fingerprinted name, a calculator's diagram is calc/NAME/diagram.svg. A link to a
// page that needs the server (sign-in, search, drills, reviews, a calculator with other inputs)
// goes to offline.html, which says so. Calculators keep their forms with their worked example
// and a note that new inputs need `ridge serve` (the live update is switched off). A paid
// question's answer is written only with `include_paid` (the operator's flag); without it
// the page is the locked copy anonymous visitors get.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "calc/result.h"
#include "web/app_options.h"
#include "web/pages.h"

namespace ridge::web::exports {

struct SiteExport {
  int pages = 0, assets = 0, diagrams = 0;
  int paid_locked = 0;  // paid questions written as their locked copy
};

// Writes into `dir` (created if missing; files already there are overwritten). `static_dir`
// is web/static, whose files the assets were loaded from. Refused (field "dir") when the
// directory cannot be written.
calc::Result<SiteExport> export_site(const Site& site, const AppOptions& options, const std::filesystem::path& static_dir,
                                     const std::filesystem::path& dir, bool include_paid);

// The relative file a site path is written to ("/q/x" -> "q/x.html"), or "" when the path is
// not in the copy. `paths` are the exported page paths.
std::string file_for(const std::string& path);
// `html` with every href, src and action that starts with "/" made relative to the page at
// `page_file` ("q/x.html" -> "../..."), using `exported` to tell pages in the copy from pages
// that need the server.
std::string relativize(const std::string& html, const std::string& page_file, const std::set<std::string>& exported);

}  // namespace ridge::web::exports
