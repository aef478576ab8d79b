#pragma once
// The cost model: a step's time on a device from its anatomy (step_anatomy.hpp) and the device's
// profile (machine_profile.hpp). Per operator, the larger of the device's fixed cost per
// dispatched operator, its FLOPs at the device's matrix-product throughput for its size and
// precision (a GPU's tensor cores where LibTorch uses them),
// and its bytes at the device's memory bandwidth; plus the bytes copied from the host at the
// copy bandwidth (pageable or pinned) and the wait for a batch made on the host, costed from its
// operators on the predicted machine's CPU (never from a wait measured on the checking machine).
// On a GPU the host queues kernels ahead of the device, so a step takes the longer of the host's
// side (dispatch, the batch) and the device's (the kernels, the copy). The largest term is what
// bounds the step. Small enough to state in docs/methodology.md; no LibTorch.

#include <nlohmann/json.hpp>
#include <string>

#include "core/cells/cell.hpp"
#include "core/cells/modes.hpp"
#include "core/costmodel/bound.hpp"
#include "core/costmodel/machine_profile.hpp"
#include "core/costmodel/step_anatomy.hpp"

namespace crossover {

/// Where a step's time goes, predicted, in seconds per step: the terms a result records of its
/// prediction (core/records/result_parts.hpp, predicted_dispatch_seconds ...).
struct StepTerms {
  double dispatch = 0.0;  ///< operators whose fixed cost is their largest term
  double compute = 0.0;   ///< operators whose FLOPs at the throughput for their size are
  double memory = 0.0;    ///< operators whose bytes at the bandwidth are
  double transfer = 0.0;  ///< the host-to-device copy of the batch
  double loader = 0.0;    ///< waiting for the batch
};

/// A step predicted: its terms, and what the model knows besides them.
struct StepPrediction : StepTerms {
  double dispatched_ops = 0.0;  ///< how many operators the dispatch term counts
  double arithmetic = 0.0;      ///< every operator's FLOPs at the throughput, whatever bounds it
  double traffic = 0.0;         ///< every operator's bytes at the bandwidth, whatever bounds it
  /// What one batch costs the host's CPU to make (its operators), whether or not it is waited for.
  double batch = 0.0;
  /// On a GPU: the shorter of the host's side and the device's, which runs beside the longer one
  /// and so is not part of the step.
  double hidden = 0.0;
  /// Loader workers make batches slower than the step uses them: `loader` is only the part of
  /// their time the step does not hide, and the loader bounds the step.
  bool loader_exposed = false;

  double step() const { return dispatch + compute + memory + transfer + loader - hidden; }
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
  /// operators are the device's. Otherwise the host makes the batch: the data phase's operators
  /// run on `host`.
  bool batch_on_device = true;
  /// The predicted machine's CPU, which makes a batch on the host (none: such a batch is free).
  const DeviceProfile* host = nullptr;
  /// DataLoader worker threads: 0, the training thread makes each batch; k, they make a batch
  /// apiece at once beside the step (one batch's cost over k per step).
  int loader_workers = 0;
  /// A CPU step whose intra-op threads use every core (threads other than 1): loader workers
  /// find no idle core, and their batches add to the step instead of running beside it.
  bool cores_busy = false;
  /// The cell's precision: on a GPU with tensor cores, what its products and convolutions run
  /// in (math_top_rate).
  Precision precision = Precision::kFp32;
};

/// The top rate a GPU runs a group's FLOPs at, as LibTorch's defaults have it: convolutions in
/// TF32 where the card has it (cuDNN's allow_tf32 is on by default), else FP32, at the card's
/// convolution rates where it has them; matrix products in TF32 only with precision tf32; both in
/// BF16 with precision bf16 (autocast); 0 for the FP32 ladder (a CPU, a card that knows none of
/// these rates).
double math_top_rate(Math math, const DeviceProfile& device, const StepContext& context);

/// A step predicted on `device`.
StepPrediction predict_step(const StepAnatomy& anatomy, const DeviceProfile& device,
                            const StepContext& context);

/// An epoch of `steps` steps, as the runner times it: the steps, then one synchronisation.
double predict_epoch(const StepPrediction& step, double steps, const DeviceProfile& device);

/// What the model knows of a cell's step besides its anatomy: on a GPU or not, pinned copies,
/// graph execution, where the batch is cut (no host CPU).
StepContext context_of(const Cell& cell);
/// The same, with the CPU of `profile` that makes a batch on the host.
StepContext context_of(const Cell& cell, const MachineProfile& profile);

/// The device of `profile` a cell runs on: its GPU for a CUDA cell (none when the profile has no
/// GPU), its CPU at the cell's threads otherwise.
const DeviceProfile* device_of(const MachineProfile& profile, const Cell& cell);

/// A prediction's band as a factor each way, 1 + `error` (a result's prediction_error); 1 (no
/// band) where `error` is not one a band can be (from 0 to 1e6, core/costmodel/machine_profile):
/// one read from a file outside that is none.
double band_factor(double error);

/// "1.1-2.3 ms, predicted, 80 %": a predicted time with its band (factor - 1 as `error`), or
/// "1.6 ms, predicted (no validated band)".
std::string predicted_interval_text(double seconds, double error);

/// The bound in a few words with the numbers behind it: "dispatch-bound (96 operators x 13 us ~
/// 1.25 ms, against 5 us of arithmetic)", "compute-bound (1.4 GFLOP at 80 GFLOP/s ~ 17.5 ms)".
std::string bound_text(const StepPrediction& step, const StepAnatomy& anatomy);

}  // namespace crossover
