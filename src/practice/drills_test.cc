#include "practice/drills.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

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

}  // namespace
}  // namespace ridge::practice
