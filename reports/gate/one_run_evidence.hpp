#pragma once
// compare's evidence about one cell's change, and how one run per side gets it: the within-run
// test, then the run-level test against a calibrated spread or, without a calibration, against
// an assumed one; the reference's drift for the machine (reports/gate/regression.cpp decides).

#include <vector>

#include "core/stats/bootstrap.hpp"
#include "core/records/results.hpp"
#include "reports/gate/regression.hpp"
#include "reports/gate/run_drift.hpp"

namespace crossover {

// What one kind of evidence says about a change: its size (net of the machine where known), the
// interval that says "no change", and whether it is significant.
struct Evidence {
  double effective = 0.0;
  Interval interval;
  bool significant = false;
  bool drift_explains = false;  // the reference's drift, not the code, explains the change
  bool net = false;             // `effective` is the change net of the machine's drift
  bool assumed = false;         // judged against the spread assumed without a calibration
  /// One run per side, uncalibrated: the machine's reference moved beyond the threshold the way
  /// the cell did, so the run cannot tell the machine from the code (inconclusive, ask --rerun).
  bool machine_moved = false;
};

/// Whether the machine moved the way a change went and by more than the threshold: its reference
/// (`machine`, candidate / baseline time) slower by more than the threshold where the cell got
/// worse, or faster where it got better.
bool machine_moved_with(double change, double machine, const RegressionOptions& o);

/// Whether the machine's drift explains a change: beyond the threshold as measured, but net of
/// the machine within it, or of the other sign.
bool drift_explains_change(double change, double net_change, const RegressionOptions& o);

/// One run per side measured in several processes (Welch's t on them, already in `v` and `e`):
/// the processes of a run share the machine's state while it ran, which the references timed
/// around the cell see; a significant change the drift explains is not blamed on the code.
void check_machine_drift(CellVerdict& v, Evidence& e, const Result& base, const Result& cand,
                         const RegressionOptions& o, const RunLevelContext& context);

/// One run per side: the within-run test (Mann-Whitney U and a block bootstrap), then the
/// calibrated run-level test where the runner was calibrated, the assumed spread where not.
/// Fills `v`'s test, change, interval, p-values, decided_by and evidence.
Evidence one_run_evidence(CellVerdict& v, const Result& base, const Result& cand,
                          const std::vector<double>& bs, const std::vector<double>& cs,
                          const RegressionOptions& o, const RunLevelContext& context);

}  // namespace crossover
