#pragma once
// The cells of a measured run predicted with a profile, for crossover predict --check: each ok
// cell's anatomy recorded in the run, kept beside it in anatomy.jsonl, or taken again on this
// machine's CPU from the cell's definition.

#include <string>
#include <vector>

#include "core/costmodel/machine_profile.hpp"
#include "core/records/results.hpp"
#include "reports/gate/run_drift.hpp"
#include "reports/scores/prediction_scores.hpp"  // Checked

namespace crossover {

/// The file beside a run's results.jsonl that keeps the anatomy taken for its cells.
inline constexpr const char* kAnatomyFile = "anatomy.jsonl";

/// Whether some ok cell of the runs at `paths` has no anatomy, recorded or kept beside its run:
/// predicting it takes one on this CPU (take_twin_anatomy, runner/cli/command_support.hpp). Reads
/// the runs quietly (check_run says what is wrong with them); a run that cannot be read needs none.
bool anatomy_to_take(const std::vector<std::string>& paths);

/// Every ok cell of `run` (read from `path`) predicted with `target`, its band included; a cell
/// whose anatomy cannot be had is left out with a warning. Reads `path`'s anatomy.jsonl (a link
/// refused) where there is one; throws std::runtime_error naming it when it cannot be read.
Checked check_run(const std::string& path, const RunRecord& run, const MachineProfile& target,
                  const std::string& data_dir);

/// A run's name as a profile's validation lists it: its folder's.
std::string run_name(const std::string& path);

/// Every predicted cell of `checked` as a band sees it.
std::vector<BandCell> band_cells(const std::vector<Checked>& checked);

/// Gives each predicted cell of `checked` its band. A run whose cells set `source`'s band (its
/// validation lists the run), or every run with `leave_out`, is scored leave one run out: its
/// band fitted on the other checked runs' cells alone. Any other run gets `source`'s band, which
/// never saw it. Says in each Checked which.
void assign_bands(std::vector<Checked>& checked, const MachineProfile& source, bool leave_out);

/// Writes the anatomy `checked` took here beside its run (anatomy.jsonl); nothing when it took
/// none. Throws std::runtime_error naming the file.
void save_anatomy(const Checked& checked);

/// Warns when the profile's CPU is not the one that measured `run`: its CPU cells are then
/// predicted for the profile's machine.
void warn_other_cpu(const std::string& path, const RunRecord& run, const MachineProfile& target);

}  // namespace crossover
