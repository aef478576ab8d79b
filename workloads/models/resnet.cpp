#include "workloads/models/resnet.hpp"

#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride,
                       std::int64_t padding) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(false));
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(std::int64_t in_planes, std::int64_t planes, std::int64_t stride)
    : in_planes_(in_planes), planes_(planes), stride_(stride) {
  reset();
}

void BasicBlockImpl::reset() {
  conv1_ = register_module("conv1", conv(in_planes_, planes_, 3, stride_, 1));
  conv2_ = register_module("conv2", conv(planes_, planes_, 3, 1, 1));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(planes_));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(planes_));
  downsample_ = nullptr;
  if (stride_ != 1 || in_planes_ != planes_) {
    downsample_ = register_module("downsample",
                                  torch::nn::Sequential(conv(in_planes_, planes_, 1, stride_, 0),
                                                        torch::nn::BatchNorm2d(planes_)));
  }
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x) {
  torch::Tensor out = torch::relu(bn1_->forward(conv1_->forward(x)));
  out = bn2_->forward(conv2_->forward(out));
  const torch::Tensor shortcut = downsample_.is_empty() ? x : downsample_->forward(x);
  return torch::relu(out + shortcut);
}

// The layout the catalog declares (ResNet18Shape), which counts its FLOPs too.
void ResNet18Impl::reset() {
  using S = ResNet18Shape;
  const std::int64_t stem = S::kStages.front();
  conv1_ = register_module("conv1", conv(3, stem, S::kStemKernel, 2, (S::kStemKernel - 1) / 2));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(stem));
  layers_ = register_module("layers", torch::nn::Sequential());
  fc_ = register_module("fc", torch::nn::Linear(S::kStages.back(), classes_));
  std::int64_t in_planes = stem;
  for (const std::int64_t planes : S::kStages) {
    for (int block = 0; block < S::kBlocksPerStage; ++block) {
      const std::int64_t stride = block == 0 && planes != stem ? 2 : 1;
      layers_->push_back(BasicBlock(in_planes, planes, stride));
      in_planes = planes;
    }
  }
}

torch::Tensor ResNet18Impl::forward(torch::Tensor x) {
  x = torch::relu(bn1_->forward(conv1_->forward(x)));
  x = torch::max_pool2d(x, 3, 2, 1);
  x = layers_->forward(x);
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return fc_->forward(x);
}

}  // namespace crossover
