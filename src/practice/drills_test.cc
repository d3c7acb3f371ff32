#include "practice/drills.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

#include "calc/test_catalog.h"

namespace ridge::practice {
namespace {

TEST(Drills, SameSeedSameDrillAndEveryTemplateWorks) {
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 4000; ++seed) {
    auto d = make_drill(seed, "", calc::testing::registry(), calc::testing::real_catalog());
    ASSERT_TRUE(d.has_value()) << seed;
    auto again = make_drill(seed, "", calc::testing::registry(), calc::testing::real_catalog());
    EXPECT_EQ(d->prompt, again->prompt);
    EXPECT_EQ(d->expected, again->expected);
    EXPECT_TRUE(std::isfinite(d->expected));
    seen.insert(d->template_id);
  }
  EXPECT_EQ(seen.size(), drill_template_ids().size());  // every template is reachable
  EXPECT_GE(seen.size(), 40u);
}

// Issue 20: drills for every topic with numbers (all but behavioral), prompts with numbers
// formatted for people.
TEST(Drills, EveryTopicButBehavioralHasDrillsAndPromptsReadWell) {
  std::set<std::string> topics;
  for (const auto& t : drill_topics()) topics.insert(t);
  for (const char* t : {"gpu-architecture", "cluster-buildout", "kernels", "distributed-training", "inference-serving",
                        "open-weights", "napkin-math", "networking-storage", "fleet-reliability", "scheduling",
                        "system-design", "coding"}) {
    EXPECT_TRUE(topics.count(t)) << t;
    auto d = make_drill(7, t, calc::testing::registry(), calc::testing::real_catalog());
    ASSERT_TRUE(d.has_value()) << t;
    EXPECT_EQ(d->topic, t);
  }
  EXPECT_FALSE(topics.count("behavioral"));
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    auto d = make_drill(seed, "", calc::testing::registry(), calc::testing::real_catalog());
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->prompt.find("131072"), std::string::npos) << d->prompt;  // 131,072, not raw digits
    EXPECT_EQ(d->prompt.find("16384 "), std::string::npos) << d->prompt;
  }
}

TEST(Drills, GradingWithinTenPercentAndUnits) {
  Drill d;
  d.expected = 327680;
  d.unit = calc::Unit::kBytes;
  EXPECT_TRUE(grade_drill(d, "327680").correct);
  EXPECT_TRUE(grade_drill(d, "330 kB").correct);   // 0.7% off
  EXPECT_TRUE(grade_drill(d, "0.33MB").correct);
  EXPECT_FALSE(grade_drill(d, "3.3 MB").correct);  // ten times too big
  Graded bad = grade_drill(d, "lots");
  EXPECT_FALSE(bad.correct);
  EXPECT_FALSE(bad.message.empty());
  Drill s;
  s.expected = 0.07;
  s.unit = calc::Unit::kSeconds;
  EXPECT_TRUE(grade_drill(s, "70 ms").correct);
  EXPECT_FALSE(grade_drill(s, "7 ms").correct);
}

// Issue 20: "10.7 GB" and "10.7e9" read as the same answer; GiB is converted (2^30 bytes),
// never read as GB; an unknown unit is named, with what is accepted, and is not graded.
TEST(Drills, AnswersWithUnitsAreReadAndGiBIsConverted) {
  Drill d;
  d.expected = 10.7e9;
  d.unit = calc::Unit::kBytes;
  for (const char* same : {"10.7 GB", "10.7GB", "10.7e9", "10,700,000,000", "10700 MB"}) {
    Graded g = grade_drill(d, same);
    EXPECT_TRUE(g.message.empty()) << same << ": " << g.message;
    EXPECT_DOUBLE_EQ(g.given, 10.7e9) << same;
    EXPECT_TRUE(g.correct) << same;
  }
  Graded gib = grade_drill(d, "10.7 GiB");
  EXPECT_TRUE(gib.message.empty());
  EXPECT_DOUBLE_EQ(gib.given, 10.7 * 1073741824.0);  // converted, 7.4% more than 10.7 GB
  Graded far = grade_drill(d, "12 GiB");             // 12.9e9: 20% off
  EXPECT_FALSE(far.correct);
  Graded unknown = grade_drill(d, "10.7 gigs");
  EXPECT_FALSE(unknown.correct);
  EXPECT_NE(unknown.message.find("unknown unit"), std::string::npos) << unknown.message;
  EXPECT_NE(unknown.message.find("GiB"), std::string::npos) << unknown.message;  // what is accepted
  EXPECT_EQ(unknown.message.find("double"), std::string::npos) << unknown.message;
  Graded huge = grade_drill(d, "1e999");
  EXPECT_FALSE(huge.message.empty());
  EXPECT_EQ(huge.message.find("double"), std::string::npos) << huge.message;
}

TEST(Drills, TopicFilter) {
  for (uint64_t seed = 1; seed < 50; ++seed) {
    auto d = make_drill(seed, "gpu-architecture", calc::testing::registry(), calc::testing::real_catalog());
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->topic, "gpu-architecture");
  }
  EXPECT_FALSE(make_drill(1, "behavioral", calc::testing::registry(), calc::testing::real_catalog()).has_value());
}

// Issue 33 item 4: a course's drill links all went to /drill?topic=. A template's own link
// gives a drill of that template, from any starting seed.
TEST(Drills, Finding33_ASeedForEachTemplateGivesThatTemplatesDrill) {
  for (const std::string& id : drill_template_ids()) {
    for (uint64_t base : {0ull, 1ull, 12345ull, 999999999ull}) {
      auto seed = seed_for_template(base, id);
      ASSERT_TRUE(seed.has_value()) << id;
      auto d = make_drill(*seed, "", calc::testing::registry(), calc::testing::real_catalog());
      ASSERT_TRUE(d.has_value()) << id;
      EXPECT_EQ(d->template_id, id);
      EXPECT_EQ(d->topic, drill_template_topic(id));
    }
  }
  EXPECT_FALSE(seed_for_template(1, "no-such-drill").has_value());
  EXPECT_EQ(drill_template_topic("no-such-drill"), "");
}

// Issue 33 item 2: `ridge drill --topic kernels` printed a seed that gave another drill when run
// alone (the template was drawn among the topic's templates, so the same seed meant a different
// one without the topic). The printed seed must reproduce the drill with no topic.
TEST(Drills, Finding33_PrintedSeedReproducesTheDrillWithoutItsTopic) {
  for (const std::string& topic : drill_topics()) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      auto d = make_drill(seed, topic, calc::testing::registry(), calc::testing::real_catalog());
      ASSERT_TRUE(d.has_value()) << topic << " " << seed;
      EXPECT_EQ(d->topic, topic);
      auto alone = make_drill(d->seed, "", calc::testing::registry(), calc::testing::real_catalog());
      ASSERT_TRUE(alone.has_value());
      EXPECT_EQ(alone->template_id, d->template_id) << topic << " seed " << seed << " printed " << d->seed;
      EXPECT_EQ(alone->prompt, d->prompt);
      EXPECT_EQ(alone->expected, d->expected);
    }
  }
}

// Issue 33: a prompt stated rounded inputs while the engine graded the exact ones ("$4 per hour"
// shown, $3.50 graded). Every plain-number input of every template must be readable back from
// the prompt at the value graded: as a number ("3.5", "8,192", "1e12") or as a percentage
// ("40%" for 0.4). The few inputs a prompt states in words are listed with the words.
TEST(Drills, Finding33_EveryNumericInputIsStatedAtThePrecisionGraded) {
  // Numbers as a prompt writes them: digits with thousands commas, a decimal part, an exponent.
  auto numbers_in = [](const std::string& text) {
    std::vector<std::pair<double, bool>> out;  // value, followed by '%'
    for (size_t i = 0; i < text.size();) {
      if (!std::isdigit(static_cast<unsigned char>(text[i])) || (i > 0 && (std::isalpha(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '-'))) {
        ++i;
        continue;
      }
      std::string digits;
      size_t j = i;
      while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.' || text[j] == 'e' ||
                                 (text[j] == ',' && j + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[j + 1]))))) {
        if (text[j] != ',') digits += text[j];
        ++j;
      }
      while (!digits.empty() && (digits.back() == '.' || digits.back() == 'e')) digits.pop_back();
      out.emplace_back(std::strtod(digits.c_str(), nullptr), j < text.size() && text[j] == '%');
      i = j;
    }
    return out;
  };
  // Inputs a prompt names in words, and inputs the asked result does not depend on (checked
  // here: the calculator needs them, the answer does not change with them).
  const std::set<std::pair<std::string, std::string>> in_words = {
      {"coalescing-sectors", "base"}, {"coalescing-efficiency", "base"}, {"coding-coalescing", "base"},  // "an aligned base"
      {"coalescing-efficiency", "element-bytes"}, {"coding-coalescing", "element-bytes"},             // "floats"
      {"bank-conflicts", "element-bytes"},                                                             // "a float tile"
      {"score-matrix", "heads"}, {"score-matrix", "batch"},                                            // "one head's"
      {"weights", "context"}, {"weights-open", "context"}, {"weights-open", "gpus"}, {"kv-per-token", "context"},
      {"kv-sequence", "gpus"}, {"train-gpu-hours", "gpus"}, {"it-power", "pue"}, {"sd-replicas", "tokens-per-second"},
  };
  std::map<std::string, int> checked;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    auto d = make_drill(seed, "", calc::testing::registry(), calc::testing::real_catalog());
    ASSERT_TRUE(d.has_value());
    const auto found = numbers_in(d->prompt);
    for (const auto& [name, raw] : d->inputs) {
      char* end = nullptr;
      const double v = std::strtod(raw.c_str(), &end);
      if (raw.empty() || *end != 0) continue;
      if (in_words.count({d->template_id, name})) {
        if (name == "base" || name == "element-bytes" || name == "heads" || name == "batch") continue;  // named in words
        calc::Given moved = d->inputs;
        moved[name] = name == "pue" ? "1.5" : std::to_string(2 * static_cast<long long>(v));
        auto other = calc::testing::registry().evaluate(d->calculator, moved, calc::testing::real_catalog());
        ASSERT_TRUE(other.ok()) << d->template_id << " " << name;
        const calc::NamedResult* moved_result = other->find(d->result_key);
        ASSERT_NE(moved_result, nullptr);
        EXPECT_EQ(moved_result->value, d->expected) << d->template_id << ": the result moves with the unstated " << name;
        continue;
      }
      const bool stated = std::any_of(found.begin(), found.end(), [&](const auto& f) {
        return std::fabs(f.first - v) <= 1e-9 * std::fabs(v) || (f.second && std::fabs(f.first - 100 * v) <= 1e-9 * std::fabs(100 * v));
      });
      EXPECT_TRUE(stated) << d->template_id << ": input " << name << " = " << raw << " is not stated in: " << d->prompt;
      ++checked[d->template_id];
    }
    EXPECT_EQ(d->prompt.find(" a 8"), std::string::npos) << d->prompt;
    EXPECT_EQ(d->prompt.find(" 1 elements"), std::string::npos) << d->prompt;
    EXPECT_EQ(d->prompt.find("default"), std::string::npos) << "a default the prompt does not state: " << d->prompt;
  }
  EXPECT_GE(checked.size(), 30u);  // every template with a plain-number input (the others take only ids)
}

}  // namespace
}  // namespace ridge::practice
