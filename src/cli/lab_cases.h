// The lab's language-neutral cases: lab/<id>/cases.jsonl, one case a line
//   {"name": ..., "catches": ..., "input": [request, ...], "expected": [reply, ...],
//    "tolerance": number (optional)}
// run against a program that speaks the protocol (one JSON request per line on stdin, one
// JSON reply per line on stdout), each case in a fresh sandboxed process (lab_sandbox.h).
// A Python file runs under /usr/bin/python3, a Go file is compiled inside the sandbox first,
// a built executable (the C++ adapter) runs as it is.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "cli/lab_sandbox.h"

namespace ridge::cli {

struct CaseOptions {
  SandboxLimits limits;
  std::string only_case;  // run just this case (--case NAME); empty: all
};

// Runs every case of `cases_file` against `program` (a .py or .go source file, or an
// executable). `label` names the program in messages. Returns 0 when every case passes,
// 1 when one fails or the program does not build, 2 for a --case that names no case.
int run_cases(const std::string& id, const std::filesystem::path& cases_file, const std::filesystem::path& program,
              const std::string& label, const CaseOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ridge::cli
