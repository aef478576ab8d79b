#include "core/records/prediction.hpp"

#include <algorithm>

namespace crossover {

StepAnatomy anatomy_of(const Result& r) {
  StepAnatomy a;
  if (r.step_op_groups.empty()) return a;
  a.groups = groups_from_rows(r.step_op_groups);
  a.h2d_bytes = r.step_h2d_bytes;
  a.loader_seconds = r.step_loader_seconds;
  a.batch_seconds = r.step_batch_seconds;
  a.step_seconds = r.step_loader_share > 0.0 ? r.step_loader_seconds / r.step_loader_share : 0.0;
  return a;
}

void apply_prediction(Result& r, const MachineProfile& target) {
  const DeviceProfile* device = device_of(target, r.cell);
  if (device == nullptr || r.step_op_groups.empty()) return;
  const StepPrediction p = predict_step(anatomy_of(r), *device, context_of(r.cell, target));
  r.bound = p.bound();
  r.predicted_step_seconds = p.step();
  r.predicted_epoch_seconds =
      predict_epoch(p, static_cast<double>(std::max<std::int64_t>(r.steps_per_epoch, 1)), *device);
  r.predicted_dispatch_seconds = p.dispatch;
  r.predicted_compute_seconds = p.compute;
  r.predicted_memory_seconds = p.memory;
  r.predicted_transfer_seconds = p.transfer;
  r.predicted_loader_seconds = p.loader;
  r.prediction_profile = target.name;
}

nlohmann::ordered_json predicted_terms_json(const Result& r) {
  return {{"predicted_dispatch_seconds", r.predicted_dispatch_seconds},
          {"predicted_compute_seconds", r.predicted_compute_seconds},
          {"predicted_memory_seconds", r.predicted_memory_seconds},
          {"predicted_transfer_seconds", r.predicted_transfer_seconds},
          {"predicted_loader_seconds", r.predicted_loader_seconds}};
}

double band_error(const Result& r, const MachineProfile& target) {
  const PredictionBand band = target.band(text_of(device_kind(r.cell.device)), text_of(r.bound));
  return band.factor > 1.0 ? band.factor - 1.0 : 0.0;
}

std::optional<Result> predicted_result(const Result& anatomised, const MachineProfile& target) {
  Result r = anatomised;
  apply_prediction(r, target);
  if (!(r.predicted_epoch_seconds > 0.0)) return std::nullopt;
  r.prediction_error = band_error(r, target);
  r.epoch_seconds = r.predicted_epoch_seconds;
  r.step_seconds = r.predicted_step_seconds;
  r.steps_per_second = static_cast<double>(r.steps_per_epoch) / r.epoch_seconds;
  r.samples_per_second = static_cast<double>(r.train_rows) / r.epoch_seconds;
  return r;
}

}  // namespace crossover
