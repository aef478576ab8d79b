#include "core/records/result_parts.hpp"

#include <utility>

#include "core/stats/stats.hpp"

namespace crossover {

Anatomy Anatomy::of(const StepAnatomy& a, double seconds) {
  const auto ops = [&](Phase p) { return static_cast<std::int64_t>(a.ops(p)); };
  Anatomy r;
  r.step_ops_data = ops(Phase::kData) + ops(Phase::kCopy);
  r.step_ops_forward = ops(Phase::kForward);
  r.step_ops_backward = ops(Phase::kBackward);
  r.step_ops_optimizer = ops(Phase::kOptimizer);
  r.step_flops = a.flops();
  r.step_flops_rule = kFlopsRule;
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

namespace {

// A count's median, per step and spread ((max - min) / median) over its epochs.
void count_statistics(const std::vector<double>& samples, double steps_per_epoch, double& per_epoch,
                      double& per_step, double& spread) {
  per_epoch = per_step = spread = 0.0;
  if (samples.empty()) return;
  const Summary s = summarize(samples);
  per_epoch = s.median;
  per_step = steps_per_epoch > 0.0 ? s.median / steps_per_epoch : s.median;
  spread = s.median > 0.0 ? (s.max - s.min) / s.median : 0.0;
}

}  // namespace

void Counts::set_samples(std::vector<double> instructions, std::vector<double> cycles,
                         double steps_per_epoch) {
  instructions_samples = std::move(instructions);
  estimated_cycles_samples = std::move(cycles);
  count_statistics(instructions_samples, steps_per_epoch, instructions_per_epoch,
                   instructions_per_step, instructions_spread);
  count_statistics(estimated_cycles_samples, steps_per_epoch, estimated_cycles_per_epoch,
                   estimated_cycles_per_step, estimated_cycles_spread);
}

}  // namespace crossover
