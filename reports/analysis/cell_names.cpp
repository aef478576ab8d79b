#include "reports/analysis/cell_names.hpp"

#include <map>
#include <set>

namespace crossover {

std::string value_text(const nlohmann::ordered_json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text == "cuda:0") text = "cuda";
  return text;
}

std::vector<std::string> distinguishing_names(const std::vector<nlohmann::ordered_json>& configs,
                                              const std::string& kv, const std::string& separator) {
  // Keys in the order of the first configuration that has them.
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& config : configs) {
    for (auto it = config.begin(); it != config.end(); ++it) {
      if (it.key() != "workload" && seen.insert(it.key()).second) keys.push_back(it.key());
    }
  }
  // Per workload, the keys whose values differ among its configurations.
  std::map<std::string, std::vector<std::string>> varying;
  for (const auto& config : configs) {
    const std::string workload = config.value("workload", std::string("?"));
    if (varying.count(workload) > 0) continue;
    auto& keys_of_workload = varying[workload];
    for (const auto& key : keys) {
      std::set<std::string> values;
      for (const auto& other : configs) {
        if (other.value("workload", std::string("?")) != workload) continue;
        values.insert(other.contains(key) ? value_text(other[key]) : "");
      }
      if (key == "device" || values.size() > 1) keys_of_workload.push_back(key);
    }
  }
  std::vector<std::string> names;
  for (const auto& config : configs) {
    std::string name = config.value("workload", std::string("?"));
    for (const auto& key : varying[name]) {
      if (config.contains(key)) name += separator + key + kv + value_text(config[key]);
    }
    names.push_back(name);
  }
  return names;
}

}  // namespace crossover
