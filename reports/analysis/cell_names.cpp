#include "reports/analysis/cell_names.hpp"

#include <map>
#include <set>

#include "core/cells/device.hpp"
#include "core/cells/keys.hpp"

namespace crossover {

std::string value_text(const nlohmann::ordered_json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (parse_device(text) == Device::cuda(0)) text = Device::cuda().text();
  return text;
}

std::vector<std::string> differing_keys(const std::vector<nlohmann::ordered_json>& configs) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& config : configs) {
    for (auto it = config.begin(); it != config.end(); ++it) {
      if (seen.insert(it.key()).second) keys.push_back(it.key());
    }
  }
  std::vector<std::string> differing;
  for (const auto& key : keys) {
    std::set<std::string> values;
    for (const auto& config : configs)
      values.insert(config.contains(key) ? value_text(config.at(key)) : "");
    if (values.size() > 1) differing.push_back(key);
  }
  return differing;
}

std::vector<std::string> distinguishing_names(const std::vector<nlohmann::ordered_json>& configs,
                                              const std::string& kv, const std::string& separator) {
  // Per workload, the keys that differ among its configurations, and the device always, in the
  // order of the first configuration that has them.
  // A CPU cell has no GPU count: `gpus` names a cell only among the CUDA cells, where it varies.
  const auto on_cpu = [](const nlohmann::ordered_json& config) {
    return parse_device(config.value("device", std::string())) == Device::cpu();
  };
  std::map<std::string, std::vector<nlohmann::ordered_json>> by_workload;
  for (const auto& config : configs)
    by_workload[config.value("workload", std::string("?"))].push_back(config);
  std::map<std::string, std::vector<std::string>> varying;
  for (const auto& [workload, mine] : by_workload) {
    std::vector<nlohmann::ordered_json> gpus_of;
    for (const auto& config : mine)
      if (!on_cpu(config) && config.contains("gpus")) gpus_of.push_back({{"gpus", config["gpus"]}});
    std::vector<nlohmann::ordered_json> without = mine;
    for (auto& config : without) config.erase("gpus");
    std::vector<std::string> differing = differing_keys(without);
    if (!differing_keys(gpus_of).empty()) differing.push_back("gpus");
    std::set<std::string> shown(differing.begin(), differing.end());
    shown.insert("device");
    std::set<std::string> seen;
    for (const auto& config : configs) {
      for (auto it = config.begin(); it != config.end(); ++it) {
        if (!is_key(it.key(), Key::kWorkload) && shown.count(it.key()) != 0 &&
            seen.insert(it.key()).second)
          varying[workload].push_back(it.key());
      }
    }
  }
  std::vector<std::string> names;
  for (const auto& config : configs) {
    std::string name = config.value("workload", std::string("?"));
    for (const auto& key : varying[name]) {
      if (is_key(key, Key::kGpus) && on_cpu(config)) continue;
      if (config.contains(key)) name += separator + key + kv + value_text(config[key]);
    }
    names.push_back(name);
  }
  return names;
}

}  // namespace crossover
