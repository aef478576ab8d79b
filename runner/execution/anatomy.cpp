#include "runner/execution/anatomy.hpp"

#include <chrono>

#include "core/cells/keys.hpp"
#include "core/text/log.hpp"
#include "core/text/text.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/hardware/threads.hpp"
#include "workloads/anatomy/step_probe.hpp"
#include "workloads/training/workload.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

// The cell as this machine's CPU runs it.
Cell cpu_twin(const Cell& cell) {
  Cell twin = cell;
  twin.device = Device::cpu();
  twin.gpus = 0;
  twin.data_placement = Placement::kDevice;
  twin.pin_memory = false;
  twin.execution = Execution::kEager;
  if (twin.precision == Precision::kTf32) twin.precision = Precision::kFp32;
  if (twin.optimizer_impl == OptimizerImpl::kFused) twin.optimizer_impl = OptimizerImpl::kFlat;
  twin.isolate = false;
  twin.timeout_seconds = 0.0;
  return twin;
}

bool has_loader_workers(const Cell& cell) {
  return cell.loader == Loader::kDataLoader && cell.num_workers > 0;
}

// What making one batch costs the host: the CPU twin's probed step with no loader workers, so
// that the training thread makes the batch itself and the recorder sees its operators. Workers
// hide them from the cell's own probe (they run on the workers' threads), not from its epoch when
// they fall behind.
StepAnatomy host_batch(const Cell& cell, const std::string& data_dir) {
  Cell twin = cpu_twin(cell);
  twin.num_workers = 0;
  apply_threads(twin.threads);
  const std::unique_ptr<Workload> workload = make_workload(twin, torch::kCPU, data_dir);
  workload->reset(twin.seed);
  return probe_step(*workload, [] {});
}

// A cell with loader workers: its step's operators are its twin's without them. The workers'
// operators run on their own threads, which the recorder counts in the backward phase (where a
// GPU's autograd thread runs) whenever they happen to run then: how many depends on the
// machine's load. The twin makes each batch on the training thread, in its data phase.
void add_worker_batch(const Cell& cell, const std::string& data_dir, StepAnatomy& anatomy,
                      double& batch_seconds) {
  if (!has_loader_workers(cell)) return;
  const StepAnatomy batch = host_batch(cell, data_dir);
  anatomy.groups = batch.groups;
  batch_seconds = batch.loader_seconds;
}

}  // namespace

Found prediction_refusal(const Cell& cell) {
  if (cell.parallel != Parallel::kNone || cell.gpus > 1)
    return Problem(
        "several replicas are not predicted: their all-reduce and overlap are not in the "
        "cost model");
  return key_skip_reason(cell);
}

void record_anatomy(const Cell& cell, Workload& workload, const std::string& data_dir,
                    Result& result) {
  if (cell.parallel != Parallel::kNone) return;
  const Clock::time_point start = Clock::now();
  try {
    // A CUDA graph's step is one replay: the dispatcher sees none of the operators it runs. They
    // are the eager step's, which the twin dispatches one by one.
    if (cell.execution == Execution::kGraph) return record_twin_anatomy(cell, data_dir, result);
    StepAnatomy anatomy = probe_step(workload, [&cell] { synchronize_device(cell.device); });
    double batch = 0.0;
    add_worker_batch(cell, data_dir, anatomy, batch);
    result.anatomy =
        Anatomy::of(anatomy, std::chrono::duration<double>(Clock::now() - start).count());
    if (has_loader_workers(cell)) result.anatomy.step_batch_seconds = batch;
  } catch (const std::exception& e) {
    log_warning("cell " + std::to_string(cell.index) + " (" + cell_label(cell) +
                "): its step could not be taken apart (" + e.what() +
                "); it has no anatomy and no bound");
  }
}

void record_twin_anatomy(const Cell& cell, const std::string& data_dir, Result& result) {
  const Cell twin = cpu_twin(cell);
  apply_threads(twin.threads);
  const Clock::time_point start = Clock::now();
  const std::unique_ptr<Workload> workload = make_workload(twin, torch::kCPU, data_dir);
  workload->reset(twin.seed);
  StepAnatomy anatomy = probe_step(*workload, [] {});
  const WorkloadFacts& facts = workload->facts();
  // A batch made on the host crosses to the device each step.
  const bool host_batch =
      cell.loader == Loader::kDataLoader || cell.data_placement == Placement::kHost;
  if (cell.device.is_cuda() && host_batch)
    anatomy.h2d_bytes = static_cast<double>(facts.rows_per_step) * facts.sample_bytes;
  double batch = 0.0;
  add_worker_batch(cell, data_dir, anatomy, batch);
  result.anatomy =
      Anatomy::of(anatomy, std::chrono::duration<double>(Clock::now() - start).count());
  if (has_loader_workers(cell)) result.anatomy.step_batch_seconds = batch;
  record_facts(facts, result);
}

void record_facts(const WorkloadFacts& facts, Result& result) {
  result.data_source = facts.data_source;
  result.train_rows = facts.train_rows;
  result.test_rows = facts.test_rows;
  result.steps_per_epoch = facts.steps_per_epoch;
  result.metric = facts.metric;
  result.flops_per_sample = facts.flops_per_sample;
  result.flops_source = facts.flops_source;
}

}  // namespace crossover
