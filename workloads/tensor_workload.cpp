#include "workloads/tensor_workload.hpp"

#include <cmath>

namespace crossover {

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

TensorWorkload::TensorWorkload(TensorData data, ModelFactory make_model, TrainingSpec spec,
                               torch::Device device)
    : data_(std::move(data)),
      make_model_(std::move(make_model)),
      spec_(std::move(spec)),
      device_(device) {
  const std::int64_t rows = data_.x_train.size(0);
  TORCH_CHECK(rows > 0, "the training split is empty");
  batch_size_ = spec_.batch_size <= 0 ? rows : std::min(spec_.batch_size, rows);
  facts_.data_source = data_.data_source;
  facts_.train_rows = rows;
  facts_.test_rows = data_.x_test.size(0);
  facts_.steps_per_epoch = (rows + batch_size_ - 1) / batch_size_;
  facts_.metric = spec_.loss == "mse" ? "rmse" : "accuracy";
  // Seed 004's tip: create the data on the device once, never copy it inside the loop.
  data_.x_train = data_.x_train.to(device_);
  data_.y_train = data_.y_train.to(device_);
  data_.x_test = data_.x_test.to(device_);
  data_.y_test = data_.y_test.to(device_);
}

void TensorWorkload::reset(std::int64_t seed) {
  // Build on the CPU from the seed, then move: the same initial weights on every device.
  torch::manual_seed(static_cast<std::uint64_t>(seed));
  model_ = make_model_();
  model_.ptr()->to(device_);
  optimizer_ =
      make_optimizer(spec_.optimizer, model_.ptr()->parameters(), spec_.lr, spec_.momentum);
}

torch::Tensor TensorWorkload::loss(const torch::Tensor& output, const torch::Tensor& target) const {
  if (spec_.loss == "mse") return torch::mse_loss(output, target);
  return torch::nn::functional::cross_entropy(output, target);
}

torch::Tensor TensorWorkload::train_epoch() {
  TORCH_CHECK(optimizer_ != nullptr, "train_epoch() before reset()");
  model_.ptr()->train();
  const std::int64_t rows = facts_.train_rows;
  if (facts_.steps_per_epoch == 1) {
    optimizer_->zero_grad();
    torch::Tensor l = loss(model_.forward(data_.x_train), data_.y_train);
    l.backward();
    optimizer_->step();
    return l.detach();
  }
  const torch::Tensor order =
      torch::randperm(rows, torch::TensorOptions().dtype(torch::kLong).device(device_));
  torch::Tensor total = torch::zeros({}, torch::TensorOptions().device(device_));
  for (std::int64_t start = 0; start < rows; start += batch_size_) {
    const torch::Tensor index = order.slice(0, start, std::min(start + batch_size_, rows));
    optimizer_->zero_grad();
    torch::Tensor l = loss(model_.forward(data_.x_train.index_select(0, index)),
                           data_.y_train.index_select(0, index));
    l.backward();
    optimizer_->step();
    total += l.detach();  // stays on the device: no sync inside the loop
  }
  return total / static_cast<double>(facts_.steps_per_epoch);
}

double TensorWorkload::evaluate() {
  torch::NoGradGuard no_grad;
  model_.ptr()->eval();
  const torch::Tensor output = model_.forward(data_.x_test);
  if (spec_.loss == "mse") return std::sqrt(torch::mse_loss(output, data_.y_test).item<double>());
  return output.argmax(1).eq(data_.y_test).to(torch::kFloat).mean().item<double>();
}

}  // namespace crossover
