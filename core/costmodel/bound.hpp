#pragma once
// What bounds a step: the largest term of its time as the cost model predicts it (cost_model.hpp).
// A predicted result keeps it, a profile's band is fitted per bound class (machine_profile.hpp),
// and the reports group cells by it.

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "core/text/words.hpp"

namespace crossover {

/// What a step's time is mostly spent on, by the cost model.
enum class Bound {
  kNone,      ///< not predicted (a cell without anatomy or profile)
  kDispatch,  ///< the fixed cost of launching its operators
  kCompute,   ///< matrix products and convolutions at the device's throughput for their size
  kMemory,    ///< reading and writing tensors at the device's bandwidth
  kTransfer,  ///< copying batches from the host to the device
  kLoader,    ///< waiting for the next batch
};

inline constexpr auto words(Bound) {
  return std::array{std::pair{Bound::kNone, std::string_view("none")},
                    std::pair{Bound::kDispatch, std::string_view("dispatch")},
                    std::pair{Bound::kCompute, std::string_view("compute")},
                    std::pair{Bound::kMemory, std::string_view("memory")},
                    std::pair{Bound::kTransfer, std::string_view("transfer")},
                    std::pair{Bound::kLoader, std::string_view("loader")}};
}

CROSSOVER_JSON_AS_WORD(Bound)

}  // namespace crossover
