#pragma once
// A multi-layer perceptron: Linear layers with ReLU between them (none after the last). Input is
// flattened first, so it takes images as well as rows.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace crossover {

/// Layer widths from input to output, e.g. {4, 64, 32, 16, 3} for seed 001's Iris network.
/// Cloneable, so that DataParallel can replicate it.
class MlpImpl : public torch::nn::Cloneable<MlpImpl> {
 public:
  explicit MlpImpl(std::vector<std::int64_t> sizes);
  void reset() override;
  torch::Tensor forward(torch::Tensor x);

 private:
  std::vector<std::int64_t> sizes_;
  std::vector<torch::nn::Linear> layers_;
};
TORCH_MODULE(Mlp);

}  // namespace crossover
