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
/// samples/s) and the aggregates mean, median, stddev and cv.
/// Names are the workload and the keys that differ among the cells ("mnist_mlp/device:cpu/
/// batch_size:128"). Cells that did not run are left out: Google Benchmark has no "skipped".
/// cpu_time repeats real_time: crossover measures wall time only.
nlohmann::ordered_json render_gbench_json(const std::vector<Result>& results,
                                          const std::optional<Environment>& environment);

}  // namespace crossover
