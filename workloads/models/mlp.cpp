#include "workloads/models/mlp.hpp"

namespace crossover {

MlpImpl::MlpImpl(std::vector<std::int64_t> sizes) : sizes_(std::move(sizes)) {
  TORCH_CHECK(sizes_.size() >= 2, "an MLP needs an input and an output width");
  reset();
}

void MlpImpl::reset() {
  layers_.clear();
  for (std::size_t i = 0; i + 1 < sizes_.size(); ++i) {
    layers_.push_back(
        register_module("fc" + std::to_string(i + 1), torch::nn::Linear(sizes_[i], sizes_[i + 1])));
  }
}

torch::Tensor MlpImpl::forward(torch::Tensor x) {
  x = x.flatten(1);  // images [N, C, H, W] become [N, C*H*W]; tabular rows stay as they are
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    x = layers_[i]->forward(x);
    if (i + 1 < layers_.size()) x = torch::relu(x);
  }
  return x;
}

}  // namespace crossover
