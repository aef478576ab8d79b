#include "core/costmodel/step_anatomy.hpp"

#include <cmath>
#include <stdexcept>

namespace crossover {

void StepAnatomy::add(Phase phase, double flops, double bytes) {
  for (OpGroup& g : groups) {
    if (g.phase == phase && g.flops == flops && g.bytes == bytes) {
      g.count += 1.0;
      return;
    }
  }
  groups.push_back({phase, 1.0, flops, bytes});
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
    rows.push_back({static_cast<double>(g.phase), g.count, g.flops, g.bytes});
  return rows;
}

std::vector<OpGroup> groups_from_rows(const std::vector<std::vector<double>>& rows) {
  std::vector<OpGroup> groups;
  for (const auto& row : rows) {
    if (row.size() != 4)
      throw std::runtime_error("a step operator group is " + std::to_string(row.size()) +
                               " numbers, not 4 ([phase, count, flops, bytes])");
    for (double v : row) {
      if (!std::isfinite(v) || v < 0.0)
        throw std::runtime_error(
            "a step operator group holds a number that is not finite and "
            "positive");
    }
    if (row[0] != std::floor(row[0]) || row[0] >= kPhaseCount)
      throw std::runtime_error("a step operator group's phase is not 0 to 4");
    groups.push_back({static_cast<Phase>(static_cast<int>(row[0])), row[1], row[2], row[3]});
  }
  return groups;
}

}  // namespace crossover
