#include "workloads/data/data.hpp"

#include <numeric>
#include <random>

#include "workloads/data/catalog.hpp"

namespace crossover {

std::vector<std::int64_t> seeded_permutation(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (std::int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

void resample_training(TensorData& data, std::int64_t rows, std::int64_t seed) {
  if (rows == kFull) return;
  const std::int64_t have = data.x_train.size(0);
  std::vector<std::int64_t> index;
  // A seed stream of its own, so resampling does not change the train/test split's.
  const auto stream = static_cast<std::uint64_t>(seed) * 0x9E3779B97F4A7C15ULL + 1;
  if (rows <= have) {
    const auto order = seeded_permutation(have, stream);
    index.assign(order.begin(), order.begin() + rows);
  } else {
    index.resize(static_cast<std::size_t>(have));
    std::iota(index.begin(), index.end(), 0);
    std::mt19937_64 rng(stream);
    std::uniform_int_distribution<std::int64_t> any(0, have - 1);
    while (static_cast<std::int64_t>(index.size()) < rows) index.push_back(any(rng));
  }
  const torch::Tensor picked = torch::tensor(index, torch::kLong);
  data.x_train = data.x_train.index_select(0, picked);
  data.y_train = data.y_train.index_select(0, picked);
}

FeatureScaler::FeatureScaler(const std::vector<double>& mean, const std::vector<double>& stdev) {
  if (mean.empty()) return;
  // (x / 255 - mean) / stdev as one multiply-add: x * scale + shift.
  std::vector<float> scale, shift;
  for (std::size_t c = 0; c < mean.size(); ++c) {
    scale.push_back(static_cast<float>(1.0 / (255.0 * stdev[c])));
    shift.push_back(static_cast<float>(-mean[c] / stdev[c]));
  }
  for (std::size_t dims = 1; dims <= kMostDims; ++dims) {
    // Channels are dimension 1 of a batch [N, C, H, W], dimension 0 of one image [C, H, W].
    std::vector<std::int64_t> shape(dims, 1);
    shape[dims == 4 ? 1 : 0] = static_cast<std::int64_t>(mean.size());
    scale_[dims] = torch::tensor(scale).view(shape);
    shift_[dims] = torch::tensor(shift).view(shape);
  }
}

torch::Tensor FeatureScaler::operator()(const torch::Tensor& x) const {
  if (x.scalar_type() != torch::kByte) return x;
  const auto dims = static_cast<std::size_t>(x.dim());
  TORCH_CHECK(dims <= kMostDims, "images of at most ", kMostDims, " dimensions, not ", dims);
  if (dims == 0 || !scale_[dims].defined()) return x.to(torch::kFloat).div_(255.0);
  // One operator call: the uint8 pixels promote to float inside it.
  if (x.device() == scale_[dims].device()) return torch::addcmul(shift_[dims], x, scale_[dims]);
  return torch::addcmul(shift_[dims].to(x.device()), x, scale_[dims].to(x.device()));
}

torch::Tensor to_features(const torch::Tensor& x, const std::vector<double>& mean,
                          const std::vector<double>& stdev) {
  return FeatureScaler(mean, stdev)(x);
}

}  // namespace crossover
