#include "cli/lab_command.h"

namespace ridge::cli {

int run_lab(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "ridge lab: no builds yet\n";
  return 2;
}

}  // namespace ridge::cli
