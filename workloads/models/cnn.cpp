#include "workloads/models/cnn.hpp"

#include "workloads/data/catalog.hpp"

namespace crossover {

// The shape the catalog declares (Seed003CnnShape), which counts its FLOPs too.
void Seed003CnnImpl::reset() {
  using S = Seed003CnnShape;
  const auto conv = [](std::int64_t in, std::int64_t out) {
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, S::kKernel));
  };
  conv1_ = register_module("conv1", conv(S::kChannels[0], S::kChannels[1]));
  conv2_ = register_module("conv2", conv(S::kChannels[1], S::kChannels[2]));
  fc1_ = register_module("fc1", torch::nn::Linear(S::kDense[0], S::kDense[1]));
  fc2_ = register_module("fc2", torch::nn::Linear(S::kDense[1], S::kDense[2]));
  out_ = register_module("out", torch::nn::Linear(S::kDense[2], S::kDense[3]));
}

torch::Tensor Seed003CnnImpl::forward(torch::Tensor x) {
  x = torch::max_pool2d(torch::relu(conv1_->forward(x)), 2, 2);
  x = torch::max_pool2d(torch::relu(conv2_->forward(x)), 2, 2);
  x = torch::relu(fc1_->forward(x.flatten(1)));
  x = torch::relu(fc2_->forward(x));
  return out_->forward(x);
}

}  // namespace crossover
