// A Derivation is a worked answer: the inputs, the assumptions under them, the steps from
// formula to number, and the named results scripts read. Every face of ridge (terminal,
// JSON API, web page, question) renders the same Derivation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calc/units.h"

namespace ridge::calc {

struct InputLine {
  std::string name;     // parameter name, e.g. "context"
  std::string display;  // the value as used, e.g. "32,768 tokens" or "h100-sxm (NVIDIA H100 SXM5 80GB)"
  std::string raw;      // the value as given, for JSON ("32768")
};

struct Step {
  std::string label;        // "KV per token"
  std::string formula;      // "2 × layers × kv_heads × head_dim × bytes"
  std::string substituted;  // "2 × 80 × 8 × 128 × 2 B"
  double value = 0;
  Unit unit = Unit::kNone;
};

struct NamedResult {
  std::string key;  // contract name, e.g. "max_sequences"
  double value = 0;
  Unit unit = Unit::kNone;
};

class Derivation {
 public:
  Derivation(std::string calculator, std::string title)
      : calculator_(std::move(calculator)), title_(std::move(title)) {}

  void add_input(std::string name, std::string display, std::string raw);
  void assume(std::string assumption);
  // Adds a step and returns its value, so a calculator reads like the whiteboard.
  double step(std::string label, std::string formula, std::string substituted, double value,
              Unit unit);
  void result(std::string key, double value, Unit unit);
  void set_conclusion(std::string text) { conclusion_ = std::move(text); }

  const std::string& calculator() const { return calculator_; }
  const std::string& title() const { return title_; }
  const std::vector<InputLine>& inputs() const { return inputs_; }
  const std::vector<std::string>& assumptions() const { return assumptions_; }
  const std::vector<Step>& steps() const { return steps_; }
  const std::vector<NamedResult>& results() const { return results_; }
  const std::string& conclusion() const { return conclusion_; }

  // nullptr when there is no result with that key.
  const NamedResult* find(std::string_view key) const;

 private:
  std::string calculator_;
  std::string title_;
  std::vector<InputLine> inputs_;
  std::vector<std::string> assumptions_;
  std::vector<Step> steps_;
  std::vector<NamedResult> results_;
  std::string conclusion_;
};

// Plain text for a terminal, aligned like a worked answer on a whiteboard.
std::string render_text(const Derivation& d);
// JSON: {"calculator", "title", "inputs": {name: raw}, "assumptions": [...], "steps": [...],
// "results": {key: number in base units}, "units": {key: symbol}, "display": {key: "10.7 GB"},
// "conclusion"}.
std::string render_json(const Derivation& d, int indent = 2);
// An HTML fragment (<section class="derivation">) with every text escaped.
std::string render_html(const Derivation& d);

std::string html_escape(std::string_view text);

}  // namespace ridge::calc
