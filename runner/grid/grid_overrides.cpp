#include "runner/grid/grid_overrides.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// A value as the grid would hold it: JSON where it parses (a number, true, a list), else text.
Json value_of(const std::string& text) {
  Json value = Json::parse(text, nullptr, false);
  if (value.is_discarded() || value.is_object() || value.is_null()) return text;
  return value;
}

// "epochs=3" as its key and values ("a,b" is two values; a list "[1,28,28]" is one).
std::pair<std::string, std::vector<Json>> parse_set(const std::string& set) {
  const auto equals = set.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == set.size())
    throw std::invalid_argument("--set " + set +
                                ": expected KEY=VALUE or KEY=VALUE,VALUE,... (e.g. --set epochs=3 "
                                "or --set batch_size=64,256)");
  // A grid is JSON, which holds UTF-8 text only: a stray byte is named, never an abort.
  if (!valid_utf8(set))
    throw std::invalid_argument("--set " + terminal_text(set) +
                                ": not UTF-8 text (\"?\" marks the bytes that are not); give "
                                "the key and its values as UTF-8");
  const std::string key = set.substr(0, equals), given = set.substr(equals + 1);
  const GridKey* spec = find_grid_key(key);
  if (spec == nullptr || is_key(key, Key::kWorkload)) {
    std::vector<std::string> names = settable_key_names();
    const std::string guess = did_you_mean(key, names);
    throw std::invalid_argument(
        "--set " + set + ": \"" + key + "\" is not a key --set can change" +
        (guess.empty() ? "" : " (did you mean --set " + guess + "=" + given + "?)") +
        "; crossover keys lists them");
  }
  std::vector<Json> values;
  if (given.front() == '[') {
    values.push_back(value_of(given));
  } else {
    for (std::size_t start = 0; start <= given.size();) {
      const auto comma = given.find(',', start);
      std::string one = given.substr(start, comma == std::string::npos ? comma : comma - start);
      // "cpu, cuda" is two values, as a list is written: the spaces around each are not its.
      one.erase(0, one.find_first_not_of(' '));
      one.erase(one.find_last_not_of(' ') + 1);
      if (one.empty()) throw std::invalid_argument("--set " + set + ": an empty value");
      values.push_back(value_of(one));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return {key, values};
}

}  // namespace

std::string apply_sets(const std::string& text, const std::vector<std::string>& sets) {
  if (sets.empty()) return text;
  std::vector<std::pair<std::string, std::vector<Json>>> parsed;
  for (const std::string& set : sets) parsed.push_back(parse_set(set));
  Json root = Json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || !root.contains("experiments") ||
      !root["experiments"].is_array())
    return text;
  for (const auto& [key, values] : parsed) {
    for (Json& experiment : root["experiments"]) {
      if (!experiment.is_object()) continue;
      for (const char* part : {"settings", "grid"}) {
        if (experiment.contains(part) && experiment[part].is_object()) experiment[part].erase(key);
      }
      if (values.size() == 1) {
        experiment["settings"][key] = values.front();
      } else {
        experiment["grid"][key] = values;
      }
    }
  }
  return root.dump(2) + "\n";
}

}  // namespace crossover
