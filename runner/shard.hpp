#pragma once
// A sweep cut into N disjoint parts for N machines (`run --shard K/N`), balanced by an estimate
// of each cell's cost, the same parts for the same grid on every machine; K and N given, or taken
// from a Slurm job array or a Kubernetes Indexed Job. No LibTorch.

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "core/cell.hpp"
#include "runner/grid.hpp"

namespace crossover {

/// The K-th (from 1) of N parts, and where K and N came from.
struct Shard {
  int index = 1;
  int count = 1;
  std::string source = "--shard";  ///< "--shard", "a Slurm job array", "a Kubernetes Indexed Job"
};

/// "K/N"; throws std::invalid_argument saying what is wrong (K above N, not numbers, ...).
Shard parse_shard(const std::string& text);

/// How `--shard auto` reads the environment (getenv in a run, a map in tests).
using Environment = std::function<const char*(const char*)>;

/// `--shard auto`: Slurm's SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and _MAX (or _COUNT), else
/// a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (from 0) with `shards` parts (--shards N).
/// Throws std::invalid_argument naming what is missing outside such a job.
Shard shard_from_environment(const Environment& environment, int shards);

/// A cell's cost, relative to others: timed and warm-up epochs x rows x FLOPs per sample x the
/// fewest repeats, rows the dataset_size or the data set's training split.
double estimated_cost(const Cell& cell);

/// The cells and search lines of `shard`: everything sorted by estimated cost (the largest first,
/// then grid order) and dealt one at a time to the part with the least cost so far, so that one
/// part does not get every large cell. Deterministic for a grid.
Expansion shard_of(const Expansion& expansion, const Shard& shard);

}  // namespace crossover
