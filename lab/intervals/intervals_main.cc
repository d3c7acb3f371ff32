// The intervals build over the lab protocol (lab/README.md, "The protocol"): the C++
// reference answers the same cases.jsonl as the Python and Go references.
#include <vector>

#include "common/protocol.h"
#include "intervals.h"

namespace {

using nlohmann::json;
using ridge::lab::Interval;

std::vector<Interval> intervals_of(const json& list) {
  std::vector<Interval> out;
  for (const auto& pair : list) out.push_back({pair.at(0).get<std::int64_t>(), pair.at(1).get<std::int64_t>()});
  return out;
}

std::vector<std::vector<Interval>> ranks_of(const json& list) {
  std::vector<std::vector<Interval>> out;
  for (const auto& rank : list) out.push_back(intervals_of(rank));
  return out;
}

json to_json(const std::vector<Interval>& intervals) {
  json out = json::array();
  for (const Interval& i : intervals) out.push_back({i.start_us, i.end_us});
  return out;
}

json handle(const json& req) {
  const std::string op = req.at("op").get<std::string>();
  if (op == "merge") {
    const auto r = ridge::lab::merge_intervals(intervals_of(req.at("intervals")));
    return {{"intervals", to_json(r.intervals)}, {"dropped", r.dropped}};
  }
  if (op == "idle_at_least") {
    return {{"intervals", to_json(ridge::lab::idle_at_least(ranks_of(req.at("ranks")), req.at("k").get<std::size_t>()))}};
  }
  if (op == "all_idle") return {{"intervals", to_json(ridge::lab::all_idle(ranks_of(req.at("ranks"))))}};
  if (op == "any_idle") return {{"intervals", to_json(ridge::lab::any_idle(ranks_of(req.at("ranks"))))}};
  if (op == "total") return {{"total_us", ridge::lab::total_us(intervals_of(req.at("intervals")))}};
  ridge::lab::unknown_op(req, "merge, idle_at_least, all_idle, any_idle, total");
}

}  // namespace

int main() { return ridge::lab::serve(handle); }
