// The kv-versioned build over the lab protocol (lab/README.md, "The protocol"): one store
// per process, each request one call.
#include "common/protocol.h"
#include "versioned_kv.h"

namespace {

using nlohmann::json;

const char* status_name(ridge::lab::ReadStatus s) {
  switch (s) {
    case ridge::lab::ReadStatus::kFound: return "found";
    case ridge::lab::ReadStatus::kNotFound: return "not_found";
    case ridge::lab::ReadStatus::kFutureVersion: return "future_version";
    case ridge::lab::ReadStatus::kCompacted: return "compacted";
  }
  return "?";
}

json read_reply(const ridge::lab::ReadResult& r) {
  if (r.status != ridge::lab::ReadStatus::kFound) return {{"status", status_name(r.status)}};
  return {{"status", "found"}, {"value", r.value}, {"version", r.version}};
}

ridge::lab::VersionedKv kv;

json handle(const json& req) {
  const std::string op = req.at("op").get<std::string>();
  if (op == "put") return {{"version", kv.put(req.at("key").get<std::string>(), req.at("value").get<std::string>())}};
  if (op == "erase") return {{"version", kv.erase(req.at("key").get<std::string>())}};
  if (op == "get") return read_reply(kv.get(req.at("key").get<std::string>()));
  if (op == "get_at") {
    return read_reply(kv.get_at(req.at("key").get<std::string>(), req.at("version").get<std::uint64_t>()));
  }
  if (op == "scan_at") {
    const auto r = kv.scan_at(req.at("version").get<std::uint64_t>());
    if (r.status != ridge::lab::ReadStatus::kFound) return {{"status", status_name(r.status)}};
    json entries = json::array();
    for (const auto& [k, v] : r.entries) entries.push_back({k, v});
    return {{"status", "found"}, {"entries", entries}};
  }
  if (op == "compact") return {{"dropped", kv.compact(req.at("oldest").get<std::uint64_t>())}};
  if (op == "stats") {
    return {{"current_version", kv.current_version()},
            {"oldest_readable", kv.oldest_readable()},
            {"history_size", kv.history_size()}};
  }
  ridge::lab::unknown_op(req, "put, erase, get, get_at, scan_at, compact, stats");
}

}  // namespace

int main() { return ridge::lab::serve(handle); }
