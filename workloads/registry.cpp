// Builds the workload a cell names: the model of the network its catalog entry declares, its data
// set and its training settings.
#include <stdexcept>
#include <utility>

#include "workloads/data/catalog.hpp"
#include "workloads/data/datasets.hpp"
#include "workloads/data/images.hpp"
#include "workloads/data/tabular.hpp"
#include "workloads/models/cnn.hpp"
#include "workloads/models/mlp.hpp"
#include "workloads/models/resnet.hpp"
#include "workloads/models/torchscript.hpp"
#include "workloads/training/supervised.hpp"

namespace crossover {
namespace {

// The model of the network a workload declares (workloads/data/catalog.cpp).
SupervisedWorkload::ModelFactory model_for(const WorkloadInfo& info, const Cell& cell) {
  const auto mlp = [](std::vector<std::int64_t> sizes) {
    return [sizes] { return torch::nn::AnyModule(Mlp(sizes)); };
  };
  switch (info.network) {
    case Network::kMlp:
      return mlp(info.layers);
    case Network::kSizedMlp:
      return mlp(generic_mlp_sizes(cell));
    case Network::kSeed003Cnn:
      return [] { return torch::nn::AnyModule(Seed003Cnn()); };
    case Network::kResNet18:
      return [] { return torch::nn::AnyModule(ResNet18(10)); };
    case Network::kScripted:
      // Loaded afresh for every reset: the file's weights are the start of every repeat.
      return [path = cell.model] {
        return torch::nn::AnyModule(ScriptedModel(load_scripted_model(path)));
      };
  }
  throw std::invalid_argument("workload \"" + info.name + "\" has no model");
}

}  // namespace

std::unique_ptr<Workload> make_workload(const Cell& cell, const torch::Device& device,
                                        const std::string& data_dir, Replicas* replicas,
                                        DataParallelForward data_parallel, GraphCapture graph) {
  const WorkloadInfo* info = find_workload(cell.workload);
  if (info == nullptr) throw std::invalid_argument("unknown workload \"" + cell.workload + "\"");
  TrainingSpec spec;
  spec.task = info->task;
  spec.optimizer = cell.optimizer;
  spec.lr = cell.lr;
  spec.momentum = cell.momentum;
  if (cell.parallel == Parallel::kDp) {
    if (!data_parallel.forward)
      throw std::invalid_argument("a dp cell needs a replicated forward pass (runner/ gives it)");
    spec.data_parallel = std::move(data_parallel);
  }
  spec.optimizer_impl = cell.optimizer_impl;
  spec.precision = cell.precision;
  if (cell.execution == Execution::kGraph) {
    if (!graph.capture)
      throw std::invalid_argument(
          "a graph cell needs a way to capture its step (runner/ gives it)");
    if (replicas != nullptr || cell.parallel != Parallel::kNone)
      throw std::invalid_argument("a graph cell runs on one device, in one process");
    spec.graph = std::move(graph);
  }
  DataPath path;
  path.loader = cell.loader;
  path.placement = cell.data_placement;
  path.num_workers = cell.num_workers;
  path.pin_memory = cell.pin_memory;
  path.batch_size = cell.batch_size;

  TensorData data;
  double flops = flops_per_sample(cell);
  if (info->network == Network::kScripted) {
    torch::jit::Module module = load_checked_model(cell);
    flops = estimate_training_flops(module, cell.input_shape);
    spec.task = cell.outputs > 0 ? Task::kRegression : Task::kClassification;
    spec.flops_estimated = true;
    data = synthetic_samples(cell.input_shape, cell.classes, cell.outputs, cell.dataset_size,
                             cell.seed);
  } else if (info->network == Network::kSizedMlp) {
    if (cell.features < 1 || cell.classes < 2 || cell.depth < 0 ||
        (cell.depth > 0 && cell.width < 1))
      throw std::invalid_argument(
          "workload \"mlp\" needs features >= 1, classes >= 2, depth >= 0 "
          "and width >= 1 (a grid's defaults: 32, 10, 2, 256)");
    data = synthetic_classes(cell.features, cell.classes, cell.dataset_size, cell.seed);
  } else if (dataset_info(cell.dataset).kind != DatasetKind::kImages) {
    data = load_tabular(cell.dataset, data_dir, cell.dataset_size, cell.seed);
  } else {
    data =
        load_images(cell.dataset, data_dir, cell.dataset_size, cell.seed, info->mean, info->stdev);
  }
  return std::make_unique<SupervisedWorkload>(std::move(data), model_for(*info, cell), spec, path,
                                              device, flops, replicas);
}

}  // namespace crossover
