#include "runner/cell.hpp"

namespace crossover {
namespace {

nlohmann::ordered_json size_json(std::int64_t size) {
  if (size == kFull) return "full";
  return size;
}

}  // namespace

nlohmann::ordered_json cell_config_json(const Cell& cell) {
  nlohmann::ordered_json j;
  j["workload"] = cell.workload;
  j["dataset"] = cell.dataset;
  j["device"] = cell.device;
  j["batch_size"] = size_json(cell.batch_size);
  j["dataset_size"] = size_json(cell.dataset_size);
  j["loader"] = cell.loader;
  j["data_placement"] = cell.data_placement;
  j["num_workers"] = cell.num_workers;
  j["pin_memory"] = cell.pin_memory;
  j["gpus"] = cell.gpus;
  j["threads"] = cell.threads;
  j["epochs"] = cell.epochs;
  j["warmup_epochs"] = cell.warmup_epochs;
  j["min_repeats"] = cell.min_repeats;
  j["max_repeats"] = cell.max_repeats;
  j["time_budget_seconds"] = cell.time_budget_seconds;
  j["ci_target"] = cell.ci_target;
  j["timing"] = cell.timing;
  j["deterministic"] = cell.deterministic;
  j["seed"] = cell.seed;
  j["optimizer"] = cell.optimizer;
  j["lr"] = cell.lr;
  j["momentum"] = cell.momentum;
  return j;
}

std::string size_text(std::int64_t size) {
  return size == kFull ? std::string("full") : std::to_string(size);
}

std::string data_path_text(const Cell& cell) {
  std::string text = cell.loader;
  if (cell.loader == "tensor" && cell.data_placement == "host") text += "@host";
  if (cell.num_workers > 0) text += " w" + std::to_string(cell.num_workers);
  if (cell.pin_memory) text += " pinned";
  return text;
}

std::string cell_label(const Cell& cell) {
  std::string label = cell.workload + " " + cell.device + " batch=" + size_text(cell.batch_size) +
                      " size=" + size_text(cell.dataset_size);
  label += " " + data_path_text(cell);
  if (cell.threads != 0) label += " threads=" + std::to_string(cell.threads);
  if (is_cuda_device(cell.device) && cell.gpus != 1) label += " gpus=" + std::to_string(cell.gpus);
  return label;
}

bool is_cuda_device(const std::string& device) { return device.rfind("cuda", 0) == 0; }

}  // namespace crossover
