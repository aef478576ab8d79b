#pragma once
// A sweep cut into N disjoint parts for N machines (`run --shard K/N`), the same parts for the same
// grid on every machine; K and N given, or taken from a Slurm job array or a Kubernetes Indexed
// Job. What is dealt out is the comparison unit, never the cell: the cells a device table, a
// crossover or a --compare pairs (core/cells/cell.hpp's comparison_unit) run in one part, on one
// machine, and the units are balanced by an estimate of their cost. No LibTorch.

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/cells/cell.hpp"
#include "runner/grid/grid.hpp"

namespace crossover {

/// The K-th (from 1) of N parts, and where K and N came from.
struct Shard {
  int index = 1;
  int count = 1;
  std::string source = "--shard";  ///< "--shard", "a Slurm job array", "a Kubernetes Indexed Job"
};

/// "K/N"; throws std::invalid_argument saying what is wrong (K above N, not numbers, a number
/// with more digits than an int holds, ...).
Shard parse_shard(const std::string& text);

/// How `--shard auto` reads the environment (getenv in a run, a map in tests).
using VariableReader = std::function<const char*(const char*)>;

/// `--shard auto`: in a Slurm job array, K is the task's position among the array's tasks
/// (SLURM_ARRAY_TASK_ID from SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP) and N their
/// number (SLURM_ARRAY_TASK_COUNT, which must agree with MIN, MAX and STEP); in a Kubernetes
/// Indexed Job, K is JOB_COMPLETION_INDEX + 1 and N `shards` (--shards N). Throws
/// std::invalid_argument naming the variable and its value when one is not a whole number in
/// range or the array's variables disagree, and what is missing outside such a job.
Shard shard_from_environment(const VariableReader& environment, int shards);

/// A cell's cost, relative to others: timed and warm-up epochs x rows x FLOPs per sample x the
/// fewest repeats, rows the dataset_size or the data set's training split.
double estimated_cost(const Cell& cell);

/// The seconds the cells of `remaining` estimated costs will take, from the cells that ran (each
/// its estimated cost and wall seconds): every cell pays what the quickest one took (the process,
/// the set-up, the warm-up), and its cost at the rate the cells that ran paid for theirs above it.
/// 0 before any ran. The run's ETA.
double seconds_left(const std::vector<std::pair<double, double>>& ran,
                    const std::vector<double>& remaining);

/// How many parts `expansion` can be cut into: its comparison units (cells with one
/// comparison_unit) plus its search lines, each of which runs whole in one part.
std::size_t shard_units(const Expansion& expansion);

/// The cells and search lines of `shard`: the units sorted by estimated cost (the largest first,
/// then grid order) and dealt one at a time to the part with the least cost so far, so that one
/// part does not get every large unit. Deterministic for a grid. Throws std::invalid_argument
/// when the grid has fewer units than parts (before anything is allocated per part).
Expansion shard_of(const Expansion& expansion, const Shard& shard);

}  // namespace crossover
