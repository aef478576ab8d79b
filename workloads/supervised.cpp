#include "workloads/supervised.hpp"

#include <cmath>

namespace crossover {
namespace {

// Test batches bound the memory of evaluating a convolutional network on 10,000 images.
constexpr std::int64_t kEvaluationBatch = 1000;

}  // namespace

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name,
                                                        std::vector<torch::Tensor> parameters,
                                                        double lr, double momentum) {
  if (name == "adam") {
    return std::make_unique<torch::optim::Adam>(std::move(parameters),
                                                torch::optim::AdamOptions(lr));
  }
  if (name == "sgd") {
    return std::make_unique<torch::optim::SGD>(std::move(parameters),
                                               torch::optim::SGDOptions(lr).momentum(momentum));
  }
  throw std::invalid_argument("unknown optimizer \"" + name + "\"; expected \"sgd\" or \"adam\"");
}

SupervisedWorkload::SupervisedWorkload(TensorData data, ModelFactory make_model, TrainingSpec spec,
                                       DataPath path, torch::Device device, double flops_per_sample)
    : make_model_(std::move(make_model)), spec_(std::move(spec)), device_(device) {
  TORCH_CHECK(data.x_train.size(0) > 0, "the training split is empty");
  batches_ = make_batches(data, path, device_);
  x_test_ = to_features(data.x_test, data.mean, data.stdev).to(device_);
  y_test_ = data.y_test.to(device_);
  facts_.data_source = data.data_source;
  facts_.train_rows = data.x_train.size(0);
  facts_.test_rows = data.x_test.size(0);
  facts_.steps_per_epoch = batches_->steps_per_epoch();
  facts_.metric = spec_.loss == "mse" ? "rmse" : "accuracy";
  facts_.flops_per_sample = flops_per_sample;
}

void SupervisedWorkload::reset(std::int64_t seed) {
  // Build on the CPU from the seed, then move: the same initial weights on every device.
  torch::manual_seed(static_cast<std::uint64_t>(seed));
  model_ = make_model_();
  model_.ptr()->to(device_);
  optimizer_ =
      make_optimizer(spec_.optimizer, model_.ptr()->parameters(), spec_.lr, spec_.momentum);
}

torch::Tensor SupervisedWorkload::loss(const torch::Tensor& output,
                                       const torch::Tensor& target) const {
  if (spec_.loss == "mse") return torch::mse_loss(output, target);
  return torch::nn::functional::cross_entropy(output, target);
}

torch::Tensor SupervisedWorkload::train_epoch(StepObserver* observer) {
  const auto end = [observer](Phase phase) {
    if (observer != nullptr) observer->phase_end(phase);
  };
  TORCH_CHECK(optimizer_ != nullptr, "train_epoch() before reset()");
  model_.ptr()->train();
  torch::Tensor total = torch::zeros({}, torch::TensorOptions().device(device_));
  std::int64_t count = 0;
  torch::Tensor x, y;
  batches_->start_epoch();
  while (batches_->next(x, y)) {
    end(Phase::kData);
    batches_->to_device(x, y);
    end(Phase::kCopy);
    optimizer_->zero_grad();
    torch::Tensor l = loss(model_.forward(x), y);
    end(Phase::kForward);
    l.backward();
    end(Phase::kBackward);
    optimizer_->step();
    total += l.detach();  // stays on the device: no sync inside the loop
    ++count;
    end(Phase::kOptimizer);
  }
  return total / static_cast<double>(std::max<std::int64_t>(count, 1));
}

double SupervisedWorkload::evaluate() {
  torch::NoGradGuard no_grad;
  model_.ptr()->eval();
  const std::int64_t rows = x_test_.size(0);
  double squared_error = 0.0;
  std::int64_t correct = 0;
  for (std::int64_t start = 0; start < rows; start += kEvaluationBatch) {
    const std::int64_t end = std::min(start + kEvaluationBatch, rows);
    const torch::Tensor output = model_.forward(x_test_.slice(0, start, end));
    const torch::Tensor target = y_test_.slice(0, start, end);
    if (spec_.loss == "mse") {
      squared_error += torch::mse_loss(output, target, torch::Reduction::Sum).item<double>();
    } else {
      correct += output.argmax(1).eq(target).sum().item<std::int64_t>();
    }
  }
  if (spec_.loss == "mse") return std::sqrt(squared_error / static_cast<double>(rows));
  return static_cast<double>(correct) / static_cast<double>(rows);
}

}  // namespace crossover
