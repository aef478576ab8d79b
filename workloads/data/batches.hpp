#pragma once
// The data path, a grid axis: how each training batch is made and reaches the device.
//  - "tensor": the whole data set normalised once into one tensor, on the device (seed 004's
//    "create on the device") or on the host; each batch is cut by a seeded shuffled index.
//  - "dataloader": LibTorch's torch::data pipeline over a per-sample data set that normalises each
//    sample as it is fetched, `num_workers` worker threads (LibTorch's workers are threads, not
//    processes as in Python), batches collated per step — what the seeds' Python code does.
// With `pin_memory`, host batches are staged in page-locked memory and copied with
// non_blocking=true (LibTorch's DataLoader has no such option): the tensor loader gathers each
// batch straight into page-locked memory; the DataLoader's batches are pinned on a thread of their
// own, two batches ahead, as PyTorch's pin-memory thread does. Blocks come from LibTorch's caching
// host allocator, reused once the copies that read them have finished. Pinning needs CUDA.

#include <memory>
#include <stdexcept>
#include <string>

#include "core/cells/modes.hpp"
#include "workloads/data/data.hpp"

namespace crossover {

/// How batches are made and moved.
struct DataPath {
  Loader loader = Loader::kTensor;
  Placement placement = Placement::kDevice;  ///< tensor loader: where the data set lives
  int num_workers = 0;                       ///< dataloader worker threads
  bool pin_memory = false;
  std::int64_t batch_size = -1;  ///< kFull: the whole training split
};

/// A source of training batches for one epoch at a time.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  /// Starts an epoch: a fresh shuffle from the global generator (seeded by the workload).
  virtual void start_epoch() = 0;
  /// The next batch where it is made (host batches staged in pinned memory when asked);
  /// false at the end of the epoch.
  virtual bool next(torch::Tensor& x, torch::Tensor& y) = 0;
  /// Moves a batch from next() to the device (non_blocking from pinned memory); a no-op for
  /// batches already there.
  virtual void to_device(torch::Tensor& x, torch::Tensor& y) = 0;
  virtual std::int64_t steps_per_epoch() const = 0;
  /// Where the source can gather its next batch straight into tensors on the device (the tensor
  /// loader with its data there, shuffled in batches): the rows that batch holds, 0 at the end of
  /// the epoch. -1 where it cannot, and next() must be called.
  virtual std::int64_t rows_gathered_in_place() const { return -1; }
  /// The next batch gathered into `x` and `y`, of rows_gathered_in_place() rows on the device: no
  /// batch tensor and no copy, where a CUDA graph's captured inputs take it.
  virtual void next_into(torch::Tensor& /*x*/, torch::Tensor& /*y*/) {
    throw std::logic_error("this batch source cannot gather in place");
  }
};

/// The batch source `path` describes, over `data`'s training split.
std::unique_ptr<BatchSource> make_batches(const TensorData& data, const DataPath& path,
                                          const torch::Device& device);

}  // namespace crossover
