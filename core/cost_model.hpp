#pragma once
// The cost model: a step's time on a device from its anatomy (core/step_anatomy.hpp) and the
// device's profile (core/machine_profile.hpp). Per operator, the larger of the device's fixed
// cost per dispatched operator, its FLOPs at the device's matrix-product throughput for its size,
// and its bytes at the device's memory bandwidth; plus the bytes copied from the host at the
// copy bandwidth (pageable or pinned) and the wait for the batch. The largest of those five sums
// is what bounds the step. Small enough to state in docs/methodology.md; no LibTorch.

#include <string>

#include "core/machine_profile.hpp"
#include "core/modes.hpp"
#include "core/results.hpp"
#include "core/step_anatomy.hpp"

namespace crossover {

/// Where a step's time goes, predicted, in seconds per step.
struct StepPrediction {
  double dispatch = 0.0;        ///< operators whose fixed cost is their largest term
  double compute = 0.0;         ///< operators whose FLOPs at the throughput for their size are
  double memory = 0.0;          ///< operators whose bytes at the bandwidth are
  double transfer = 0.0;        ///< the host-to-device copy of the batch
  double loader = 0.0;          ///< waiting for the batch
  double dispatched_ops = 0.0;  ///< how many operators the dispatch term counts
  double arithmetic = 0.0;      ///< every operator's FLOPs at the throughput, whatever bounds it
  double traffic = 0.0;         ///< every operator's bytes at the bandwidth, whatever bounds it
  /// Loader workers make batches slower than the step uses them: `loader` is only the part of
  /// their time the step does not hide, and the loader bounds the step.
  bool loader_exposed = false;

  double step() const { return dispatch + compute + memory + transfer + loader; }
  /// The largest term (kNone for an empty prediction); the loader where loader_exposed.
  Bound bound() const;
};

/// What the model needs to know of a step besides its anatomy.
struct StepContext {
  bool cuda = false;    ///< on a GPU: the batch's copy from the host counts
  bool pinned = false;  ///< that copy comes from page-locked memory
  /// Graph execution: the operators are replayed from one launch, so none pays the dispatch
  /// cost; each takes the larger of the profile's cost per replayed operator and its compute or
  /// memory time.
  bool graph = false;
  /// The batch is cut on the device (the tensor loader with the data there): the data phase's
  /// operators are the device's. Otherwise the host makes the batch, and `loader_seconds` is
  /// that wait (measured, scaled to the machine predicted).
  bool batch_on_device = true;
  /// The wait for the batch on the machine predicted; with loader workers, the time they take to
  /// make one batch between them (one batch's cost over their number), which runs beside the step.
  double loader_seconds = 0.0;
  int loader_workers = 0;  ///< DataLoader worker threads: 0, the training thread makes the batch
};

/// A step predicted on `device`.
StepPrediction predict_step(const StepAnatomy& anatomy, const DeviceProfile& device,
                            const StepContext& context);

/// An epoch of `steps` steps, as the runner times it: the steps, then one synchronisation.
double predict_epoch(const StepPrediction& step, double steps, const DeviceProfile& device);

/// The anatomy a result records (its step_* fields) as a StepAnatomy; empty for a result without
/// one.
StepAnatomy anatomy_of(const Result& result);

/// What the model knows of a cell's step besides its anatomy: on a GPU or not, pinned copies,
/// graph execution, where the batch is cut.
StepContext context_of(const Cell& cell);

/// The device of `profile` a cell runs on: its GPU for a CUDA cell (none when the profile has no
/// GPU), its CPU at the cell's threads otherwise.
const DeviceProfile* device_of(const MachineProfile& profile, const Cell& cell);

/// The cost model's account of `result`'s step on the machine `target` describes, into its bound
/// and predicted_* fields (left as they are for a result without anatomy, or a CUDA cell and a
/// profile without a GPU). The loader's wait, measured on the machine `here` describes, scales
/// with the two CPUs' cost per operator (none: as measured).
void apply_prediction(Result& result, const MachineProfile& target, const MachineProfile* here);

/// The bound in a few words with the numbers behind it: "dispatch-bound (96 operators x 13 us ~
/// 1.25 ms, against 5 us of arithmetic)", "compute-bound (1.4 GFLOP at 80 GFLOP/s ~ 17.5 ms)".
std::string bound_text(const StepPrediction& step, const StepAnatomy& anatomy);

}  // namespace crossover
