// `ridge mail weekly` (the week's free question to every confirmed subscriber, once per ISO
// week however often or wherever it runs) and `ridge mail send` (deliver what is queued).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace ridge::cli {

int run_mail(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
             std::ostream& err);

}  // namespace ridge::cli
