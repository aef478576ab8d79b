#pragma once
// One extra step of a workload, outside the timed epochs, taken apart: which operators it
// dispatches in each phase, what they compute and move, and how long it waits for its batch.

#include <functional>

#include "core/costmodel/step_anatomy.hpp"
#include "workloads/training/workload.hpp"

namespace crossover {

/// Trains `workload` (reset) for three more steps and stops: the first warms it, the second is
/// timed phase by phase (`synchronize` called at each phase's end, so that a device's queue does
/// not hide a phase's time), the third's operators are recorded (op_cost's OperatorRecorder). The
/// epoch in progress is abandoned, and the model has trained three steps more: call it when the
/// workload's measurements are done. An epoch of one step is followed by the next, whose
/// operators of the epoch's end and start then count in the step's data phase.
StepAnatomy probe_step(Workload& workload, const std::function<void()>& synchronize);

}  // namespace crossover
