// A validated grid into its flat list of cells: the Cartesian product of each experiment's axes,
// the keys that mean nothing for a cell set to one value, exclude rules and duplicates dropped.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <unordered_set>

#include "core/cells/keys.hpp"
#include "reports/analysis/cell_names.hpp"
#include "runner/grid/grid.hpp"
#include "runner/grid/grid_search.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Sets one key of a cell; the key and value were validated.
void apply(Cell& cell, const std::string& key, const Json& value) {
  find_grid_key(key)->set(cell, value);
}

bool excluded(const Json& config, const std::vector<Json>& rules) {
  for (const auto& rule : rules) {
    bool all = true;
    for (const auto& [key, wanted] : rule.items()) {
      const Json& actual = config.at(key);
      // A list is "any of these" (a shape is itself a list: equal to it is a hit too).
      const bool hit =
          wanted == actual ||
          (wanted.is_array() && std::find(wanted.begin(), wanted.end(), actual) != wanted.end());
      if (!hit) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

// Whether an experiment sets `key`, as a setting (its own or a default) or as an axis.
bool sets(const Experiment& experiment, const std::string& key) {
  return experiment.settings.contains(key) ||
         std::any_of(experiment.axes.begin(), experiment.axes.end(),
                     [&](const auto& axis) { return axis.first == key; });
}

// The cells each experiment multiplies out to (before exclude rules), checked against the limits
// before any is made: a few long axes multiply into more cells than any sweep can run, or memory
// can hold. Each problem is added to `issues`.
void check_cell_counts(const Grid& grid, std::vector<GridIssue>& issues) {
  std::size_t planned = 0;  // cells of the experiments so far
  for (std::size_t e = 0; e < grid.experiments.size(); ++e) {
    std::size_t product = 1;
    for (const auto& axis : grid.experiments[e].axes)
      product = std::min(product * std::max<std::size_t>(axis.second.size(), 1), kMaxCells + 1);
    const std::string path = "experiments[" + std::to_string(e) + "].grid";
    if (product > kMaxCells) {
      issues.push_back({path, "expands to more than " + std::to_string(kMaxCells) +
                                  " cells; split the experiment or shorten its lists"});
      continue;
    }
    if (planned + product > kMaxCells) {
      issues.push_back({path, "takes the grid past " + std::to_string(kMaxCells) +
                                  " cells in all (the experiments before it have " +
                                  std::to_string(planned) +
                                  "); split the grid into several files, each its own run"});
      return;
    }
    planned += product;
  }
}

}  // namespace

namespace {

// A searched key's value as the key takes it: an integer where it is one.
Json search_value(const SearchSpec& spec, double value) {
  if (spec.integer) return static_cast<std::int64_t>(std::llround(value));
  return value;
}

// One experiment's cells: the odometer over its axes, each cell finished (the keys that mean
// nothing for it set to one value, normalised, checked) and handed to `take`; excluded cells are
// counted, problems added to `issues`.
class ExperimentCells {
 public:
  ExperimentCells(const Grid& grid, std::size_t e, Expansion& out, std::vector<GridIssue>& issues)
      : grid_(grid), e_(e), experiment_(grid.experiments[e]), out_(out), issues_(issues) {
    const WorkloadInfo* info = find_workload(experiment_.workload);
    base_.experiment = e;
    base_.workload = experiment_.workload;
    if (info != nullptr) {
      base_.dataset = info->datasets.front();
      base_.batch_size = info->batch_size;
      base_.epochs = info->epochs;
      base_.optimizer = info->optimizer;
      base_.lr = info->lr;
      base_.momentum = info->momentum;
      base_.loader = info->loader;
    }
    for (const auto& [key, value] : experiment_.settings.items()) apply(base_, key, value);
    if (experiment_.search)
      apply(base_, experiment_.search->key,
            search_value(*experiment_.search, experiment_.search->from));
  }

  // Every raw cell of the axes, the last axis varying fastest.
  template <typename Take>
  void each(const Take& take) const {
    std::vector<std::size_t> position(experiment_.axes.size(), 0);
    const auto advance = [&] {
      for (std::size_t a = experiment_.axes.size(); a-- > 0;) {
        if (++position[a] < experiment_.axes[a].second.size()) return true;
        position[a] = 0;
      }
      return false;
    };
    do {
      Cell cell = base_;
      for (std::size_t a = 0; a < experiment_.axes.size(); ++a)
        apply(cell, experiment_.axes[a].first, experiment_.axes[a].second[position[a]]);
      take(cell);
    } while (advance());
  }

  // The cell as it runs, or none: excluded (counted) or a problem (added).
  std::optional<Cell> finish(Cell cell) const {
    if (excluded(cell_config_json(cell), experiment_.excludes)) {
      ++out_.excluded;
      return std::nullopt;
    }
    cell.max_repeats = std::max(cell.max_repeats, cell.min_repeats);
    // Settings without meaning for this cell take one value, so equal cells are not run twice;
    // keys with a CUDA default of their own get it where the grid leaves them unset.
    const bool cuda = cell.device.is_cuda();
    for (const auto& key : grid_keys()) {
      if (!cuda && key.cpu_value) key.set(cell, *key.cpu_value);
      if (cuda && key.cuda_default && !sets(experiment_, key.name))
        key.set(cell, *key.cuda_default);
    }
    normalise_cell(cell);  // each key's own rule (core/cells/keys.cpp)
    if (cell.workload == kUserModelWorkload) {
      // A user's model is code from outside: in a child process unless the grid says, so that
      // a crash in it costs its cell alone; its file relative to the grid's folder.
      if (!sets(experiment_, "isolate")) cell.isolate = true;
      // And never without an end: a forward that hangs only at the real batch size passes the
      // model check, then would run forever.
      if (!sets(experiment_, "timeout_seconds"))
        cell.timeout_seconds = default_timeout_seconds(cell);
      if (!cell.model.empty() && std::filesystem::path(cell.model).is_relative()) {
        cell.model = (std::filesystem::absolute(grid_.file).parent_path() / cell.model)
                         .lexically_normal()
                         .string();
      }
    }
    if (const Found problem = cell_problem(cell)) {
      issues_.push_back({"experiments[" + std::to_string(e_) + "]",
                         problem->text + " (cell: " + cell_label(cell) + ")"});
      return std::nullopt;
    }
    return cell;
  }

  // A search's line for one raw cell: the contender as given, the baseline with the compared
  // key changed — on a CPU baseline of a device comparison, the keys that mean something on
  // CUDA alone at their defaults (the CPU cell a CUDA cell of each `execution` pairs with).
  std::optional<SearchLine> line(const Cell& raw) const {
    const SearchSpec& spec = *experiment_.search;
    const Contenders c = search_contenders(spec);
    Cell contender = raw, baseline = raw;
    apply(contender, c.key->name, c.contender);
    apply(baseline, c.key->name, c.baseline);
    if (is_key(c.key->name, Key::kDevice) && !baseline.device.is_cuda()) {
      const Json defaults = cell_config_json(Cell{});
      for (const auto& key : grid_keys())
        if (key.cuda_only && defaults.contains(key.name)) key.set(baseline, defaults[key.name]);
    }
    auto finished_contender = finish(contender);
    auto finished_baseline = finish(baseline);
    if (!finished_contender || !finished_baseline) return std::nullopt;
    // "cpu" and "cuda" speak for themselves; "threads=1" says what 1 is.
    const auto name = [&](const std::string& value) {
      return is_key(c.key->name, Key::kDevice) ? value : c.key->name + "=" + value;
    };
    SearchLine line{e_,
                    spec,
                    name(c.baseline_text),
                    name(c.contender_text),
                    *finished_baseline,
                    *finished_contender,
                    "",
                    {},
                    {}};
    const Json config = cell_config_json(line.contender);
    for (const auto& axis : experiment_.axes)
      line.fixed +=
          (line.fixed.empty() ? "" : ", ") + axis.first + "=" + value_text(config[axis.first]);
    return line;
  }

  bool searched() const { return experiment_.search.has_value(); }

 private:
  const Grid& grid_;
  std::size_t e_;
  const Experiment& experiment_;
  Expansion& out_;
  std::vector<GridIssue>& issues_;
  Cell base_;
};

}  // namespace

Expansion expand_grid(const Grid& grid) {
  Expansion out;
  std::vector<GridIssue> issues;
  check_cell_counts(grid, issues);
  if (!issues.empty()) throw GridError(grid.file, issues);
  std::unordered_set<std::string> seen;
  for (std::size_t e = 0; e < grid.experiments.size(); ++e) {
    const ExperimentCells cells(grid, e, out, issues);
    cells.each([&](const Cell& raw) {
      if (cells.searched()) {
        auto line = cells.line(raw);
        if (!line) return;
        const std::string key =
            cell_config_json(line->baseline).dump() + cell_config_json(line->contender).dump();
        if (!seen.insert(key).second) {
          ++out.duplicates;
          return;
        }
        out.searches.push_back(std::move(*line));
        return;
      }
      auto cell = cells.finish(raw);
      if (!cell) return;
      if (!seen.insert(cell_config_json(*cell).dump()).second) {
        ++out.duplicates;
        return;
      }
      cell->index = out.cells.size();
      out.cells.push_back(std::move(*cell));
    });
  }
  if (!issues.empty()) throw GridError(grid.file, issues);
  return out;
}

Cell probe_cell(const Cell& cell, const std::string& key, double value) {
  Cell probe = cell;
  const GridKey* spec = find_grid_key(key);
  spec->set(probe, spec->kind == KeyKind::kNumber
                       ? Json(value)
                       : Json(static_cast<std::int64_t>(std::llround(value))));
  normalise_cell(probe);
  return probe;
}

std::size_t most_probes(const std::vector<SearchLine>& searches) {
  std::size_t n = 0;
  for (const SearchLine& line : searches) n += static_cast<std::size_t>(line.spec.max_probes);
  return n;
}

}  // namespace crossover
