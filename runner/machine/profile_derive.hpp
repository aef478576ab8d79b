#pragma once
// A machine's profile derived from runs measured there, for a machine that cannot be profiled
// directly (one whose runs are all there is, as in profiles/validation/): each constant from the
// cells that show it, the formula and the cells said in the profile's provenance. No LibTorch.

#include <string>
#include <vector>

#include "core/costmodel/machine_profile.hpp"
#include "core/records/run_record.hpp"

namespace crossover {

/// Derives a profile named `name` from `runs`' ok cells, their anatomy recorded or taken again on
/// this machine's CPU (data from `data_dir`), with `here` (this machine's profile) lending the
/// shape of the CPU's matrix-size ladder:
/// - dispatch (per device) = median of step / operators over the quarter of the cells (their
///   batch cut on the device) with the fewest FLOPs per operator: such steps are their
///   operators' fixed cost;
/// - the GPU's ladder from its env.json peak P: rate(n) = 2 n^3 / max(dispatch, 2 n^3 / P);
/// - the CPU's ladder: `here`'s shape, scaled to the run's 1024^3 rate (env.json's BLAS line);
/// - memory bandwidth = median over the quarter of those cells with the most bytes of bytes /
///   (step - operators x dispatch - FLOPs / P), where positive;
/// - host-to-device bandwidth = h2d bytes / (step with the batch on the host - the same step
///   with it on the device), pageable and pinned, where that is positive; else a nominal value,
///   said so.
/// Throws std::runtime_error when the runs have no cell to derive a constant from.
MachineProfile derive_profile(const std::string& name, const std::vector<RunRecord>& runs,
                              const MachineProfile& here, const std::string& data_dir);

}  // namespace crossover
