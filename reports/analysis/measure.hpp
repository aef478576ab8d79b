#pragma once
// What the epochs of an analysis are compared in: their time, or (`report --measure`) the energy
// or the money an epoch costs. Its words are declared once, here.

#include <array>
#include <string_view>
#include <utility>

#include "core/text/words.hpp"

namespace crossover {

/// What pairs, tables and crossovers compare.
enum class Measure {
  kTime,    ///< seconds per epoch (what every run measures)
  kEnergy,  ///< joules per epoch: the epoch's time times the cell's mean power
  kCost,    ///< money per epoch: the epoch's time times its device's price
};
inline constexpr auto words(Measure) {
  return std::array{std::pair{Measure::kTime, std::string_view("time")},
                    std::pair{Measure::kEnergy, std::string_view("energy")},
                    std::pair{Measure::kCost, std::string_view("cost")}};
}
CROSSOVER_JSON_AS_WORD(Measure)

}  // namespace crossover
