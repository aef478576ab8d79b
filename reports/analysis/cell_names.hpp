#pragma once
// Names for cells that people and other tools can read: the workload, then only the
// configuration keys whose values differ among the cells being shown.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace crossover {

/// A configuration value as the user writes it ("cuda:0" and "cuda" are the same device).
std::string value_text(const nlohmann::ordered_json& value);

/// The keys of `configs` (JSON objects, in the order first seen) whose values differ among them, a
/// key one lacks counting as "": the one rule by which the tables and the names of cells show only
/// what varies.
std::vector<std::string> differing_keys(const std::vector<nlohmann::ordered_json>& configs);

/// Per configuration (cell_config_json objects), its workload followed by `key<kv>value` for every
/// key whose value differs among the configurations of that workload (the device always), joined
/// with `separator`:
/// "mnist_mlp device=cpu batch_size=128" or, for Google Benchmark, "mnist_mlp/device:cpu/...".
/// Configurations that differ in any key get different names.
std::vector<std::string> distinguishing_names(const std::vector<nlohmann::ordered_json>& configs,
                                              const std::string& kv = "=",
                                              const std::string& separator = " ");

}  // namespace crossover
