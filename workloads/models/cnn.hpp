#pragma once
// Seed 003's network (deeplizard, "PyTorch on the GPU"): for 1x28x28 images.

#include <torch/torch.h>

namespace crossover {

/// conv 1->6 k5, ReLU, 2x2 max-pool; conv 6->12 k5, ReLU, 2x2 max-pool; 192->120->60->10.
class Seed003CnnImpl : public torch::nn::Cloneable<Seed003CnnImpl> {
 public:
  Seed003CnnImpl() { reset(); }
  void reset() override;
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr}, out_{nullptr};
};
TORCH_MODULE(Seed003Cnn);

}  // namespace crossover
