#include "core/records/result_parts.hpp"

namespace crossover {

Anatomy Anatomy::of(const StepAnatomy& a, double seconds) {
  const auto ops = [&](Phase p) { return static_cast<std::int64_t>(a.ops(p)); };
  Anatomy r;
  r.step_ops_data = ops(Phase::kData) + ops(Phase::kCopy);
  r.step_ops_forward = ops(Phase::kForward);
  r.step_ops_backward = ops(Phase::kBackward);
  r.step_ops_optimizer = ops(Phase::kOptimizer);
  r.step_flops = a.flops();
  r.step_bytes = a.bytes();
  r.step_h2d_bytes = a.h2d_bytes;
  r.step_loader_seconds = a.loader_seconds;
  r.step_loader_share = a.step_seconds > 0.0 ? a.loader_seconds / a.step_seconds : 0.0;
  r.step_batch_seconds = a.loader_seconds;  // without loader workers, what one batch costs
  r.anatomy_seconds = seconds;
  r.step_op_groups = groups_to_rows(a.groups);
  return r;
}

StepAnatomy Anatomy::step() const {
  StepAnatomy a;
  if (empty()) return a;
  a.groups = groups_from_rows(step_op_groups);
  a.h2d_bytes = step_h2d_bytes;
  a.loader_seconds = step_loader_seconds;
  a.batch_seconds = step_batch_seconds;
  a.step_seconds = step_loader_share > 0.0 ? step_loader_seconds / step_loader_share : 0.0;
  return a;
}

void Prediction::set(const StepPrediction& p, double steps_per_epoch, const DeviceProfile& device,
                     const std::string& profile) {
  bound = p.bound();
  predicted_step_seconds = p.step();
  predicted_epoch_seconds = predict_epoch(p, steps_per_epoch, device);
  terms = p;  // its terms: what is recorded
  prediction_profile = profile;
}

StepPrediction Prediction::step(double ops) const {
  StepPrediction p;
  static_cast<StepTerms&>(p) = terms;
  p.dispatched_ops = p.dispatch > 0.0 ? ops : 0.0;
  p.arithmetic = p.compute;
  return p;
}

nlohmann::ordered_json Prediction::terms_json() const {
  return {{"predicted_dispatch_seconds", terms.dispatch},
          {"predicted_compute_seconds", terms.compute},
          {"predicted_memory_seconds", terms.memory},
          {"predicted_transfer_seconds", terms.transfer},
          {"predicted_loader_seconds", terms.loader}};
}

}  // namespace crossover
