#pragma once
// Two values of one grid key set against each other, as "AXIS=BASELINE:CONTENDER" writes them:
// `--compare` (reports/analysis, which adds the measure) and a search's `compare`
// (runner/grid/grid_search) read it here, in the grid's words.

#include <string>

namespace crossover {

struct KeyContrast {
  std::string axis;       ///< a configuration key of results.jsonl
  std::string baseline;   ///< its value on one side, as the grid writes it
  std::string contender;  ///< and on the other
};

/// Parses "AXIS=BASELINE:CONTENDER" ("device=cpu:cuda:1" splits at the first colon after '=').
/// An axis that is no configuration key is refused with the nearest key; a value the grid would
/// refuse is refused in the grid's words ("gpu" -> "cuda"); "cuda:0" becomes "cuda", the device
/// it names. Throws std::invalid_argument: "--compare \"TEXT\": what is wrong".
KeyContrast parse_key_contrast(const std::string& text);

}  // namespace crossover
