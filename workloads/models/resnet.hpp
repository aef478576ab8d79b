#pragma once
// ResNet-18 as torchvision lays it out (7x7 stride-2 stem, max-pool, four stages of two
// BasicBlocks, global average pool), with seed 002's Linear(512, 10) head. Written with the C++
// frontend; trained from scratch, since ImageNet weights cannot be downloaded here.

#include <torch/torch.h>

namespace crossover {

/// Two 3x3 convolutions with batch norm, and a 1x1 projection when the shape changes.
class BasicBlockImpl : public torch::nn::Cloneable<BasicBlockImpl> {
 public:
  BasicBlockImpl(std::int64_t in_planes, std::int64_t planes, std::int64_t stride);
  void reset() override;
  torch::Tensor forward(torch::Tensor x);

 private:
  std::int64_t in_planes_, planes_, stride_;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(BasicBlock);

/// ResNet-18 for 3-channel images and `classes` outputs.
class ResNet18Impl : public torch::nn::Cloneable<ResNet18Impl> {
 public:
  explicit ResNet18Impl(std::int64_t classes = 10) : classes_(classes) { reset(); }
  void reset() override;
  torch::Tensor forward(torch::Tensor x);

 private:
  std::int64_t classes_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::Sequential layers_{nullptr};
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(ResNet18);

}  // namespace crossover
