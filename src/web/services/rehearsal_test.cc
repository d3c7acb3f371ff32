// Mock loops (issue 36): a plan for every company page and every track of the real bank, the
// rubric's parsing, the recommendation rule and the report.
#include "web/services/rehearsal.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "bank/loader.h"
#include "calc/test_catalog.h"
#include "calc/source_dir.h"
#include "account/clock.h"
#include "design/challenge.h"
#include "mail/mail.h"
#include "practice/misconceptions.h"
#include "web/services/review_service.h"
#include "web/services/test_fixture.h"
#include "web/services/work_service.h"

namespace ridge::web::services::rehearsal {
namespace {

const bank::Bank& real_bank() {
  static const bank::Bank b = bank::load_bank(std::string(ridge::source_dir()) + "/content", calc::testing::registry(),
                                              calc::testing::real_catalog(), {false})
                                  .bank;
  return b;
}

// Every company page and every track assembles a loop whose questions exist and do not repeat,
// and the plan survives its JSON.
TEST(Rehearsal, EveryCompanyAndTrackAssemblesALoop) {
  const bank::Bank& b = real_bank();
  ASSERT_GE(b.companies.size(), 40u);
  size_t all_reported = 0;
  for (const auto& [id, company] : b.companies) {
    auto plan = plan_company(b, id, {}, 7);
    ASSERT_TRUE(plan.ok()) << id << ": " << plan.error().message();
    // A page without reported rounds gets its first track's four-round loop, and says so.
    EXPECT_EQ(plan->rounds.size(), company.rounds.empty() ? 4u : std::min(company.rounds.size(), kMaxRounds)) << id;
    if (company.rounds.empty()) {
      EXPECT_NE(plan->note.find("reports no rounds"), std::string::npos) << id;
    }
    std::set<std::string> slugs;
    bool reported = true;
    for (const auto& r : plan->rounds) {
      EXPECT_NE(b.find(r.slug), nullptr) << id << " " << r.name;
      EXPECT_TRUE(slugs.insert(r.slug).second) << id << " repeats " << r.slug;
      EXPECT_GE(r.minutes, 10);
      EXPECT_LE(r.minutes, 120);
      if (r.from_track_weights) reported = false;
    }
    all_reported += reported;
    if (reported && std::getenv("RIDGE_REHEARSAL_LIST")) std::printf("every round reported: %s\n", id.c_str());
    auto back = plan_from_json(plan_json(*plan));
    ASSERT_TRUE(back.has_value()) << id;
    EXPECT_EQ(plan_json(*back), plan_json(*plan)) << id;
  }
  // At least one company's loop draws on reported content for every round (printed for the
  // closing note by RIDGE_REHEARSAL_LIST=1).
  EXPECT_GT(all_reported, 0u);
  for (const auto& t : b.tracks) {
    auto plan = plan_track(b, t.id, {}, 7);
    ASSERT_TRUE(plan.ok()) << t.id;
    EXPECT_EQ(plan->rounds.size(), 4u) << t.id;
    for (const auto& r : plan->rounds) EXPECT_TRUE(r.from_track_weights);
  }
  EXPECT_FALSE(plan_company(b, "no-such-company", {}, 1).ok());
  EXPECT_FALSE(plan_track(b, "no-such-track", {}, 1).ok());
}

// Anthropic's "Design document review" weighs "not described": drawn from the track's weights
// and said so; its design round is a design round; its 4-hour take-home is rehearsed in 120 min.
TEST(Rehearsal, ARoundWithNoReportedContentSaysSo) {
  const bank::Bank& b = real_bank();
  auto plan = plan_company(b, "anthropic", {}, 3);
  ASSERT_TRUE(plan.ok());
  bool saw_review = false;
  for (const auto& r : plan->rounds) {
    if (r.name == "Design document review") {
      saw_review = true;
      EXPECT_TRUE(r.from_track_weights);
      EXPECT_NE(r.drawn.find("reports no content"), std::string::npos) << r.drawn;
    }
    if (r.name == "System design: scale an LLM token endpoint") {
      EXPECT_EQ(r.kind, Kind::kDesign);
    }
    if (r.name == "Performance take-home") {
      EXPECT_EQ(r.kind, Kind::kCoding);
      EXPECT_EQ(r.minutes, 120);  // 4 hours = 240 min, clamped to 120
    }
  }
  EXPECT_TRUE(saw_review);
}

// Unseen questions are drawn before seen-and-right ones: with every linked question but one
// seen and right, a one-candidate pool is always that one.
TEST(Rehearsal, DrawFavoursUnseenOrWrong) {
  bank::Bank b;
  b.topics = {{"system-design", "Design", "", 0}};
  b.tracks = {{"t", "T", "", {{"system-design", 1}}}};
  for (const char* s : {"a", "b", "c"}) {
    bank::Question q;
    q.slug = s;
    q.title = s;
    q.topic = "system-design";
    q.tracks = {"t"};
    b.questions.push_back(q);
  }
  b.build_indexes();
  History h;
  h.seen = {"a", "b"};
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto plan = plan_track(b, "t", h, seed);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->rounds.front().slug, "c") << seed;  // the design round (first that fits) or coding fallback
  }
  // A question got wrong counts as fresh again.
  h.seen = {"a", "b", "c"};
  h.wrong = {"b"};
  auto plan = plan_track(b, "t", h, 5);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->rounds.front().slug, "b");
}

TEST(Rehearsal, HistoryReadsLapsesAndLastGrades) {
  store::Card c;
  c.slug = "x";
  c.lapses = 1;
  History h = history_of({c}, {{"y", 1, 1}, {"y", 3, 2}, {"z", 3, 1}, {"z", 2, 2}});
  EXPECT_EQ(h.seen, (std::set<std::string>{"x", "y", "z"}));
  EXPECT_EQ(h.wrong, (std::set<std::string>{"x", "z"}));  // y's last grade is Good
}

TEST(Rehearsal, ScoresParseStrictly) {
  EXPECT_EQ(parse_scores("4,3,2,1"), (Scores{4, 3, 2, 1}));
  for (const char* bad : {"", "4,3,2", "4,3,2,1,", "5,3,2,1", "0,3,2,1", "4;3;2;1", "4,3,2,11", "a,b,c,d"}) {
    EXPECT_FALSE(parse_scores(bad).has_value()) << bad;
  }
  EXPECT_EQ(format_scores({1, 2, 3, 4}), "1,2,3,4");
  for (size_t l = 0; l < 4; ++l) {
    for (int v = 1; v <= 4; ++v) EXPECT_FALSE(level_description(l, v).empty());
  }
  EXPECT_TRUE(level_description(0, 5).empty());
}

// The stated rule, at its edges (means worked by hand).
TEST(Rehearsal, RecommendationFollowsTheStatedRule) {
  EXPECT_EQ(recommend(3.25, 0, 3, 3), "hire");
  EXPECT_EQ(recommend(3.25, 0, 2, 3), "lean hire");  // not every round scored
  EXPECT_EQ(recommend(3.5, 1, 3, 3), "lean hire");   // a line at 1
  EXPECT_EQ(recommend(3.0, 2, 3, 3), "lean no");     // two lines at 1
  EXPECT_EQ(recommend(2.74, 0, 3, 3), "lean no");
  EXPECT_EQ(recommend(1.99, 0, 3, 3), "no");
  EXPECT_EQ(recommend(4.0, 0, 1, 3), "no");  // fewer than half scored
}

// Three rounds: scores 4,4,3,3 / 2,2,2,2 / 1,3,3,3. Sums 14, 8, 10: mean 32/48 = 0.667 of 4,
// i.e. 2.667; one line at 1; means per line (4+2+1)/3 = 2.33, (4+2+3)/3 = 3, (3+2+3)/3 = 2.67,
// (3+2+3)/3 = 2.67. Rule: 2.667 < 2.75 -> lean no. Rounds 2 and 3 (sums 8 and 10 < 12) go to review.
TEST(Rehearsal, ReportFromThreeRounds) {
  bank::Bank b;
  for (const char* s : {"q1", "q2", "q3"}) {
    bank::Question q;
    q.slug = s;
    q.title = std::string("T ") + s;
    q.concepts = {std::string("c-") + s};
    b.questions.push_back(q);
  }
  b.build_indexes();
  Plan plan{"track:t", "T", "", {}};
  for (const char* s : {"q1", "q2", "q3"}) plan.rounds.push_back({s, Kind::kQuestion, 10, "", s, "", false});
  store::Rehearsal r;
  r.started_at = 1000;
  r.expires_at = 1000 + kExpirySeconds;
  r.rounds = {{0, "a", 1300, "4,4,3,3", 1400}, {1, "", 2300, "2,2,2,2", 2400}, {2, "c", 2500, "1,3,3,3", 2600}};
  Report rep = build_report(b, plan, r, 3000);
  ASSERT_EQ(rep.rounds.size(), 3u);
  EXPECT_EQ(rep.rounds[0].seconds_used, 300);  // 1300 - 1000
  EXPECT_EQ(rep.rounds[1].seconds_used, 900);  // 2300 - 1400: over 10 min by 5
  EXPECT_EQ(rep.rounds[2].seconds_used, 100);
  EXPECT_NEAR(rep.mean, 32.0 / 12.0, 1e-9);
  EXPECT_EQ(rep.ones, 1);
  EXPECT_NEAR(rep.line_means[0], 7.0 / 3.0, 1e-9);
  EXPECT_NEAR(rep.line_means[1], 3.0, 1e-9);
  EXPECT_EQ(rep.recommendation, "lean no");
  EXPECT_EQ(rep.review_slugs, (std::vector<std::string>{"q2", "q3"}));
  EXPECT_EQ(rep.review_concepts, (std::vector<std::string>{"c-q2", "c-q3"}));
  const auto& missed = rep.rounds[1].missed;
  EXPECT_NE(std::find(missed.begin(), missed.end(), "no answer written"), missed.end());
  EXPECT_NE(std::find(missed.begin(), missed.end(), "over the 10-minute length by 5 min"), missed.end());
  EXPECT_FALSE(rep.expired);
  EXPECT_TRUE(build_report(b, plan, r, r.expires_at).expired);
  EXPECT_EQ(report_json(rep)["recommendation"], "lean no");
}

// The stand-in kinds (a numeric question without an exercise, a design question) say how they are scored.
TEST(Rehearsal, StandInKindsSaySo) {
  bank::Question q;
  q.slug = "x";
  q.title = "X";
  EXPECT_FALSE(numeric_round(q).note.empty());
  EXPECT_FALSE(design_round(q).note.empty());
  EXPECT_TRUE(question_round(q).note.empty());
  q.lab = "batcher";
  EXPECT_EQ(coding_round(q).test_command, "ridge lab test batcher --impl your_file.cc");
  EXPECT_FALSE(engine_score({"n", Kind::kNumeric, 30, "", "x", "", false}, "42").has_value());
}

// Design rounds (issue 35): a design round's answer, as `field = value` lines among notes, is
// graded by the design grader, and the objectives passed give the "numbers right" score.
TEST(Rehearsal, DesignRoundsAreScoredByTheDesignGrader) {
  auto loaded = design::load_challenges(std::string(ridge::source_dir()) + "/content/challenges");
  ASSERT_TRUE(loaded.errors.empty());
  account::FakeClock clock(1'800'000'000);
  DesignService service(loaded.challenges, calc::testing::registry(), calc::testing::real_catalog(), nullptr, clock, "");
  // The round's slug is the challenge's id: chat-70b-interactive (Llama 3.3 70B, 12 req/s,
  // TTFT p99 <= 1.5 s, TPOT p99 <= 50 ms, <= $60,000 a month).
  const PlannedRound round{"System design", Kind::kDesign, 45, "", "chat-70b-interactive", "", false};
  const design::Challenge* c = design_challenge_for(round, service.challenges());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->id, "chat-70b-interactive");
  // The same round always maps to the same challenge, whatever its slug.
  const PlannedRound other{"System design", Kind::kDesign, 45, "", "some-system-design-question", "", false};
  EXPECT_EQ(design_challenge_for(other, service.challenges()), design_challenge_for(other, service.challenges()));

  // The reference (4 replicas of TP 4, fp8) passes all three objectives: 4.
  const std::string reference =
      "I would shard over four GPUs and add replicas for the rate.\n"
      "gpu = h100-sxm\ntp = 4\nreplicas: 4\nmax_batch = 32\nweights_dtype = \"fp8\"\nkv_dtype = fp8\n";
  auto d = design_from_answer(*c, reference);
  EXPECT_EQ(d.size(), 6u);
  EXPECT_EQ(d["weights_dtype"], "fp8");  // quotes trimmed
  EXPECT_EQ(d["replicas"], "4");         // `field: value` read too
  EXPECT_EQ(design_engine_score(round, reference, &service), 4);
  EXPECT_EQ(engine_score(round, reference, nullptr, &service), 4);
  // TP 1 with bf16 weights: 70e9 x 2 bytes = 140 GB on one 80 GB H100 does not fit, the design
  // cannot run: 1.
  EXPECT_EQ(design_engine_score(round, "gpu = h100-sxm\ntp = 1\nreplicas = 16\nmax_batch = 8\nweights_dtype = bf16\nkv_dtype = bf16",
                                &service),
            1);
  // A value the challenge does not allow (TP 3): 1.
  EXPECT_EQ(design_engine_score(round, "gpu = h100-sxm\ntp = 3\nreplicas = 4\nmax_batch = 32\nweights_dtype = fp8\nkv_dtype = fp8",
                                &service),
            1);
  // Notes only, or a field left out: not a design, self-scored.
  EXPECT_FALSE(design_engine_score(round, "Replicas carry a rate; TP carries a model.", &service).has_value());
  EXPECT_FALSE(design_engine_score(round, "gpu = h100-sxm\ntp = 4\nreplicas = 4\nmax_batch = 32\nweights_dtype = fp8", &service)
                   .has_value());
  // Without the design service the round stays self-scored.
  EXPECT_FALSE(design_engine_score(round, reference).has_value());

  // The rule on made-up verdicts: 3 objectives, 3 / 2 / 1 / 0 passed -> 4 / 3 / 2 / 1.
  design::Verdict v;
  v.objectives.resize(3);
  for (auto& o : v.objectives) o.pass = true;
  EXPECT_EQ(design_score(v), 4);
  v.objectives[0].pass = false;
  EXPECT_EQ(design_score(v), 3);  // 2 of 3 is at least half
  v.objectives[1].pass = false;
  EXPECT_EQ(design_score(v), 2);
  v.objectives[2].pass = false;
  EXPECT_EQ(design_score(v), 1);
  v.objectives[2].pass = true;
  v.runs = false;
  EXPECT_EQ(design_score(v), 1);  // a design that cannot run scores 1 whatever it reports
}

// The numbers-right line from the steps right (kNumericScoreRule), by hand: all right 4, at
// least half 3, at least one 2, none 1.
TEST(Rehearsal, NumericScoreRule) {
  EXPECT_EQ(numeric_score(3, 3), 4);
  EXPECT_EQ(numeric_score(2, 3), 3);
  EXPECT_EQ(numeric_score(1, 3), 2);
  EXPECT_EQ(numeric_score(0, 3), 1);
  EXPECT_EQ(numeric_score(1, 2), 3);  // half
  EXPECT_EQ(numeric_score(1, 4), 2);
  EXPECT_EQ(numeric_score(0, 0), 1);
}

// With Work it, a numeric round draws a workable question and gets the exercise's seed; the
// seed survives the plan's JSON. Without, no seed (self-scored, as before).
TEST(Rehearsal, NumericRoundsDrawWorkableQuestionsWithASeed) {
  const bank::Bank& b = real_bank();
  // A stand-in for WorkService::workable: questions with calc blocks whose slug has an even
  // length (about half of them), so a draw that ignored it would be caught.
  Workable workable = [&](const std::string& slug) {
    const bank::Question* q = b.find(slug);
    return q != nullptr && !q->calcs.empty() && slug.size() % 2 == 0;
  };
  size_t numeric = 0;
  for (const auto& t : b.tracks) {
    auto plan = plan_track(b, t.id, {}, 11, workable);
    ASSERT_TRUE(plan.ok()) << t.id;
    auto without = plan_track(b, t.id, {}, 11);
    ASSERT_TRUE(without.ok());
    for (const auto& r : without->rounds) EXPECT_EQ(r.work_seed, 0u);
    for (const auto& r : plan->rounds) {
      if (r.kind != Kind::kNumeric) continue;
      ++numeric;
      EXPECT_TRUE(workable(r.slug)) << t.id << ": " << r.slug;
      EXPECT_GT(r.work_seed, 0u);
      EXPECT_LT(r.work_seed, uint64_t{1} << 31);
    }
    auto back = plan_from_json(plan_json(*plan));
    ASSERT_TRUE(back.has_value());
    for (size_t i = 0; i < plan->rounds.size(); ++i) EXPECT_EQ(back->rounds[i].work_seed, plan->rounds[i].work_seed);
  }
  EXPECT_GT(numeric, 0u);
  // A plan written before Work it (no work_seed) still reads, self-scored.
  auto old = plan_from_json(nlohmann::json::parse(
      R"({"source":"track:x","title":"X","rounds":[{"name":"n","kind":"numeric","minutes":30,"length_note":"",)"
      R"("slug":"s","drawn":"","from_track_weights":true}]})"));
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->rounds[0].work_seed, 0u);
}

// A numeric round graded by the Work it engine (issue 36 on issue 34): a right and a wrong answer.
class NumericRound : public testing::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    bank::Question q = testing::work_chain_question("napkin-math");  // fit, then move one sequence's KV
    bank_.questions.push_back(q);
    bank_.build_indexes();
    reviews_ = std::make_unique<ReviewService>(bank_, *store_, clock_);
    work_ = std::make_unique<WorkService>(bank_, calc::testing::registry(), calc::testing::real_catalog(), *store_, clock_, random_,
                                          *reviews_, signer_);
  }
  static std::string exact(double v) { return testing::exact(v); }
  mail::LinkSigner signer_{"rehearsal test secret"};
  std::unique_ptr<ReviewService> reviews_;
  std::unique_ptr<WorkService> work_;
};

TEST_F(NumericRound, TheEngineScoresARightAndAWrongAnswer) {
  const PlannedRound round{"Napkin math", Kind::kNumeric, 30, "", "work-chain", "", true, 12345};
  auto ex = work_->exercise_for("work-chain", 12345);
  ASSERT_TRUE(ex.ok());
  ASSERT_EQ(ex->steps.size(), 2u);
  ASSERT_EQ(ex->steps[0].ref, "fit.max_sequences");
  ASSERT_EQ(ex->steps[1].ref, "move.seconds");
  const std::string fit = exact(ex->steps[0].value), move = exact(ex->steps[1].value);
  // Right: both steps, among notes, in any order: 2 of 2, score 4.
  const std::string right = "my notes: KV per token first\nmove.seconds = " + move + "\nfit.max_sequences = " + fit + "\n";
  EXPECT_EQ(numeric_engine_score(round, right, work_.get()), 4);
  EXPECT_EQ(engine_score(round, right, work_.get()), 4);
  // Wrong: the sequences as a candidate who counts the 64 query heads as KV heads would give
  // (8 times the KV per token: fewer sequences), and no line for the move: 0 of 2, score 1,
  // with the mistake named.
  const practice::Misconception* kv = practice::find_misconception("kv-heads-as-attention-heads");
  ASSERT_NE(kv, nullptr);
  auto mistaken = kv->wrong(practice::MistakeContext{*ex, 0, calc::testing::registry(), calc::testing::real_catalog()});
  ASSERT_TRUE(mistaken.has_value());
  ASSERT_LT(*mistaken, ex->steps[0].value * 0.95);
  const std::string wrong = "fit.max_sequences = " + exact(*mistaken) + "\n";
  EXPECT_EQ(numeric_engine_score(round, wrong, work_.get()), 1);
  NumericGrade g = grade_numeric(*ex, wrong, *work_);
  EXPECT_EQ(g.right, 0u);
  EXPECT_FALSE(g.steps[0].correct);
  EXPECT_EQ(g.steps[0].misconception, kv->title);
  EXPECT_TRUE(g.steps[1].given.empty());
  // One of two right: half, score 3. The first line naming a step counts.
  EXPECT_EQ(numeric_engine_score(round, "fit.max_sequences = " + fit + "\nmove.seconds = 1e-30\nmove.seconds = " + move, work_.get()), 3);
  // Without the service, or without a seed, or another kind: no engine score (self-scored).
  EXPECT_FALSE(numeric_engine_score(round, right).has_value());
  PlannedRound unseeded = round;
  unseeded.work_seed = 0;
  EXPECT_FALSE(numeric_engine_score(unseeded, right, work_.get()).has_value());
  PlannedRound talk = round;
  talk.kind = Kind::kQuestion;
  EXPECT_FALSE(engine_score(talk, right, work_.get()).has_value());
  // The round's page names the steps and states the rule.
  RoundContent c = numeric_round(*bank_.find("work-chain"), *ex);
  EXPECT_FALSE(c.self_scored);
  ASSERT_EQ(c.steps.size(), 2u);
  EXPECT_EQ(c.steps[0].first, "fit.max_sequences");
  EXPECT_NE(c.note.find(kNumericScoreRule), std::string::npos);
}

}  // namespace
}  // namespace ridge::web::services::rehearsal
