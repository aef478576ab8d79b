#include "workloads/models/cnn.hpp"

namespace crossover {

void Seed003CnnImpl::reset() {
  conv1_ = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 6, 5)));
  conv2_ = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(6, 12, 5)));
  fc1_ = register_module("fc1", torch::nn::Linear(12 * 4 * 4, 120));
  fc2_ = register_module("fc2", torch::nn::Linear(120, 60));
  out_ = register_module("out", torch::nn::Linear(60, 10));
}

torch::Tensor Seed003CnnImpl::forward(torch::Tensor x) {
  x = torch::max_pool2d(torch::relu(conv1_->forward(x)), 2, 2);
  x = torch::max_pool2d(torch::relu(conv2_->forward(x)), 2, 2);
  x = torch::relu(fc1_->forward(x.flatten(1)));
  x = torch::relu(fc2_->forward(x));
  return out_->forward(x);
}

}  // namespace crossover
