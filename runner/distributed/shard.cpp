#include "runner/distributed/shard.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>

#include "workloads/data/catalog.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {
namespace {

// `text` as a whole number from 0 to INT_MAX, or why not, naming it as `what` ("SLURM_ARRAY_TASK_ID
// \"x\""): empty, not digits, negative, or more than an int holds.
int whole_number(const std::string& what, const std::string& text) {
  if (text.empty()) throw std::invalid_argument(what + " is empty; expected a whole number");
  if (text.front() == '-' && text.size() > 1 &&
      std::all_of(text.begin() + 1, text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw std::invalid_argument(what + " is negative; expected a whole number from 0");
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw std::invalid_argument(what + " is not a whole number");
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value > INT_MAX)
    throw std::invalid_argument(what + " has more digits than a part's number can (at most " +
                                std::to_string(INT_MAX) + ")");
  return static_cast<int>(value);
}

// A variable of the environment as a whole number; false when it is not set.
bool variable(const VariableReader& environment, const char* name, int& out) {
  const char* value = environment(name);
  if (value == nullptr) return false;
  out = whole_number(std::string(name) + " \"" + value + "\"", value);
  return true;
}

// A Slurm job array's task as part K of N: its position among the tasks MIN, MIN + STEP, ...
Shard slurm_shard(const VariableReader& environment, int id) {
  int low = 0, high = 0, step = 1, count = 0;
  const bool has_low = variable(environment, "SLURM_ARRAY_TASK_MIN", low);
  const bool has_high = variable(environment, "SLURM_ARRAY_TASK_MAX", high);
  const bool has_count = variable(environment, "SLURM_ARRAY_TASK_COUNT", count);
  variable(environment, "SLURM_ARRAY_TASK_STEP", step);
  if (step < 1) throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_STEP is 0");
  const std::string range = "SLURM_ARRAY_TASK_MIN " + std::to_string(low) +
                            " to SLURM_ARRAY_TASK_MAX " + std::to_string(high) + " in steps of " +
                            std::to_string(step);
  if (has_low && has_high) {
    if (high < low || (high - low) % step != 0)
      throw std::invalid_argument("--shard auto: " + range +
                                  " is not one range of tasks; submit the array as "
                                  "--array=0-N (or FIRST-LAST:STEP), or give --shard K/N");
    const int tasks = (high - low) / step + 1;
    if (has_count && count != tasks)
      throw std::invalid_argument(
          "--shard auto: SLURM_ARRAY_TASK_COUNT is " + std::to_string(count) + ", but " + range +
          " make " + std::to_string(tasks) +
          " tasks (an array of an index list, such as --array=1,3,7-9, cannot be numbered); "
          "submit --array=0-" +
          std::to_string(count - 1) + ", or give --shard K/N");
    count = tasks;
  } else if (!has_count) {
    throw std::invalid_argument(
        "--shard auto: SLURM_ARRAY_TASK_ID is set, but neither SLURM_ARRAY_TASK_MIN and _MAX nor "
        "_COUNT; give --shard K/N");
  }
  if (count < 1) throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_COUNT is 0");
  const long long offset = static_cast<long long>(id) - low;
  if (offset < 0 || offset % step != 0 || offset / step >= count)
    throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                                " is not one of the array's tasks (" + std::to_string(low) +
                                " to " +
                                std::to_string(low + static_cast<long long>(count - 1) * step) +
                                " in steps of " + std::to_string(step) + ")");
  return {static_cast<int>(offset / step) + 1, count, "a Slurm job array"};
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw std::invalid_argument("--shard \"" + text + "\": expected K/N, e.g. 2/4, or auto");
  const int k = whole_number("--shard " + text + ": K", text.substr(0, slash));
  const int n = whole_number("--shard " + text + ": N", text.substr(slash + 1));
  if (n < 1 || k < 1 || k > n)
    throw std::invalid_argument("--shard " + text + ": K must be from 1 to N (" +
                                std::to_string(n) + ")");
  return {k, n, "--shard"};
}

Shard shard_from_environment(const VariableReader& environment, int shards) {
  int id = 0;
  if (variable(environment, "SLURM_ARRAY_TASK_ID", id)) return slurm_shard(environment, id);
  if (variable(environment, "JOB_COMPLETION_INDEX", id)) {
    if (shards < 1)
      throw std::invalid_argument(
          "--shard auto in a Kubernetes Indexed Job needs --shards N (the job's completions)");
    if (id >= shards)
      throw std::invalid_argument("--shard auto: JOB_COMPLETION_INDEX " + std::to_string(id) +
                                  " is not below --shards " + std::to_string(shards));
    return {id + 1, shards, "a Kubernetes Indexed Job"};
  }
  throw std::invalid_argument(
      "--shard auto: neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job "
      "(JOB_COMPLETION_INDEX) is in the environment; give --shard K/N");
}

double estimated_cost(const Cell& cell) {
  const double rows = static_cast<double>(cell.dataset_size == kFull
                                              ? std::max<std::int64_t>(full_training_rows(cell), 1)
                                              : cell.dataset_size);
  const double flops = std::max(flops_per_sample(cell), 1000.0);
  const double epochs = static_cast<double>(cell.epochs + cell.warmup_epochs);
  return epochs * rows * flops * std::max(cell.min_repeats, 1) * std::max(cell.nproc, 1);
}

double seconds_left(const std::vector<std::pair<double, double>>& ran,
                    const std::vector<double>& remaining) {
  if (ran.empty()) return 0.0;
  double floor = ran.front().second;
  for (const auto& [cost, seconds] : ran) floor = std::min(floor, seconds);
  double above = 0.0, costs = 0.0;
  for (const auto& [cost, seconds] : ran) {
    above += std::max(0.0, seconds - floor);
    costs += cost;
  }
  const double rate = costs > 0.0 ? above / costs : 0.0;
  double left = 0.0;
  for (double cost : remaining)
    if (cost > 0.0) left += floor + rate * cost;
  return left;
}

namespace {

// The units of a sweep: the cells of each comparison unit (first-seen order), then each search
// line alone; `unit_of` gives each cell's unit, lines after the cells' units.
struct Units {
  std::vector<std::size_t> unit_of;  ///< by cell, then by search line
  std::vector<double> cost;          ///< by unit
};

Units units_of(const Expansion& expansion) {
  Units units;
  std::map<std::string, std::size_t> numbers;
  for (const Cell& cell : expansion.cells) {
    const auto [it, fresh] = numbers.emplace(comparison_unit(cell).dump(), units.cost.size());
    if (fresh) units.cost.push_back(0.0);
    units.unit_of.push_back(it->second);
    units.cost[it->second] += estimated_cost(cell);
  }
  for (const SearchLine& line : expansion.searches) {
    units.unit_of.push_back(units.cost.size());
    units.cost.push_back(line.spec.max_probes *
                         (estimated_cost(probe_cell(line.baseline, line.spec.key, line.spec.to)) +
                          estimated_cost(probe_cell(line.contender, line.spec.key, line.spec.to))));
  }
  return units;
}

}  // namespace

std::size_t shard_units(const Expansion& expansion) { return units_of(expansion).cost.size(); }

Expansion shard_of(const Expansion& expansion, const Shard& shard) {
  const Units units = units_of(expansion);
  if (static_cast<std::size_t>(shard.count) > units.cost.size())
    throw std::invalid_argument(
        "--shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) + " (from " +
        shard.source + "): the grid has " + std::to_string(units.cost.size()) +
        " unit(s) to share out (cells compared with each other stay in one part, and a search "
        "runs whole), so at most " +
        std::to_string(units.cost.size()) + " part(s) can each get work; use fewer parts");
  std::vector<std::size_t> order(units.cost.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return units.cost[a] > units.cost[b]; });
  std::vector<double> load(static_cast<std::size_t>(shard.count), 0.0);
  std::vector<bool> mine(units.cost.size(), false);
  for (const std::size_t unit : order) {
    const auto least =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += units.cost[unit];
    mine[unit] = least + 1 == static_cast<std::size_t>(shard.index);
  }
  Expansion out;
  out.excluded = expansion.excluded;
  out.duplicates = expansion.duplicates;
  for (std::size_t i = 0; i < expansion.cells.size(); ++i)
    if (mine[units.unit_of[i]]) out.cells.push_back(expansion.cells[i]);
  for (std::size_t i = 0; i < expansion.searches.size(); ++i)
    if (mine[units.unit_of[expansion.cells.size() + i]])
      out.searches.push_back(expansion.searches[i]);
  return out;
}

}  // namespace crossover
