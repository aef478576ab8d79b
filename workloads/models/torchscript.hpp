#pragma once
// A user's own model: a TorchScript module (torch.jit.save of a scripted or traced nn.Module) as
// a model crossover trains like its own, and the FLOPs of one training step estimated from the
// operators one sample runs.

#include <torch/script.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "workloads/data/data.hpp"

namespace crossover {

/// A loaded TorchScript module behind the C++ frontend's Module interface: its parameters and
/// buffers registered (the same tensors: what the optimiser updates is what the script runs),
/// train()/eval() and to() forwarded to the script, forward() its forward on one tensor.
class ScriptedModelImpl : public torch::nn::Module {
 public:
  /// Throws std::runtime_error when no parameter requires a gradient (nothing to train).
  explicit ScriptedModelImpl(torch::jit::Module module);
  /// The script's forward on `x`; throws c10::Error when it returns other than one tensor.
  torch::Tensor forward(torch::Tensor x);
  void train(bool on = true) override;
  void to(torch::Device device, torch::Dtype dtype, bool non_blocking = false) override;
  void to(torch::Dtype dtype, bool non_blocking = false) override;
  void to(torch::Device device, bool non_blocking = false) override;

 private:
  torch::jit::Module module_;
};
TORCH_MODULE(ScriptedModel);

/// torch::jit::load of `path` onto the CPU. Throws std::runtime_error with what to do for the
/// files people hand in by mistake: a missing file, a file that is no zip archive, a state_dict
/// saved with torch.save (an archive without the code/ of a scripted module), an archive newer
/// than this LibTorch reads; and LibTorch's own message otherwise.
torch::jit::Module load_scripted_model(const std::string& path);

/// The training FLOPs of one sample, estimated: 3x the forward pass's matrix products (mm, addmm,
/// bmm, matmul, linear) and convolutions, counted from the shapes of the operators one sample of
/// `input_shape` runs through the module in eval mode (no other operator counts). 0 when the
/// module runs none of them.
double estimate_training_flops(torch::jit::Module& module,
                               const std::vector<std::int64_t>& input_shape);

/// The cell's model (`model`), loaded and checked against the cell
/// (workloads/models/user_model.cpp): trainable parameters, a forward that takes a batch of
/// `input_shape`, an output of [N, classes] or [N, outputs]. Throws std::runtime_error naming the
/// file and what to fix.
torch::jit::Module load_checked_model(const Cell& cell);

/// Synthetic samples for a user's model: `dataset_size` training rows (kFull: 1,024) and 256
/// test rows of `input_shape`; with `classes`, Gaussian samples around one random centre per class;
/// with `outputs`, targets a fixed random linear function of the sample plus noise. Seeded, the
/// same on every run.
TensorData synthetic_samples(const std::vector<std::int64_t>& input_shape, int classes, int outputs,
                             std::int64_t dataset_size, std::int64_t seed);

}  // namespace crossover
