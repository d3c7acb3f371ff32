// What the diagram files share (not for use outside src/diagram/diagrams*.cc): the parameter
// helpers (diagrams.cc) and one drawing function per kind, which draw() in diagrams.cc picks:
// roofline in diagrams_roofline.cc; pipeline, ring, checkpoint and step-waterfall (a training
// step and what it loses) in diagrams_training.cc; memory and kv-blocks in diagrams_memory.cc.
#pragma once

#include <string>

#include "calc/registry.h"
#include "diagram/diagrams.h"

namespace ridge::diagram::detail {

using calc::Derivation;
using calc::Errors;
using calc::FieldError;
using calc::Given;
using calc::Result;

// Pulls the diagram's own keys out of `params`, leaving the calculator's.
std::string take(Given& params, const std::string& key, const std::string& fallback = "");
Result<double> take_number(Given& params, const std::string& key, double fallback, double lo, double hi);
double result(const Derivation& d, const char* key);
std::string q(double v, calc::Unit u);
// A numeric input of a derivation, parsed with its calculator's own spec (so "3h", "32Ki"
// and "70B" mean what they meant to the calculator).
double input_value(const calc::Registry& registry, const Derivation& d, const std::string& name);

// One function per kind: the kind's own parameters taken out of `params`, the rest given to
// its calculator.
Result<Rendered> roofline(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o);
Result<Rendered> pipeline(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o);
Result<Rendered> ring(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o);
Result<Rendered> checkpoint(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o);
Result<Rendered> waterfall(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o);
Result<Rendered> memory(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o);
Result<Rendered> kv_blocks(Given params, const Options& o);

}  // namespace ridge::diagram::detail
