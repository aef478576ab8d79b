#pragma once
// What a comparison as a whole says: its counts, whether the job fails, the next step, the rounds
// a runner needs, and the one account of the machine that the header and the cells share. The
// verdicts themselves are reports/gate/regression.cpp's.

#include "reports/gate/cell_verdict.hpp"

namespace crossover {

/// Fills report.machine, report.evidence and report.calibration, and the notes on what the
/// verdicts rest on, from the cells already judged.
void describe_evidence(RegressionReport& report, const RunLevelContext& context);

}  // namespace crossover
