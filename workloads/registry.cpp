// Builds the workload a cell names. The only place that maps a workload's name to its model.
#include <stdexcept>

#include "workloads/mlp.hpp"
#include "workloads/tabular.hpp"

namespace crossover {

std::unique_ptr<Workload> make_workload(const Cell& cell, const torch::Device& device,
                                        const std::string& data_dir) {
  const WorkloadInfo* info = find_workload(cell.workload);
  if (info == nullptr) throw std::invalid_argument("unknown workload \"" + cell.workload + "\"");
  TrainingSpec spec;
  spec.loss = info->loss;
  spec.optimizer = cell.optimizer;
  spec.lr = cell.lr;
  spec.momentum = cell.momentum;
  spec.batch_size = cell.batch_size;

  if (cell.workload == "iris_mlp" || cell.workload == "boston_mlp") {
    const bool iris = cell.workload == "iris_mlp";
    const std::vector<std::int64_t> sizes = iris ? std::vector<std::int64_t>{4, 64, 32, 16, 3}
                                                 : std::vector<std::int64_t>{13, 16, 32, 16, 1};
    return std::make_unique<TensorWorkload>(
        load_tabular(cell.dataset, data_dir, cell.dataset_size, cell.seed),
        [sizes] { return torch::nn::AnyModule(Mlp(sizes)); }, spec, device);
  }
  throw std::invalid_argument("workload \"" + cell.workload + "\" has no model yet");
}

}  // namespace crossover
