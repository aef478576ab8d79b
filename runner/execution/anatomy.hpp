#pragma once
// Each cell's step taken apart (core/costmodel/step_anatomy.hpp), recorded into its result: probed
// after the timed epochs of a measured cell, or, for a cell of a device this machine lacks,
// measured on the CPU from the same cell there (its twin), to be predicted with another machine's
// profile. No LibTorch in this header.

#include <string>

#include "core/records/results.hpp"
#include "core/text/problem.hpp"

namespace crossover {

class Workload;
struct WorkloadFacts;

/// Why `cell` cannot be predicted from its anatomy: several replicas (their all-reduce and the
/// replicas' overlap are not in the model), or a setting no machine runs.
Found prediction_refusal(const Cell& cell);

/// Probes `workload`'s step (workloads/anatomy/step_probe.hpp) after the cell's measurements and
/// records it into `result`'s step_* fields and anatomy_seconds. A ddp or dp cell is not probed
/// (its ranks step together; one probing alone would wait for the others); a probe that fails
/// leaves the fields empty, with a warning, and never fails the cell. A cell whose DataLoader has
/// workers also gets step_batch_seconds from its CPU twin without them (`data_dir`: its data sets),
/// and a cell executed as a CUDA graph the twin's anatomy (a replay dispatches none of its
/// operators).
void record_anatomy(const Cell& cell, Workload& workload, const std::string& data_dir,
                    Result& result);

/// The anatomy of `cell`'s step as this machine's CPU runs the same cell (its twin: the device the
/// CPU, what only a GPU has as the CPU has it, "tf32" as "fp32", a fused optimiser as "flat"),
/// from a fresh workload: into `result`'s facts (rows, steps per epoch, data source, FLOPs per
/// sample) and step_* fields, with the copy of each batch from the host added where the cell makes
/// its batches there, and step_batch_seconds. Throws std::runtime_error when the twin cannot be
/// built.
void record_twin_anatomy(const Cell& cell, const std::string& data_dir, Result& result);

/// The workload's facts (data source, rows, steps, metric, FLOPs) into `result`.
void record_facts(const WorkloadFacts& facts, Result& result);

}  // namespace crossover
