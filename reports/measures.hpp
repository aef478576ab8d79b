#pragma once
// The crossover in joules and in money as well as in seconds: results as the energy or the cost
// of an epoch sees them, so that the one analysis (pairs, bootstrap, crossovers) states where a
// device wins on each measure.

#include <string>
#include <vector>

#include "core/results.hpp"

namespace crossover {

/// The measures besides time that a crossover is stated in: "energy" (joules per epoch) and
/// "cost" (money per epoch).
inline const std::vector<std::string>& other_measures() {
  static const std::vector<std::string> measures = {"energy", "cost"};
  return measures;
}

/// Whether an ok result carries `measure` ("time" always; "energy" when its energy was read,
/// "cost" when its device has a price).
bool has_measure(const Result& result, const std::string& measure);

/// `results` as `measure` sees them: each ok cell's epoch median and samples scaled to joules
/// (its mean power over the timed epochs times each epoch's time) or to money (its price per
/// second times it); a cell without the measure becomes `skipped`, so it pairs with nothing.
std::vector<Result> in_measure(const std::vector<Result>& results, const std::string& measure);

/// "on energy (joules per epoch)", "on cost (money per epoch)": how statements in a measure start.
std::string measure_words(const std::string& measure);

}  // namespace crossover
