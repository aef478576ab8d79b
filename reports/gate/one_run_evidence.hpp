#pragma once
// compare's evidence about one cell's change, and how one run per side gets it: the within-run
// test, then the run-level test against a calibrated spread or, without a calibration, against
// an assumed one; the reference's drift for the machine (reports/gate/regression.cpp decides).

#include <optional>
#include <vector>

#include "core/records/results.hpp"
#include "core/stats/bootstrap.hpp"
#include "reports/gate/cell_verdict.hpp"
#include "reports/gate/run_drift.hpp"

namespace crossover {

// What one kind of evidence says about a change: its size (net of the machine where known), the
// interval that says "no change", and whether it is significant.
struct Evidence {
  double effective = 0.0;
  Interval interval;
  bool significant = false;
  bool net = false;      // `effective` is the change net of the machine's drift
  bool assumed = false;  // judged against the spread assumed without a calibration
  /// The machine's drift (standing out from the reference's own noise) explains the change: it
  /// was significant and beyond the threshold as measured, and is not, net of the drift with
  /// the reference's noise added to its interval (inconclusive: one run per side cannot tell).
  bool explained = false;
};

/// One run per side without a calibration: the change judged net of the machine's drift around
/// the cell, where that drift stands out from the reference's own noise and went the way the
/// change did, for no more than the change itself (a drift corrects, never excuses more than it
/// explains, and never makes a change larger). The net change's interval is the evidence's,
/// shifted by the drift and widened by the reference's noise; significant only where that
/// interval still excludes no change. Records the drift in `v` and its account in `v.evidence`.
void net_of_machine(CellVerdict& v, Evidence& e, const std::optional<ReferenceDrift>& drift,
                    const RegressionOptions& o);

/// One run per side: the within-run test (Mann-Whitney U and a block bootstrap), then the
/// calibrated run-level test where the runner was calibrated, the assumed spread where not, each
/// net of the machine's drift where it stands out. Fills `v`'s test, change, interval, p-values,
/// decided_by and evidence.
Evidence one_run_evidence(CellVerdict& v, const Result& base, const Result& cand,
                          const std::vector<double>& bs, const std::vector<double>& cs,
                          const RegressionOptions& o, const RunLevelContext& context);

}  // namespace crossover
