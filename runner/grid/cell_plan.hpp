#pragma once
// What a run does with a cell on this machine — run it, predict it, or skip it — decided once
// per cell (runner/grid/skip.hpp: plan_expansion, plan_cells) and read by the dry run, the sweep,
// its progress line and the executor.

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/cells/cell.hpp"
#include "core/text/words.hpp"

namespace crossover {

struct CellPlan {
  enum class Action { kRun, kPredict, kSkip };
  Action action = Action::kRun;
  std::string reason;  ///< why it is predicted or skipped; "" when it runs
};

inline constexpr auto words(CellPlan::Action) {
  return std::array{std::pair{CellPlan::Action::kRun, std::string_view("run")},
                    std::pair{CellPlan::Action::kPredict, std::string_view("predict")},
                    std::pair{CellPlan::Action::kSkip, std::string_view("skip")}};
}

/// A cell with its plan: what the executor is given.
struct PlannedCell {
  Cell cell;
  CellPlan plan;
};

}  // namespace crossover
