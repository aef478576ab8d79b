#include "runner/cell.hpp"

namespace crossover {
namespace {

nlohmann::ordered_json size_json(std::int64_t size) {
  if (size == kFull) return "full";
  return size;
}

std::int64_t size_from_json(const nlohmann::json& value) {
  return value.is_string() ? kFull : json_as<std::int64_t>(value);
}

}  // namespace

Cell cell_from_json(const nlohmann::json& j) {
  Cell c;
  c.index = json_as<std::size_t>(j.at("cell"));
  c.workload = j.at("workload").get<std::string>();
  c.dataset = j.at("dataset").get<std::string>();
  c.device = j.at("device").get<std::string>();
  c.batch_size = size_from_json(j.at("batch_size"));
  c.dataset_size = size_from_json(j.at("dataset_size"));
  c.loader = j.at("loader").get<std::string>();
  c.data_placement = j.at("data_placement").get<std::string>();
  c.num_workers = json_as<int>(j.at("num_workers"));
  c.pin_memory = j.at("pin_memory").get<bool>();
  c.gpus = json_as<int>(j.at("gpus"));
  c.parallel = j.value("parallel", c.parallel);  // newer key: older results lack it
  c.nproc = j.contains("nproc") ? json_as<int>(j.at("nproc"))
                                : c.nproc;  // newer key: older results lack it
  c.output_device = j.contains("output_device")
                        ? json_as<int>(j.at("output_device"))
                        : c.output_device;  // newer key: older results lack it
  c.threads = json_as<int>(j.at("threads"));
  c.epochs = json_as<int>(j.at("epochs"));
  c.warmup_epochs = json_as<int>(j.at("warmup_epochs"));
  c.min_repeats = json_as<int>(j.at("min_repeats"));
  c.max_repeats = json_as<int>(j.at("max_repeats"));
  c.time_budget_seconds = j.at("time_budget_seconds").get<double>();
  c.ci_target = j.at("ci_target").get<double>();
  c.timing = j.at("timing").get<std::string>();
  c.deterministic = j.at("deterministic").get<bool>();
  c.seed = json_as<std::int64_t>(j.at("seed"));
  c.isolate = j.value("isolate", c.isolate);  // newer key: older results lack it
  c.timeout_seconds =
      j.value("timeout_seconds", c.timeout_seconds);  // newer key: older results lack it
  c.optimizer = j.at("optimizer").get<std::string>();
  c.lr = j.at("lr").get<double>();
  c.momentum = j.at("momentum").get<double>();
  return c;
}

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
  j["parallel"] = cell.parallel;
  j["nproc"] = cell.nproc;
  j["output_device"] = cell.output_device;
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
  j["isolate"] = cell.isolate;
  j["timeout_seconds"] = cell.timeout_seconds;
  j["optimizer"] = cell.optimizer;
  j["lr"] = cell.lr;
  j["momentum"] = cell.momentum;
  return j;
}

KeyRole key_role(const std::string& key) {
  if (key == "isolate" || key == "timeout_seconds") return KeyRole::kProtection;
  if (key == "min_repeats" || key == "max_repeats" || key == "time_budget_seconds" ||
      key == "ci_target")
    return KeyRole::kPolicy;
  return KeyRole::kIdentity;
}

nlohmann::ordered_json cell_identity_json(const Cell& cell) {
  const nlohmann::ordered_json config = cell_config_json(cell);  // items() must not outlive it
  nlohmann::ordered_json identity;
  for (const auto& [key, value] : config.items()) {
    if (key_role(key) == KeyRole::kIdentity) identity[key] = value;
  }
  return identity;
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
  if (cell.parallel != "none") label += " " + cell.parallel;
  if (cell.parallel == "ddp") label += " nproc=" + std::to_string(cell.nproc);
  return label;
}

int replicas(const Cell& cell) {
  if (cell.parallel == "dp") return cell.gpus;
  if (cell.parallel == "ddp") return cell.nproc;
  return 1;
}

bool is_cuda_device(const std::string& device) { return device.rfind("cuda", 0) == 0; }

}  // namespace crossover
