#pragma once
// The builder every grid key is declared with (core/cells/key_declarations.cpp,
// core/cells/model_keys.cpp): a key's name, its field in Cell and what the key table says of it,
// one call each.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/cells/keys.hpp"

namespace crossover::key_builder {

using Json = nlohmann::ordered_json;

// Builds one declaration: the key, its field in Cell, and what the key table says of it.
class Declare {
 public:
  template <typename T>
  Declare(std::string name, KeyKind kind, T Cell::*field) {
    key_.name = std::move(name);
    key_.kind = kind;
    key_.get = [field](const Cell& cell) { return Json(cell.*field); };
    key_.set = [field](Cell& cell, const nlohmann::json& value) {
      cell.*field = json_as<T>(value);
    };
  }
  /// A key that takes one of an enum's words (core/cells/modes.hpp): its choices.
  template <typename E, typename = std::enable_if_t<kHasWords<E>>>
  Declare(std::string name, E Cell::*field) : Declare(std::move(name), KeyKind::kText, field) {
    key_.choices = word_list<E>();
  }
  /// A size: a positive integer or "full" (kFull).
  Declare(std::string name, std::int64_t Cell::*field) {
    key_.name = std::move(name);
    key_.kind = KeyKind::kSizeOrFull;
    key_.get = [field](const Cell& cell) {
      return cell.*field == kFull ? Json(kFullWord) : Json(cell.*field);
    };
    key_.set = [field](Cell& cell, const nlohmann::json& value) {
      cell.*field = value.is_string() ? kFull : json_as<std::int64_t>(value);
    };
  }
  /// A key without a field of its own (`repeats`).
  Declare(std::string name, KeyKind kind, std::function<void(Cell&, const nlohmann::json&)> set) {
    key_.name = std::move(name);
    key_.kind = kind;
    key_.set = std::move(set);
  }

  Declare& role(KeyRole role) {
    key_.role = role;
    return *this;
  }
  Declare& range(double min, double max) {
    key_.min = min;
    key_.max = max;
    return *this;
  }
  Declare& choices(std::vector<std::string> choices) {
    key_.choices = std::move(choices);
    return *this;
  }
  Declare& expects(std::string expected) {
    key_.expected = std::move(expected);
    return *this;
  }
  Declare& means(std::string description) {
    key_.description = std::move(description);
    return *this;
  }
  Declare& defaults_to(std::string text) {
    key_.default_text = std::move(text);
    return *this;
  }
  Declare& on_cuda(nlohmann::json value) {
    key_.cuda_default = std::move(value);
    return *this;
  }
  Declare& on_cpu(nlohmann::json value) {
    key_.cpu_value = std::move(value);
    return *this;
  }
  Declare& pattern(std::string regex) {
    key_.pattern = std::move(regex);
    return *this;
  }
  Declare& also_called(std::vector<std::string> names) {
    key_.also_called = std::move(names);
    return *this;
  }
  Declare& value_synonyms(std::vector<std::pair<std::string, std::string>> words) {
    key_.value_synonyms = std::move(words);
    return *this;
  }
  Declare& values_from_workload() {
    key_.workload_choices = true;
    return *this;
  }
  Declare& numeric_axis() {
    key_.numeric_axis = true;
    return *this;
  }
  Declare& knob() {
    key_.knob = true;
    return *this;
  }
  Declare& mode() {
    key_.mode = true;
    return *this;
  }
  Declare& fixed_column() {
    key_.fixed_column = true;
    return *this;
  }
  Declare& normalise(std::function<void(Cell&)> rule) {
    key_.normalise = std::move(rule);
    return *this;
  }
  Declare& problem(std::function<Found(const Cell&)> rule) {
    key_.problem = std::move(rule);
    return *this;
  }
  Declare& skip_when(std::function<Found(const Cell&)> rule) {
    key_.skip = std::move(rule);
    return *this;
  }
  Declare& cuda_only() {
    key_.cuda_only = true;
    return *this;
  }
  Declare& host_only() {
    key_.host_only = true;
    return *this;
  }
  Declare& follows_cuda_only() {
    key_.follows_cuda_only = true;
    return *this;
  }
  Declare& not_settable() {
    key_.settable = false;
    return *this;
  }
  Declare& added_later() {
    key_.added_later = true;
    return *this;
  }
  operator GridKey() const { return key_; }  // NOLINT: a builder turns into its key

 private:
  GridKey key_;
};

constexpr auto kInteger = KeyKind::kInteger;
constexpr auto kNumber = KeyKind::kNumber;
constexpr auto kBoolean = KeyKind::kBoolean;
constexpr auto kText = KeyKind::kText;

using Keys = std::vector<GridKey>;

/// The model keys (the generic `mlp` workload's features, classes, width and depth).
void declare_model_keys(Keys& keys);

}  // namespace crossover::key_builder
