#include "core/costmodel/step_anatomy.hpp"

#include <cmath>
#include <stdexcept>

namespace crossover {

void StepAnatomy::add(Phase phase, double flops, double bytes, Math math) {
  for (OpGroup& g : groups) {
    if (g.phase == phase && g.flops == flops && g.bytes == bytes && g.math == math) {
      g.count += 1.0;
      return;
    }
  }
  groups.push_back({phase, 1.0, flops, bytes, math});
}

double StepAnatomy::ops(Phase phase) const {
  double n = 0.0;
  for (const OpGroup& g : groups)
    if (g.phase == phase) n += g.count;
  return n;
}

double StepAnatomy::ops() const {
  double n = 0.0;
  for (const OpGroup& g : groups) n += g.count;
  return n;
}

double StepAnatomy::flops() const {
  double n = 0.0;
  for (const OpGroup& g : groups) n += g.count * g.flops;
  return n;
}

double StepAnatomy::bytes() const {
  double n = 0.0;
  for (const OpGroup& g : groups) n += g.count * g.bytes;
  return n;
}

std::vector<std::vector<double>> groups_to_rows(const std::vector<OpGroup>& groups) {
  std::vector<std::vector<double>> rows;
  for (const OpGroup& g : groups)
    rows.push_back(
        {static_cast<double>(g.phase), g.count, g.flops, g.bytes, static_cast<double>(g.math)});
  return rows;
}

std::vector<OpGroup> groups_from_rows(const std::vector<std::vector<double>>& rows) {
  std::vector<OpGroup> groups;
  for (const auto& row : rows) {
    if (row.size() != 4 && row.size() != 5)
      throw std::runtime_error("a step operator group is " + std::to_string(row.size()) +
                               " numbers, not 5 ([phase, count, flops, bytes, math])");
    for (double v : row) {
      if (!std::isfinite(v) || v < 0.0)
        throw std::runtime_error(
            "a step operator group holds a number that is not finite and "
            "positive");
    }
    if (row[0] != std::floor(row[0]) || row[0] >= kPhaseCount)
      throw std::runtime_error("a step operator group's phase is not 0 to 4");
    if (row.size() == 5 && (row[4] != std::floor(row[4]) || row[4] >= kMathCount))
      throw std::runtime_error("a step operator group's math is not 0 to 3");
    const Math math = row.size() == 5 ? static_cast<Math>(static_cast<int>(row[4]))
                      : row[2] > 0.0  ? Math::kMatmul
                                      : Math::kNone;
    groups.push_back({static_cast<Phase>(static_cast<int>(row[0])), row[1], row[2], row[3], math});
  }
  return groups;
}

}  // namespace crossover
