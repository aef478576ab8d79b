#include "workloads/catalog.hpp"

namespace crossover {

const std::vector<WorkloadInfo>& workload_catalog() {
  static const std::vector<WorkloadInfo> catalog = {
      {"iris_mlp",
       "001",
       "MLP 4-64-32-16-3, ReLU",
       {"iris"},
       "classification",
       "accuracy",
       "cross_entropy",
       "adam",
       0.01,
       0.0,
       kFull,
       1000,
       "Iris (150 rows), seeded 75/25 split, full batch, no feature scaling, as in seed 001."},
      {"boston_mlp",
       "001",
       "MLP 13-16-32-16-1, ReLU",
       {"boston"},
       "regression",
       "rmse",
       "mse",
       "adam",
       0.01,
       0.0,
       kFull,
       10000,
       "Boston housing (506 rows), seeded 75/25 split, full batch, no feature scaling, as in "
       "seed 001."},
  };
  return catalog;
}

const WorkloadInfo* find_workload(const std::string& name) {
  for (const auto& info : workload_catalog()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& info : workload_catalog()) names.push_back(info.name);
  return names;
}

}  // namespace crossover
