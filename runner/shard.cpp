#include "runner/shard.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "workloads/catalog.hpp"

namespace crossover {
namespace {

// A whole number from text, or none.
bool whole(const std::string& text, long long& out) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  out = std::stoll(text);
  return true;
}

// The training rows of a data set's full split, as the seeds use them.
double full_rows(const std::string& dataset) {
  if (dataset == "iris") return 112;
  if (dataset == "boston") return 404;
  if (dataset == "mnist" || dataset == "fashion_mnist") return 60000;
  if (dataset == "cifar10") return 50000;
  if (dataset == "standin") return 64;
  return 1024;  // synthetic samples
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  long long k = 0, n = 0;
  if (slash == std::string::npos || !whole(text.substr(0, slash), k) ||
      !whole(text.substr(slash + 1), n))
    throw std::invalid_argument("--shard \"" + text + "\": expected K/N, e.g. 2/4, or auto");
  if (n < 1 || k < 1 || k > n)
    throw std::invalid_argument("--shard " + text + ": K must be from 1 to N (" +
                                std::to_string(n) + ")");
  return {static_cast<int>(k), static_cast<int>(n), "--shard"};
}

Shard shard_from_environment(const Environment& environment, int shards) {
  const auto read = [&](const char* name, long long& out) {
    const char* value = environment(name);
    return value != nullptr && whole(value, out);
  };
  long long id = 0, low = 0, high = 0, count = 0;
  if (read("SLURM_ARRAY_TASK_ID", id)) {
    if (read("SLURM_ARRAY_TASK_MIN", low) && read("SLURM_ARRAY_TASK_MAX", high) && high >= low) {
      count = high - low + 1;
    } else if (read("SLURM_ARRAY_TASK_COUNT", count)) {
      low = read("SLURM_ARRAY_TASK_MIN", low) ? low : 0;
    } else {
      throw std::invalid_argument(
          "--shard auto: SLURM_ARRAY_TASK_ID is set, but not SLURM_ARRAY_TASK_MIN and _MAX nor "
          "_COUNT; give --shard K/N");
    }
    if (id < low || id - low >= count)
      throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                                  " lies outside the array (" + std::to_string(low) + " to " +
                                  std::to_string(low + count - 1) + ")");
    return {static_cast<int>(id - low + 1), static_cast<int>(count), "a Slurm job array"};
  }
  if (read("JOB_COMPLETION_INDEX", id)) {
    if (shards < 1)
      throw std::invalid_argument(
          "--shard auto in a Kubernetes Indexed Job needs --shards N (the job's completions)");
    if (id >= shards)
      throw std::invalid_argument("--shard auto: JOB_COMPLETION_INDEX " + std::to_string(id) +
                                  " is not below --shards " + std::to_string(shards));
    return {static_cast<int>(id + 1), shards, "a Kubernetes Indexed Job"};
  }
  throw std::invalid_argument(
      "--shard auto: neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job "
      "(JOB_COMPLETION_INDEX) is in the environment; give --shard K/N");
}

double estimated_cost(const Cell& cell) {
  const double rows =
      cell.dataset_size == kFull ? full_rows(cell.dataset) : static_cast<double>(cell.dataset_size);
  const double flops = std::max(flops_per_sample(cell), 1000.0);
  const double epochs = static_cast<double>(cell.epochs + cell.warmup_epochs);
  return epochs * rows * flops * std::max(cell.min_repeats, 1) * std::max(cell.nproc, 1);
}

Expansion shard_of(const Expansion& expansion, const Shard& shard) {
  struct Item {
    double cost;
    std::size_t order;  ///< cells first, then search lines, each in grid order
  };
  std::vector<Item> items;
  for (std::size_t i = 0; i < expansion.cells.size(); ++i)
    items.push_back({estimated_cost(expansion.cells[i]), i});
  for (std::size_t i = 0; i < expansion.searches.size(); ++i) {
    const SearchLine& line = expansion.searches[i];
    items.push_back({line.spec.max_probes *
                         (estimated_cost(probe_cell(line.baseline, line.spec.key, line.spec.to)) +
                          estimated_cost(probe_cell(line.contender, line.spec.key, line.spec.to))),
                     expansion.cells.size() + i});
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.cost > b.cost; });
  std::vector<double> load(static_cast<std::size_t>(shard.count), 0.0);
  std::vector<bool> mine(items.size(), false);
  for (const Item& item : items) {
    const auto least =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += item.cost;
    mine[item.order] = least + 1 == static_cast<std::size_t>(shard.index);
  }
  Expansion out;
  out.excluded = expansion.excluded;
  out.duplicates = expansion.duplicates;
  for (std::size_t i = 0; i < expansion.cells.size(); ++i)
    if (mine[i]) out.cells.push_back(expansion.cells[i]);
  for (std::size_t i = 0; i < expansion.searches.size(); ++i)
    if (mine[expansion.cells.size() + i]) out.searches.push_back(expansion.searches[i]);
  return out;
}

}  // namespace crossover
