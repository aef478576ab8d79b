#include "core/cells/keys.hpp"

#include <algorithm>
#include <regex>
#include <utility>

#include "core/text/text.hpp"

namespace crossover {

const std::vector<GridKey>& grid_keys() {
  static const std::vector<GridKey> keys = declare_grid_keys();
  return keys;
}

Found cell_problem(const Cell& cell) {
  for (const auto& key : grid_keys()) {
    if (!key.problem) continue;
    if (Found problem = key.problem(cell)) return problem;
  }
  return std::nullopt;
}

Found key_skip_reason(const Cell& cell) {
  for (const auto& key : grid_keys()) {
    if (!key.skip) continue;
    if (Found reason = key.skip(cell)) return reason;
  }
  return std::nullopt;
}

void normalise_cell(Cell& cell) {
  for (const auto& key : grid_keys()) {
    if (key.normalise) key.normalise(cell);
  }
}

std::vector<std::string> numeric_axis_names() {
  std::vector<std::string> names;
  for (const auto& key : grid_keys()) {
    if (key.numeric_axis) names.push_back(key.name);
  }
  return names;
}

std::vector<std::string> knob_names() {
  std::vector<std::string> names;
  for (const auto& key : grid_keys()) {
    if (key.knob) names.push_back(key.name);
  }
  return names;
}

std::vector<std::string> mode_key_names() {
  std::vector<std::string> names;
  for (const auto& key : grid_keys()) {
    if (key.mode) names.push_back(key.name);
  }
  return names;
}

std::string suggest_key(const std::string& name) {
  for (const auto& key : grid_keys()) {
    if (!key.settable) continue;
    for (const auto& other : key.also_called) {
      if (other == name) return key.name;
    }
  }
  return did_you_mean(name, settable_key_names());
}

const GridKey* find_grid_key(const std::string& name) {
  for (const auto& key : grid_keys()) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

bool takes_value(const GridKey& spec, const std::string& text) {
  if (!spec.pattern.empty() && std::regex_match(text, std::regex(spec.pattern))) return true;
  return std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end();
}

Found value_problem(const GridKey& spec, const std::string& text) {
  if (takes_value(spec, text)) return std::nullopt;
  std::string guess = did_you_mean(text, spec.choices);
  for (const auto& [word, meant] : spec.value_synonyms) {
    if (word == text) guess = meant;
  }
  return Problem("unknown " + spec.name + " \"" + text + "\"" +
                 (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") + "; expected " +
                 spec.expected);
}

std::vector<std::string> settable_key_names() {
  std::vector<std::string> names;
  for (const auto& key : grid_keys()) {
    if (key.settable) names.push_back(key.name);
  }
  return names;
}

KeyRole key_role(const std::string& name) {
  const GridKey* key = find_grid_key(name);
  return key != nullptr ? key->role : KeyRole::kIdentity;
}

}  // namespace crossover
