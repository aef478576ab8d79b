#pragma once
// The results in Google Benchmark's JSON format, so that its tools/compare.py and the CI actions
// that track that format (github-action-benchmark's "googlecpp", Bencher, ...) can read them.
// Turns results into JSON; writes nothing.

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/records/environment.hpp"
#include "core/records/results.hpp"

namespace crossover {

/// Google Benchmark JSON: a `context` from the environment record (none: what is known without
/// it), then per `ok` cell one "iteration" entry per timed epoch (iterations 1, real_time = the
/// epoch in ns, Google Benchmark's default unit and the same for every cell; items_per_second =
/// samples/s) and the aggregates mean, median and stddev (no cv: a ratio, which trackers of the
/// format take for a time).
/// Names are the workload and the keys that differ among the cells ("mnist_mlp/device:cpu/
/// batch_size:128"). Cells that did not run are left out: Google Benchmark has no "skipped".
/// cpu_time repeats real_time: crossover measures wall time only.
nlohmann::ordered_json render_gbench_json(const std::vector<Result>& results,
                                          const std::optional<Environment>& environment);

/// Bencher's Metric Format (bmf.json, `bencher run --adapter json`): per `ok` cell, by the same
/// name, its `latency` (the median epoch in ns, Bencher's unit, with its 95 % interval as
/// lower_value and upper_value) and its `throughput` (training samples per second).
nlohmann::ordered_json render_bmf_json(const std::vector<Result>& results);

/// github-action-benchmark's `customSmallerIsBetter` form (benchmark-action.json): one entry per
/// `ok` cell, by the same name, its median epoch in ms ("ms/epoch", one unit for every cell and
/// run), `range` the half-width of its 95 % interval, `extra` the cell and its interval.
nlohmann::ordered_json render_benchmark_action_json(const std::vector<Result>& results);

}  // namespace crossover
