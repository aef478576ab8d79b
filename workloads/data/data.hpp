#pragma once
// A supervised data set held in tensors, and what every data set shares: the seeded
// `dataset_size` resampling of its training split and the normalisation of image pixels.

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/records/data_source.hpp"

namespace crossover {

/// Training and test tensors on the host. Images are uint8 [N, C, H, W] (normalised when
/// batches are made, as a transform would); tabular features are float [N, F].
/// Classification targets are int64 class indices [N]; regression targets float [N, 1].
struct TensorData {
  torch::Tensor x_train, y_train, x_test, y_test;
  std::vector<double> mean;   ///< per channel, applied to images after scaling to [0, 1]
  std::vector<double> stdev;  ///< empty: no normalisation
  DataSource data_source = DataSource::kNone;  ///< real, a synthetic stand-in, or generated
};

/// Seeded Fisher-Yates permutation of 0..n-1, the same on every machine.
std::vector<std::int64_t> seeded_permutation(std::int64_t n, std::uint64_t seed);

/// Resizes the training split to `rows` (kFull keeps it): fewer rows are a seeded subsample,
/// more rows keep every row and add rows drawn with replacement. The test split is untouched.
void resample_training(TensorData& data, std::int64_t rows, std::int64_t seed);

/// Float features: uint8 images scaled to [0, 1] and normalised per channel (torchvision's
/// ToTensor and Normalize, as one multiply-add: equal to theirs within float rounding); float
/// features pass through. The per-channel tensors are made once,
/// for a batch [N, C, H, W] and for one image [C, H, W] or [C, L], so that a DataLoader calling it
/// per sample, from several threads, pays for the arithmetic alone.
class FeatureScaler {
 public:
  /// No normalisation when `mean` is empty.
  FeatureScaler(const std::vector<double>& mean, const std::vector<double>& stdev);
  torch::Tensor operator()(const torch::Tensor& x) const;

 private:
  static constexpr std::size_t kMostDims = 4;
  // For x of d dimensions: 1 / (255 stdev) and -mean / stdev shaped to broadcast along its
  // channel dimension.
  std::array<torch::Tensor, kMostDims + 1> scale_, shift_;
};

/// FeatureScaler(mean, stdev)(x).
torch::Tensor to_features(const torch::Tensor& x, const std::vector<double>& mean,
                          const std::vector<double>& stdev);

}  // namespace crossover
