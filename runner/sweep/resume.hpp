#pragma once
// --resume: which cells of an earlier run in the same folder are kept, and which run (again).

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/records/environment.hpp"
#include "core/records/results.hpp"
#include "runner/distributed/shard.hpp"
#include "runner/grid/grid.hpp"

namespace crossover {

/// Cells kept from an earlier run by --resume, and those to run.
struct ResumePlan {
  std::vector<Result> kept;  ///< ok cells measured before, at their place in the grid now
  std::vector<Cell> to_run;
};

/// What a resume names in its messages.
struct ResumeRequest {
  std::string resume;          ///< the run's folder
  std::string grid;            ///< the grid file given now
  std::optional<Shard> shard;  ///< the part given now (--shard), none for the whole grid
  /// The cells this machine would skip now (no such device here): one skipped before is kept as
  /// it was, not "run" again.
  std::set<std::size_t> skipped_here;
};

/// The cells of `expansion` that --resume keeps: those ok in the folder's results.jsonl, matched
/// on identity keys, whose data set did not change (`record`'s fingerprints against the folder's
/// env.json). Refuses — logged, nothing returned — when the folder holds no run, when it holds
/// another part of the grid than `request.shard` (or a part where the whole grid is resumed),
/// when the environment changed in a way that matters, or when the grid lacks cells the run
/// measured (resuming would drop them). The kept cells' reference timings go into `record`.
std::optional<ResumePlan> plan_resume(const ResumeRequest& request, const Expansion& expansion,
                                      Environment& record);

}  // namespace crossover
