#include "workloads/anatomy/step_probe.hpp"

#include <chrono>
#include <stdexcept>

#include "workloads/anatomy/op_cost.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

// Thrown by the observer once the recorded step has ended: the epoch is abandoned there.
struct ProbeDone {};

// Warm step, timed step, recorded step.
class ProbeObserver : public StepObserver {
 public:
  ProbeObserver(OperatorRecorder& recorder, const std::function<void()>& synchronize)
      : recorder_(recorder), synchronize_(synchronize) {}

  void phase_end(Phase phase) override {
    if (step_ == 1) {  // the timed step
      synchronize_();
      const Clock::time_point now = Clock::now();
      const double seconds = std::chrono::duration<double>(now - last_).count();
      timed_.step_seconds += seconds;
      if (phase == Phase::kData) timed_.loader_seconds += seconds;
      last_ = now;
    }
    if (step_ == 2) {  // the recorded step: its next phase begins
      if (phase == Phase::kOptimizer) {
        recorder_.enable(false);
        throw ProbeDone{};
      }
      recorder_.set_phase(static_cast<Phase>(static_cast<int>(phase) + 1));
    }
    if (phase != Phase::kOptimizer) return;
    ++step_;
    if (step_ == 1) {
      synchronize_();
      last_ = Clock::now();
    } else if (step_ == 2) {
      recorder_.set_phase(Phase::kData);
      recorder_.enable(true);
    }
  }

  const StepAnatomy& timed() const { return timed_; }
  int step() const { return step_; }

 private:
  OperatorRecorder& recorder_;
  const std::function<void()>& synchronize_;
  int step_ = 0;
  Clock::time_point last_;
  StepAnatomy timed_;  // its loader and step seconds
};

}  // namespace

StepAnatomy probe_step(Workload& workload, const std::function<void()>& synchronize) {
  OperatorRecorder recorder;
  ProbeObserver observer(recorder, synchronize);
  // Epochs of one step each take a call apiece; an empty training split never ends a step.
  for (int epoch = 0; epoch < 4 && observer.step() < 3; ++epoch) {
    try {
      workload.train_epoch(&observer);
    } catch (const ProbeDone&) {
      StepAnatomy anatomy = recorder.anatomy();
      anatomy.loader_seconds = observer.timed().loader_seconds;
      anatomy.step_seconds = observer.timed().step_seconds;
      return anatomy;
    }
  }
  throw std::runtime_error("the workload ended its epochs before three steps could be probed");
}

}  // namespace crossover
