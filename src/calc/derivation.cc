#include "calc/derivation.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "calc/dates.h"
#include <nlohmann/json.hpp>

namespace ridge::calc {

void Derivation::add_input(std::string name, std::string display, std::string raw) {
  inputs_.push_back({std::move(name), std::move(display), std::move(raw)});
}

void Derivation::assume(std::string assumption) { assumptions_.push_back(std::move(assumption)); }

double Derivation::step(std::string label, std::string formula, std::string substituted,
                        double value, Unit unit) {
  steps_.push_back({std::move(label), std::move(formula), std::move(substituted), value, unit});
  return value;
}

void Derivation::result(std::string key, double value, Unit unit) {
  for (auto& r : results_) {
    if (r.key == key) {
      r.value = value;
      r.unit = unit;
      return;
    }
  }
  results_.push_back({std::move(key), value, unit});
}

const NamedResult* Derivation::find(std::string_view key) const {
  for (const auto& r : results_) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

namespace {

// Display width in code points, so "×" counts as one column.
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& s, size_t w) {
  size_t n = width(s);
  return n >= w ? s : s + std::string(w - n, ' ');
}

}  // namespace

std::string render_text(const Derivation& d) {
  std::string out = d.title() + "\n";
  if (!d.inputs().empty()) {
    out += "\nInputs\n";
    size_t w = 0;
    for (const auto& in : d.inputs()) w = std::max(w, width(in.name));
    for (const auto& in : d.inputs()) out += "  " + pad(in.name, w) + "  " + in.display + "\n";
  }
  if (!d.assumptions().empty()) {
    out += "\nAssumptions\n";
    for (const auto& a : d.assumptions()) out += "  - " + a + "\n";
  }
  if (!d.steps().empty()) {
    out += "\nWorking\n";
    size_t w = 0;
    for (const auto& s : d.steps()) w = std::max(w, width(s.label));
    for (const auto& s : d.steps()) {
      std::string indent(w + 4, ' ');
      out += "  " + pad(s.label, w) + "  = " + s.formula + "\n";
      if (!s.substituted.empty() && s.substituted != s.formula) {
        out += indent + "= " + s.substituted + "\n";
      }
      std::string shown = format_quantity(s.value, s.unit);
      if (shown != s.formula) out += indent + "= " + shown + "\n";  // a given value is not repeated
    }
  }
  if (!d.results().empty()) {
    out += "\nResults\n";
    size_t w = 0;
    for (const auto& r : d.results()) w = std::max(w, width(r.key));
    for (const auto& r : d.results()) {
      out += "  " + pad(r.key, w) + "  " + format_quantity(r.value, r.unit) + "\n";
    }
  }
  if (!d.conclusion().empty()) out += "\n" + d.conclusion() + "\n";
  return out;
}

std::string render_json(const Derivation& d, int indent) {
  nlohmann::ordered_json j;
  j["calculator"] = d.calculator();
  j["title"] = d.title();
  auto& inputs = j["inputs"] = nlohmann::ordered_json::object();
  for (const auto& in : d.inputs()) inputs[in.name] = in.raw;
  j["assumptions"] = d.assumptions();
  auto& steps = j["steps"] = nlohmann::ordered_json::array();
  for (const auto& s : d.steps()) {
    steps.push_back({{"label", s.label},
                     {"formula", s.formula},
                     {"substituted", s.substituted},
                     {"value", s.value},
                     {"unit", unit_symbol(s.unit)},
                     {"display", format_quantity(s.value, s.unit)}});
  }
  auto& results = j["results"] = nlohmann::ordered_json::object();
  auto& units = j["units"] = nlohmann::ordered_json::object();
  auto& display = j["display"] = nlohmann::ordered_json::object();
  for (const auto& r : d.results()) {
    // Integral values print as integers so scripts can compare them exactly.
    if (r.value == std::floor(r.value) && std::fabs(r.value) < 9e15) {
      results[r.key] = static_cast<long long>(r.value);
    } else {
      results[r.key] = r.value;
    }
    units[r.key] = unit_symbol(r.unit);
    display[r.key] = format_quantity(r.value, r.unit);
  }
  j["conclusion"] = d.conclusion();
  // Inputs may hold bytes that are not UTF-8 (a path): replace them rather than throw.
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string date_in_words(std::string_view iso) {
  static const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                  "July",    "August",   "September", "October", "November", "December"};
  if (iso.size() != 10 || iso[4] != '-' || iso[7] != '-') return std::string(iso);
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(iso[i]))) return std::string(iso);
  }
  const int month = (iso[5] - '0') * 10 + (iso[6] - '0'), day = (iso[8] - '0') * 10 + (iso[9] - '0');
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::string(iso);
  return std::to_string(day) + " " + kMonths[month - 1] + " " + std::string(iso.substr(0, 4));
}

std::string dates_in_words(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    // A date stands alone in prose: after a space, an opening bracket or the start, and before a
    // space, punctuation or the end; a date inside a URL ("/2025-11-17/") or an id stays as it is.
    bool alone = i + 10 <= text.size() && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '(') &&
                 (i + 10 == text.size() || std::string_view(" .,;:)").find(text[i + 10]) != std::string_view::npos);
    if (alone) {
      std::string_view candidate = text.substr(i, 10);
      std::string words = date_in_words(candidate);
      if (words != candidate) {
        out += words;
        i += 10;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

// Dates in words in what a visitor reads (a chip's "as of", a lab figure's "measured on"); the
// text and JSON keep the ISO date.
std::string render_html(const Derivation& d) {
  std::string out = "<section class=\"derivation\" data-calculator=\"" +
                    html_escape(d.calculator()) + "\">\n";
  out += "<h3>" + html_escape(d.title()) + "</h3>\n";
  if (!d.inputs().empty()) {
    out += "<dl class=\"inputs\">";
    for (const auto& in : d.inputs()) {
      out += "<dt>" + html_escape(in.name) + "</dt><dd>" + html_escape(dates_in_words(in.display)) + "</dd>";
    }
    out += "</dl>\n";
  }
  if (!d.steps().empty()) {
    out += "<table class=\"chain\"><tbody>\n";
    for (const auto& s : d.steps()) {
      out += "<tr><th scope=\"row\">" + html_escape(s.label) + "</th><td><code>" +
             html_escape(s.formula) + "</code>";
      if (!s.substituted.empty() && s.substituted != s.formula) {
        out += "<br><code>= " + html_escape(s.substituted) + "</code>";
      }
      out += "</td><td class=\"value\">" + html_escape(format_quantity(s.value, s.unit)) +
             "</td></tr>\n";
    }
    out += "</tbody></table>\n";
  }
  if (!d.assumptions().empty()) {
    out += "<ul class=\"assumptions\">";
    for (const auto& a : d.assumptions()) out += "<li>" + html_escape(dates_in_words(a)) + "</li>";
    out += "</ul>\n";
  }
  if (!d.conclusion().empty()) {
    out += "<p class=\"conclusion\">" + html_escape(dates_in_words(d.conclusion())) + "</p>\n";
  }
  out += "</section>\n";
  return out;
}

}  // namespace ridge::calc
