#include "web/services/drill_service.h"

#include <algorithm>

namespace ridge::web::services {

const std::vector<std::string>& DrillService::topics() {
  static const std::vector<std::string> kTopics = practice::drill_topics();
  return kTopics;
}

Result<practice::Drill> DrillService::generate(const std::string& topic, const std::string& seed_text,
                                                const std::string& template_id) const {
  const auto& known = topics();
  if (!topic.empty() && std::find(known.begin(), known.end(), topic) == known.end()) {
    std::string list;
    for (const auto& t : known) list += (list.empty() ? "" : ", ") + t;
    return Failure::invalid({"topic", topic, "Drills cover these topics: " + list + ".", list});
  }
  uint64_t seed = 0;
  if (seed_text.empty()) {
    seed = random_.next_u64() % 1000000000ull;
  } else {
    // Any whole number is a drill (the seed picks inputs; nothing is secret about it).
    bool digits = seed_text.size() <= 19 && std::all_of(seed_text.begin(), seed_text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) return Failure::invalid({"seed", seed_text.substr(0, 20), "seed '" + seed_text.substr(0, 20) + "' is not a drill seed", "a whole number of up to 19 digits"});
    seed = std::strtoull(seed_text.c_str(), nullptr, 10);
  }
  if (!template_id.empty()) {
    auto aligned = practice::seed_for_template(seed, template_id);
    if (!aligned) {
      std::string list;
      for (const auto& id : practice::drill_template_ids()) list += (list.empty() ? "" : ", ") + id;
      return Failure::invalid({"template", template_id.substr(0, 40), "There is no drill '" + template_id.substr(0, 40) + "'.", list});
    }
    auto drill = practice::make_drill(*aligned, "", registry_, catalog_);
    if (!drill) return Failure::internal({"template", template_id, "Could not generate a drill.", "a drill template"});
    return std::move(*drill);
  }
  auto drill = practice::make_drill(seed, topic, registry_, catalog_);
  if (!drill) return Failure::internal({"topic", topic, "Could not generate a drill.", "a topic with drills"});
  return std::move(*drill);
}

DrillCheck DrillService::check(const practice::Drill& drill, const std::string& answer, int64_t user_id, bool record) const {
  DrillCheck c;
  c.graded = practice::grade_drill(drill, answer);
  if (!c.graded.message.empty()) return c;
  c.verdict = c.graded.correct ? DrillCheck::Verdict::kCorrect : DrillCheck::Verdict::kWrong;
  if (record && user_id != 0 && store_ != nullptr) {
    auto saved = store_->record_drill(user_id, {drill.calculator, drill.topic, c.graded.correct, clock_.now()});
    c.recorded = saved.ok() ? DrillCheck::Recorded::kSaved : DrillCheck::Recorded::kFailed;
    if (!saved.ok()) c.store_error = saved.error().detail;
  }
  return c;
}

}  // namespace ridge::web::services
