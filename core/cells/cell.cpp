#include "core/cells/cell.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "core/cells/keys.hpp"

namespace crossover {

Cell cell_from_json(const nlohmann::json& j) {
  Cell c;
  c.index = json_as<std::size_t>(j.at("cell"));
  for (const auto& key : grid_keys()) {
    if (!key.get) continue;  // not a column (`repeats`)
    if (!j.contains(key.name)) {
      if (key.added_later) continue;
      throw std::runtime_error("missing key \"" + key.name + "\"");
    }
    try {
      key.set(c, j[key.name]);
    } catch (const std::exception& e) {
      throw std::runtime_error("key \"" + key.name + "\": " + e.what());
    }
  }
  return c;
}

nlohmann::ordered_json cell_config_json(const Cell& cell) {
  nlohmann::ordered_json j;
  for (const auto& key : grid_keys()) {
    if (key.get) j[key.name] = key.get(cell);
  }
  return j;
}

nlohmann::ordered_json cell_identity_json(const Cell& cell) {
  nlohmann::ordered_json identity;
  for (const auto& key : grid_keys()) {
    if (key.get && key.role == KeyRole::kIdentity) identity[key.name] = key.get(cell);
  }
  return identity;
}

nlohmann::ordered_json cell_match_json(const Cell& cell) {
  nlohmann::ordered_json identity = cell_identity_json(cell);
  identity.erase("host");
  return identity;
}

nlohmann::ordered_json pairing_key(const Cell& cell, const std::string& axis) {
  nlohmann::ordered_json key;
  for (const auto& k : grid_keys()) {
    if (!k.get || k.role != KeyRole::kIdentity || k.name == axis) continue;
    if (is_key(axis, Key::kDevice) && (k.cpu_value || k.cuda_only)) continue;
    key[k.name] = k.get(cell);
  }
  return key;
}

nlohmann::ordered_json loosened(nlohmann::ordered_json key, bool host, bool forced) {
  for (const auto& k : grid_keys())
    if ((host && k.host_only) || (forced && k.follows_cuda_only)) key.erase(k.name);
  return key;
}

nlohmann::ordered_json predicted_identity(const Cell& cell) {
  return loosened(cell_match_json(cell), true, false);
}

namespace {

template <typename Flag>
bool at_defaults(const Cell& cell, Flag flag) {
  static const Cell defaults;
  for (const auto& k : grid_keys())
    if (k.*flag && k.get && k.get(cell) != k.get(defaults)) return false;
  return true;
}

}  // namespace

bool host_keys_at_defaults(const Cell& cell) { return at_defaults(cell, &GridKey::host_only); }

bool cuda_keys_at_defaults(const Cell& cell) { return at_defaults(cell, &GridKey::cuda_only); }

nlohmann::ordered_json comparison_unit(const Cell& cell) {
  nlohmann::ordered_json key;
  for (const auto& k : grid_keys()) {
    if (!k.get || k.role != KeyRole::kIdentity || is_key(k.name, Key::kDevice) ||
        is_key(k.name, Key::kHost) || k.knob || k.cpu_value || k.cuda_only)
      continue;
    key[k.name] = k.get(cell);
  }
  return key;
}

double default_timeout_seconds(const Cell& cell) { return 4.0 * cell.time_budget_seconds + 120.0; }

std::vector<std::string> key_differences(const Cell& then, const Cell& now, KeyRole role) {
  std::vector<std::string> out;
  for (const auto& key : grid_keys()) {
    if (!key.get || key.role != role) continue;
    const auto a = key.get(then), b = key.get(now);
    if (a != b) out.push_back(key.name + " " + a.dump() + " -> " + b.dump());
  }
  return out;
}

std::vector<std::string> measuring_differences(const Cell& from, const Cell& to) {
  auto out = key_differences(from, to, KeyRole::kPolicy);
  for (auto& d : key_differences(from, to, KeyRole::kProtection)) out.push_back(std::move(d));
  return out;
}

std::string size_text(std::int64_t size) {
  return size == kFull ? std::string(kFullWord) : std::to_string(size);
}

std::string data_path_text(const Cell& cell) {
  std::string text = text_of(cell.loader);
  if (cell.loader == Loader::kTensor && cell.data_placement == Placement::kHost) text += "@host";
  if (cell.num_workers > 0) text += " w" + std::to_string(cell.num_workers);
  if (cell.pin_memory) text += " pinned";
  return text;
}

std::string cell_label(const Cell& cell) {
  std::string label = cell.workload;
  if (cell.workload == kUserModelWorkload) {
    // Its file's name, as plain text: a label lands in Markdown prose, HTML and terminals.
    std::string name = cell.model.substr(cell.model.find_last_of('/') + 1);
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '?';
    label += " " + name;
  } else if (cell.workload == kSizedMlpWorkload) {  // its model: features-width x depth-classes
    label += " " + std::to_string(cell.features) + "-" + std::to_string(cell.width) + "x" +
             std::to_string(cell.depth) + "-" + std::to_string(cell.classes);
  }
  label += " " + cell.device.text() + " batch=" + size_text(cell.batch_size) +
           " size=" + size_text(cell.dataset_size);
  label += " " + data_path_text(cell);
  if (cell.threads != 0) label += " threads=" + std::to_string(cell.threads);
  if (cell.device.is_cuda() && cell.gpus != 1) label += " gpus=" + std::to_string(cell.gpus);
  if (cell.parallel != Parallel::kNone) label += " " + text_of(cell.parallel);
  if (cell.parallel == Parallel::kDdp) label += " nproc=" + std::to_string(cell.nproc);
  // How the step runs, where it is not the default.
  if (cell.execution != Execution::kEager) label += " " + text_of(cell.execution);
  if (cell.optimizer_impl != OptimizerImpl::kLoop) label += " " + text_of(cell.optimizer_impl);
  if (cell.precision != Precision::kFp32) label += " " + text_of(cell.precision);
  return label;
}

int replicas(const Cell& cell) {
  if (cell.parallel == Parallel::kDp) return cell.gpus;
  if (cell.parallel == Parallel::kDdp) return cell.nproc;
  return 1;
}

}  // namespace crossover
