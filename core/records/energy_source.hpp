#pragma once
// What measured a cell's energy: RAPL's package counter on the CPU, NVML's energy counter on a
// GPU or its power integrated where the counter moves too coarsely, or nothing the machine
// exposes (its energy_note says why). results.jsonl writes its word; "" where a result predates
// energy or the cell did not run.

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "core/text/words.hpp"

namespace crossover {

enum class EnergySource {
  kNone,         ///< not recorded: the cell did not run, or its result predates energy
  kRapl,         ///< the CPU package's RAPL energy counter
  kNvml,         ///< NVML's energy counter
  kNvmlPower,    ///< NVML's power, sampled and integrated (the counter moved too coarsely)
  kUnavailable,  ///< nothing could be read (energy_note: why)
};

inline constexpr auto words(EnergySource) {
  return std::array{std::pair{EnergySource::kNone, std::string_view("")},
                    std::pair{EnergySource::kRapl, std::string_view("rapl")},
                    std::pair{EnergySource::kNvml, std::string_view("nvml")},
                    std::pair{EnergySource::kNvmlPower, std::string_view("nvml-power")},
                    std::pair{EnergySource::kUnavailable, std::string_view("unavailable")}};
}

CROSSOVER_JSON_AS_WORD(EnergySource)

}  // namespace crossover
