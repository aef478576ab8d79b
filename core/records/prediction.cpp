#include "core/records/prediction.hpp"

#include <algorithm>

#include "core/text/text.hpp"

namespace crossover {

void apply_prediction(Result& r, const MachineProfile& target) {
  const DeviceProfile* device = device_of(target, r.cell);
  if (device == nullptr || r.anatomy.empty()) return;
  r.prediction.set(predict_step(r.anatomy.step(), *device, context_of(r.cell, target)),
                   static_cast<double>(std::max<std::int64_t>(r.steps_per_epoch, 1)), *device,
                   target.name);
}

double band_error(const Result& r, const MachineProfile& target) {
  const PredictionBand band = target.band(r.cell.device.kind, r.prediction.bound);
  return band.factor > 1.0 ? band.factor - 1.0 : 0.0;
}

std::optional<Result> predicted_result(const Result& anatomised, const MachineProfile& target) {
  Result r = anatomised;
  apply_prediction(r, target);
  if (!(r.prediction.predicted_epoch_seconds > 0.0)) return std::nullopt;
  r.prediction.prediction_error = band_error(r, target);
  r.epoch_seconds = r.prediction.predicted_epoch_seconds;
  r.step_seconds = r.prediction.predicted_step_seconds;
  r.steps_per_second = static_cast<double>(r.steps_per_epoch) / r.epoch_seconds;
  r.samples_per_second = static_cast<double>(r.train_rows) / r.epoch_seconds;
  return r;
}

Found predicted_past_ceiling(const Result& predicted) {
  const double ceiling = unit_ceiling(Unit::kEpochSeconds);
  if (predicted.epoch_seconds > 0.0 && predicted.epoch_seconds <= ceiling) return std::nullopt;
  return Problem("its predicted epoch, " + format_number(predicted.epoch_seconds) +
                 " s, is beyond a result's ceiling (" + format_number(ceiling) +
                 " s): its recorded anatomy cannot be a real step's");
}

}  // namespace crossover
