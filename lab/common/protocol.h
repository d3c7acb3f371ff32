// The lab's language-neutral protocol, C++ side: an implementation is a program that reads
// one JSON request per line on stdin and writes one JSON reply per line on stdout, in order
// (lab/README.md documents each build's ops). serve() is that loop for the C++ adapters
// (lab/<id>/<id>_main.cc): it parses each line, calls the handler, prints its reply and
// flushes. A line that is not JSON, or a handler that throws (an unknown op, a missing or
// mistyped field), gets {"error": "..."} and the loop goes on, so one bad request costs one
// reply, not the rest of the case.
#pragma once

#include <exception>
#include <functional>
#include <stdexcept>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace ridge::lab {

using Handler = std::function<nlohmann::json(const nlohmann::json& request)>;

inline int serve(const Handler& handle) {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json reply;
    try {
      reply = handle(nlohmann::json::parse(line));
    } catch (const std::exception& e) {
      reply = {{"error", e.what()}};
    }
    std::cout << reply.dump() << "\n" << std::flush;
  }
  return 0;
}

// Throws for a request whose "op" is not one of `accepted` (a comma-separated list).
[[noreturn]] inline void unknown_op(const nlohmann::json& request, const std::string& accepted) {
  throw std::invalid_argument("unknown op " + request.value("op", std::string("(none)")) + "; accepted: " + accepted);
}

}  // namespace ridge::lab
