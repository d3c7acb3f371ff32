// Diagrams drawn from the engine's numbers, so a picture can never disagree with its text:
// roofline, pipeline, ring, kv-blocks, memory, checkpoint, step-waterfall. Each kind takes
// key=value parameters (the calculator's flags plus a few of its own) and evaluates the
// matching calculator through the registry; errors name the parameter, the value and what is
// accepted, like the calculators'.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::diagram {

struct Rendered {
  std::string kind;
  std::string title;
  std::string desc;
  std::string svg;
};

struct Options {
  bool standalone = false;  // a file of its own (embedded <style>) rather than inline in a page
  std::string id = "d";     // unique per page: prefixes the title and desc ids
};

const std::vector<std::string>& kinds();

// Draws `kind` from `params`. `from`, when given, is a derivation whose inputs fill any
// parameter not given (the ```diagram KIND from=ID``` directive).
calc::Result<Rendered> draw(const std::string& kind, const calc::Given& params, const calc::Registry& registry,
                            const calc::Catalog& catalog, const Options& options = {},
                            const calc::Derivation* from = nullptr);

// The diagram that goes with a calculator's result (fit -> memory, roofline -> roofline,
// checkpoint -> checkpoint, pipeline-bubble -> pipeline, allreduce -> ring), if it has one.
std::optional<std::string> kind_for_calculator(const std::string& calculator);

// The inputs of a derivation as parameters (name -> value as given).
calc::Given inputs_of(const calc::Derivation& d);

}  // namespace ridge::diagram
