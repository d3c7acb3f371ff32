// Pieces the page families share (web/pages/*.cc): the question item of every list, the
// list filter bar, a calculator form's field, and small wording helpers. Internal to the
// pages; pages.h is the public header. Pure functions, safe on any thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calc/derivation.h"
#include "web/pages.h"
#include "web/template.h"

namespace ridge::web::parts {

inline constexpr bank::Difficulty kDifficulties[] = {bank::Difficulty::kEasy, bank::Difficulty::kMedium, bank::Difficulty::kHard,
                                                     bank::Difficulty::kExpert};

// A count as a word when it is small ("thirteen"), for prose that states a fact about the bank.
std::string spelled(size_t n);
std::string capitalized(std::string s);

// One question as a link and as an item of a list (question_link.mustache, question_list.mustache).
struct QuestionItemView {
  std::string slug, title, difficulty, summary;
  std::string tracks, companies;  // ids, space-separated: the list filter's data attributes
  bool free = false;
};
QuestionItemView question_item_view(const bank::Question& q);
View to_view(const QuestionItemView& v);

// The filter bar above a list of questions (list_filters.mustache; app.js applies it, and
// without script every question stays listed). For a signed-in visitor app.js shows the state
// filter and marks each question with its state (new, due, seen, mastered) and bookmark.
std::string list_filters(const Site& site);
// The questions at `indexes` as question_list.mustache's view.
View question_list_view(const Site& site, const std::vector<size_t>& indexes);

// The topic's name, or `id` when the bank has no such topic.
std::string topic_name(const Site& site, const std::string& id);
// The calculator's derivation from `given`, or nullopt when the engine refuses the inputs.
std::optional<calc::Derivation> evaluate(const Site& site, const std::string& name, const calc::Given& given);
// A result of `d` with its unit ("" when there is no such key).
std::string display(const calc::Derivation& d, const std::string& key);

// field.mustache: one parameter of a calculator's form, a select for a catalog or a choice and
// a text input otherwise, with its hint (unit and accepted range) and its error.
struct FieldView {
  std::string id, name, value, example, hint, error;
  bool optional = false;  // neither required nor defaulted
  bool select = false;
  std::vector<std::pair<std::string, std::string>> options;  // value, label (select only)
};
FieldView field_view(const Site& site, const calc::ParamSpec& spec, const calc::Given& values, const std::string& error,
                     const std::string& form_id);
View to_view(const FieldView& v);

}  // namespace ridge::web::parts
