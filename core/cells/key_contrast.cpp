#include "core/cells/key_contrast.hpp"

#include <stdexcept>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/cells/keys.hpp"
#include "core/text/text.hpp"

namespace crossover {

KeyContrast parse_key_contrast(const std::string& text) {
  const auto equals = text.find('=');
  const auto colon = text.find(':', equals == std::string::npos ? 0 : equals);
  if (equals == std::string::npos || colon == std::string::npos || equals == 0 ||
      colon == equals + 1 || colon + 1 == text.size()) {
    throw std::invalid_argument("--compare \"" + text +
                                "\": expected AXIS=BASELINE:CONTENDER, e.g. device=cpu:cuda");
  }
  KeyContrast contrast{text.substr(0, equals), text.substr(equals + 1, colon - equals - 1),
                       text.substr(colon + 1)};
  const nlohmann::ordered_json known = cell_config_json(Cell{});
  if (!known.contains(contrast.axis)) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : known.items()) keys.push_back(key);
    std::string message = "--compare: unknown axis \"" + contrast.axis + "\"";
    const std::string guess = did_you_mean(contrast.axis, keys);
    if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
    throw std::invalid_argument(message);
  }
  // A value the grid would refuse is refused here too, in the grid's words ("gpu" -> "cuda").
  const GridKey* key = find_grid_key(contrast.axis);
  const bool listed = key != nullptr && key->kind == KeyKind::kText && !key->workload_choices &&
                      !(key->choices.empty() && key->pattern.empty());
  for (std::string* value : {&contrast.baseline, &contrast.contender}) {
    if (const Found problem = listed ? value_problem(*key, *value) : std::nullopt)
      throw std::invalid_argument("--compare \"" + text + "\": " + problem->text);
    // "cuda:0" is the device "cuda" names: one column, one side.
    if (parse_device(*value) == Device::cuda(0)) *value = Device::cuda().text();
  }
  return contrast;
}

}  // namespace crossover
