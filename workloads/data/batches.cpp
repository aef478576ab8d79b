#include "workloads/data/batches.hpp"

#include <algorithm>
#include <optional>

#include "workloads/data/prefetch.hpp"

namespace crossover {
namespace {

std::int64_t steps(std::int64_t rows, std::int64_t batch) { return (rows + batch - 1) / batch; }

torch::Tensor move(const torch::Tensor& t, const torch::Device& device, bool pinned) {
  if (t.device() == device) return t;
  return t.to(device, /*non_blocking=*/pinned);
}

// Rows `index` of `from`, in a page-locked tensor from LibTorch's caching host allocator.
torch::Tensor gather_pinned(const torch::Tensor& from, const torch::Tensor& index) {
  std::vector<std::int64_t> sizes = from.sizes().vec();
  sizes[0] = index.size(0);
  torch::Tensor out = torch::empty(sizes, from.options().pinned_memory(true));
  torch::index_select_out(out, from, 0, index);
  return out;
}

// Rows `index` of `from` written into `out` (of their shape), without a tensor between where the
// types and layout allow it.
void gather_into(torch::Tensor& out, const torch::Tensor& from, const torch::Tensor& index) {
  if (out.scalar_type() == from.scalar_type() && out.is_contiguous()) {
    torch::index_select_out(out, from, 0, index);
  } else {
    out.copy_(from.index_select(0, index));
  }
}

// What both sources share: the device, pinning, the split's size and the batch size.
class BatchSourceBase : public BatchSource {
 public:
  BatchSourceBase(const TensorData& data, const DataPath& path, const torch::Device& device)
      : device_(device),
        pin_(path.pin_memory),
        rows_(data.x_train.size(0)),
        batch_(path.batch_size <= 0 ? rows_ : std::min(path.batch_size, rows_)) {}

  void to_device(torch::Tensor& x, torch::Tensor& y) override {
    x = move(x, device_, pin_);
    y = move(y, device_, pin_);
  }

  std::int64_t steps_per_epoch() const override { return steps(rows_, batch_); }

 protected:
  torch::Device device_;
  bool pin_;
  std::int64_t rows_;
  std::int64_t batch_;
};

class TensorBatches : public BatchSourceBase {
 public:
  TensorBatches(const TensorData& data, const DataPath& path, const torch::Device& device)
      : BatchSourceBase(data, path, device) {
    // Normalised once, before any clock runs: this is the fast path.
    x_ = to_features(data.x_train, data.mean, data.stdev);
    y_ = data.y_train;
    if (path.placement == Placement::kDevice) {
      x_ = x_.to(device_);
      y_ = y_.to(device_);
    } else if (pin_) {
      x_ = x_.pin_memory();
      y_ = y_.pin_memory();
    }
  }

  void start_epoch() override {
    next_ = 0;
    // One batch of everything needs no shuffle: the order of rows does not change the step.
    if (batch_ < rows_) {
      order_ =
          torch::randperm(rows_, torch::TensorOptions().dtype(torch::kLong).device(x_.device()));
    }
  }

  bool next(torch::Tensor& x, torch::Tensor& y) override {
    if (next_ >= rows_) return false;
    if (batch_ == rows_) {
      x = x_;
      y = y_;
    } else {
      const torch::Tensor index = order_.slice(0, next_, std::min(next_ + batch_, rows_));
      if (pin_ && x_.device() != device_) {
        // Gathered straight into page-locked memory: one copy, not a pageable gather and then a
        // pinning copy. LibTorch's caching host allocator hands the same blocks out again once
        // the non_blocking copies that read them have finished, so nothing is allocated per batch.
        x = gather_pinned(x_, index);
        y = gather_pinned(y_, index);
      } else {
        x = x_.index_select(0, index);
        y = y_.index_select(0, index);
      }
    }
    next_ += batch_;
    return true;
  }

  std::int64_t rows_gathered_in_place() const override {
    if (batch_ == rows_ || x_.device() != device_) return -1;
    return std::max<std::int64_t>(0, std::min(batch_, rows_ - next_));
  }

  void next_into(torch::Tensor& x, torch::Tensor& y) override {
    const torch::Tensor index = order_.slice(0, next_, std::min(next_ + batch_, rows_));
    gather_into(x, x_, index);
    gather_into(y, y_, index);
    next_ += batch_;
  }

 private:
  torch::Tensor x_, y_, order_;
  std::int64_t next_ = 0;
};

// One sample at a time, normalised as it is fetched, like a torchvision transform.
class SampleDataset : public torch::data::datasets::Dataset<SampleDataset> {
 public:
  SampleDataset(torch::Tensor x, torch::Tensor y, const std::vector<double>& mean,
                const std::vector<double>& stdev)
      : x_(std::move(x)), y_(std::move(y)), features_(mean, stdev) {}

  torch::data::Example<> get(std::size_t index) override {
    const auto i = static_cast<std::int64_t>(index);
    return {features_(x_[i]), y_[i]};
  }

  torch::optional<std::size_t> size() const override {
    return static_cast<std::size_t>(x_.size(0));
  }

 private:
  torch::Tensor x_, y_;
  FeatureScaler features_;
};

class LoaderBatches : public BatchSourceBase {
 public:
  LoaderBatches(const TensorData& data, const DataPath& path, const torch::Device& device)
      : BatchSourceBase(data, path, device) {
    loader_ = torch::data::make_data_loader(
        SampleDataset(data.x_train, data.y_train, data.mean, data.stdev)
            .map(torch::data::transforms::Stack<>()),
        torch::data::samplers::RandomSampler(static_cast<std::size_t>(rows_)),
        torch::data::DataLoaderOptions(static_cast<std::size_t>(batch_))
            .workers(static_cast<std::size_t>(path.num_workers)));
  }

  void start_epoch() override {
    pinned_.reset();  // its thread reads the old iterator: stop it first
    iterator_.emplace(loader_->begin());
    first_ = true;
    // Pinning runs on a thread of its own, two batches ahead, as in PyTorch's DataLoader: the
    // training thread only issues the non_blocking copies.
    if (pin_) pinned_ = std::make_unique<Prefetcher<Batch>>([this] { return take(true); }, 2);
  }

  bool next(torch::Tensor& x, torch::Tensor& y) override {
    std::optional<Batch> batch = pinned_ ? pinned_->pop() : take(false);
    if (!batch) return false;
    x = std::move(batch->first);
    y = std::move(batch->second);
    return true;
  }

 private:
  using Loader = torch::data::StatelessDataLoader<
      torch::data::datasets::MapDataset<SampleDataset, torch::data::transforms::Stack<>>,
      torch::data::samplers::RandomSampler>;
  using Batch = std::pair<torch::Tensor, torch::Tensor>;

  // The loader's next batch, page-locked when `pin`; std::nullopt at the end of the epoch.
  // LibTorch's iterator makes the next batch when it is advanced: it is advanced here, before the
  // batch is taken, so that each step's data phase makes that step's own batch (and the last
  // step of an epoch is no different from the others).
  std::optional<Batch> take(bool pin) {
    if (!iterator_) return std::nullopt;
    if (*iterator_ == loader_->end()) return std::nullopt;
    if (!first_) ++*iterator_;
    first_ = false;
    if (*iterator_ == loader_->end()) return std::nullopt;
    torch::data::Example<> batch = **iterator_;
    if (pin) return Batch(batch.data.pin_memory(), batch.target.pin_memory());
    return Batch(std::move(batch.data), std::move(batch.target));
  }

  std::unique_ptr<Loader> loader_;
  std::optional<torch::data::Iterator<Loader::BatchType>> iterator_;
  bool first_ = true;  // the iterator stands on the epoch's first batch, not yet taken
  std::unique_ptr<Prefetcher<Batch>> pinned_;  // after iterator_: stopped before it goes
};

}  // namespace

std::unique_ptr<BatchSource> make_batches(const TensorData& data, const DataPath& path,
                                          const torch::Device& device) {
  if (path.loader == Loader::kTensor) return std::make_unique<TensorBatches>(data, path, device);
  if (path.loader == Loader::kDataLoader)
    return std::make_unique<LoaderBatches>(data, path, device);
  throw std::invalid_argument("unknown loader \"" + text_of(path.loader) +
                              "\"; expected \"tensor\" or \"dataloader\"");
}

}  // namespace crossover
