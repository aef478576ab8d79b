#include "runner/grid/grid.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_set>

#include "core/cells/keys.hpp"
#include "core/files/user_files.hpp"
#include "core/text/text.hpp"
#include "runner/grid/grid_file.hpp"
#include "runner/grid/grid_search.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

// The most dimensions a sample's shape (`input_shape`) may have.
constexpr std::size_t kMostShapeDims = 8;
using Json = nlohmann::ordered_json;

// A key a grid may set (`workload` is an experiment's own), or null.
const GridKey* find_setting(const std::string& name) {
  const GridKey* key = find_grid_key(name);
  return key != nullptr && key->settable ? key : nullptr;
}

std::string index_path(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}
std::string key_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// Collects issues while walking the document.
class Validator {
 public:
  void add(std::string path, std::string message) {
    issues_.push_back({std::move(path), std::move(message)});
  }
  const std::vector<GridIssue>& issues() const { return issues_; }

  void unknown_key(const std::string& path, const std::string& key,
                   const std::vector<std::string>& known) {
    std::string message = "unknown key \"" + key + "\"";
    // A cell key at an experiment's top: where it belongs, not the experiment's nearest keys.
    if (find_grid_key(key) != nullptr &&
        std::find(known.begin(), known.end(), "settings") != known.end()) {
      add(key_path(path, key),
          message + ": " + key +
              " is a cell key; it belongs under this experiment's \"settings\" "
              "(one value) or \"grid\" (an axis of values), or under the grid's \"defaults\"");
      return;
    }
    std::string guess = did_you_mean(key, known);
    // A cell key's other names ("batch") and the closest settable key's.
    if (const std::string cell_key = suggest_key(key);
        !cell_key.empty() && std::find(known.begin(), known.end(), cell_key) != known.end())
      guess = cell_key;
    if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
    // A few keys are all listed; of the forty cell keys, the three nearest.
    message += known.size() <= 5
                   ? "; known keys: " + join(known)
                   : "; the nearest known keys: " + join(nearest(key, known)) +
                         " (crossover keys lists all " + std::to_string(known.size()) + ")";
    add(key_path(path, key), message);
  }

  // Checks one scalar value of a cell key; `workload` may be null when it is itself invalid.
  bool check_value(const std::string& path, const GridKey& spec, const Json& value,
                   const WorkloadInfo* workload) {
    const auto wrong = [&](const std::string& problem) {
      add(path, problem + "got " + shown(value) + ", expected " + spec.expected);
      return false;
    };
    switch (spec.kind) {
      case KeyKind::kBoolean:
        if (!value.is_boolean()) return wrong("wrong type: ");
        return true;
      case KeyKind::kText:
        if (!value.is_string()) return wrong("wrong type: ");
        return check_text(path, spec, value.get<std::string>(), workload);
      case KeyKind::kSizeOrFull:
        if (value.is_string()) {
          if (value.get<std::string>() == kFullWord) return true;
          return wrong("");
        }
        [[fallthrough]];
      case KeyKind::kInteger: {
        if (value.is_number_float()) {
          const double x = value.get<double>();
          if (x != std::trunc(x)) return wrong("not an integer: ");  // 1e70 too
        } else if (!value.is_number()) {
          return wrong("wrong type: ");
        }
        const double x = value.get<double>();
        if (x < spec.min || x > spec.max) return wrong("out of range: ");
        return true;
      }
      case KeyKind::kShape: {
        if (!value.is_array() || value.empty() || value.size() > kMostShapeDims)
          return wrong("wrong type: ");
        for (const Json& size : value) {
          if (!size.is_number_integer() || size.get<double>() < spec.min ||
              size.get<double>() > spec.max)
            return wrong("not a shape: ");
        }
        return true;
      }
      case KeyKind::kNumber: {
        if (!value.is_number()) return wrong("wrong type: ");
        const double x = value.get<double>();
        if (x < spec.min || x > spec.max) return wrong("out of range: ");
        return true;
      }
    }
    return true;
  }

 private:
  bool check_text(const std::string& path, const GridKey& spec, const std::string& text,
                  const WorkloadInfo* workload) {
    if (!spec.workload_choices) {
      const Found problem = value_problem(spec, text);
      if (problem) add(path, problem->text);
      return !problem;
    }
    if (workload == nullptr) return true;
    const std::vector<std::string>& choices = workload->datasets;
    if (std::find(choices.begin(), choices.end(), text) != choices.end()) return true;
    std::string message = "unknown " + spec.name + " \"" + text + "\"";
    if (const std::string guess = did_you_mean(text, choices); !guess.empty())
      message += " (did you mean \"" + guess + "\"?)";
    add(path, message + "; " + workload->name + " accepts " + join(choices));
    return false;
  }

  std::vector<GridIssue> issues_;
};

// A scalar settings object (`defaults` or an experiment's `settings`).
Json check_settings(Validator& v, const std::string& path, const Json& object,
                    const WorkloadInfo* workload) {
  Json accepted = Json::object();
  if (!object.is_object()) {
    v.add(path, "wrong type: got " + shown(object) + ", expected an object of settings");
    return accepted;
  }
  for (const auto& [key, value] : object.items()) {
    const GridKey* spec = find_setting(key);
    if (spec == nullptr) {
      v.unknown_key(path, key, settable_key_names());
      continue;
    }
    if (value.is_array() && spec->kind != KeyKind::kShape) {
      v.add(key_path(path, key),
            "a list belongs in \"grid\"; settings take one value, " + spec->expected);
      continue;
    }
    if (v.check_value(key_path(path, key), *spec, value, workload)) accepted[key] = value;
  }
  return accepted;
}

}  // namespace

GridError::GridError(std::string file, std::vector<GridIssue> issues)
    : std::runtime_error([&] {
        std::string text;
        for (const auto& issue : issues) {
          if (!text.empty()) text += "\n";
          text += file + ": " + issue.path + ": " + issue.message;
        }
        return text;
      }()),
      file_(std::move(file)),
      issues_(std::move(issues)) {}

namespace {

// The grid's own keys: the top level's names, `name` and `description`.
void parse_head(Validator& v, const Json& root, Grid& grid) {
  const std::vector<std::string> top_keys = {"name", "description", "prices", "defaults",
                                             "experiments"};
  for (const auto& [key, value] : root.items()) {
    if (std::find(top_keys.begin(), top_keys.end(), key) == top_keys.end()) {
      v.unknown_key("", key, top_keys);
    }
  }

  if (!root.contains("name")) {
    v.add("name", "missing: every grid needs a \"name\" (it names the results directory)");
  } else if (!root["name"].is_string() ||
             !std::regex_match(root["name"].get<std::string>(), std::regex("[A-Za-z0-9._-]+"))) {
    v.add("name",
          "got " + shown(root["name"]) +
              ", expected a string of letters, digits, '.', '_' or '-' (it names a directory)");
  } else if (root["name"].get<std::string>().size() > kMaxGridNameLength) {
    v.add("name", "got a name of " + std::to_string(root["name"].get<std::string>().size()) +
                      " characters, expected at most " + std::to_string(kMaxGridNameLength) +
                      " (with the time, it names a directory, and a file system allows 255)");
  } else {
    grid.name = root["name"].get<std::string>();
  }
  if (root.contains("description") && root["description"].is_string())
    grid.description = root["description"].get<std::string>();
  else if (root.contains("description"))
    v.add("description", "wrong type: got " + shown(root["description"]) + ", expected a string");
  try {
    if (root.contains("prices")) grid.prices = prices_from_json(root["prices"]);
  } catch (const std::invalid_argument& e) {
    v.add("prices", e.what());
  }
}

// An experiment's workload: its name into `experiment`, its catalog entry (null when unknown).
const WorkloadInfo* parse_workload(Validator& v, const Json& e, const std::string& path,
                                   Experiment& experiment) {
  const WorkloadInfo* workload = nullptr;
  if (!e.contains("workload")) {
    v.add(key_path(path, "workload"), "missing: name one of " + join(workload_names()));
  } else if (!e["workload"].is_string()) {
    v.add(key_path(path, "workload"), "wrong type: got " + shown(e["workload"]) +
                                          ", expected one of " + join(workload_names()));
  } else {
    experiment.workload = e["workload"].get<std::string>();
    workload = find_workload(experiment.workload);
    if (workload == nullptr) {
      std::string message = "unknown workload \"" + experiment.workload + "\"";
      // A data set's name ("iris", "mnist") names the workloads that train on it.
      std::vector<std::string> on_it;
      for (const auto& info : workload_catalog()) {
        if (std::find(info.datasets.begin(), info.datasets.end(), experiment.workload) !=
            info.datasets.end())
          on_it.push_back("\"" + info.name + "\"");
      }
      const std::string guess = did_you_mean(experiment.workload, workload_names());
      if (on_it.size() == 1) {
        message += " (did you mean " + on_it.front() + "?)";
      } else if (!on_it.empty()) {
        message += " (a data set: the workloads on it are " + join(on_it) + ")";
      } else if (!guess.empty()) {
        message += " (did you mean \"" + guess + "\"?)";
      }
      v.add(key_path(path, "workload"), message + "; known workloads: " + join(workload_names()));
    }
  }
  return workload;
}

// An experiment's axes (`grid`), each value checked, none twice.
void parse_axes(Validator& v, const Json& e, const std::string& path, const WorkloadInfo* workload,
                Experiment& experiment) {
  if (e.contains("grid")) {
    const std::string grid_path = key_path(path, "grid");
    if (!e["grid"].is_object()) {
      v.add(grid_path, "wrong type: got " + shown(e["grid"]) + ", expected an object of axes");
    } else {
      for (const auto& [key, values] : e["grid"].items()) {
        const std::string axis_path = key_path(grid_path, key);
        const GridKey* spec = find_setting(key);
        if (spec == nullptr) {
          v.unknown_key(grid_path, key, settable_key_names());
          continue;
        }
        if (e.contains("settings") && e["settings"].is_object() && e["settings"].contains(key))
          v.add(axis_path, "\"" + key + "\" is set in both \"settings\" and \"grid\"; keep one");
        if (values.is_object()) {  // a search: runner/grid/grid_search.cpp
          std::vector<GridIssue> found;
          auto search = parse_search(axis_path, *spec, values, found);
          for (auto& issue : found) v.add(std::move(issue.path), std::move(issue.message));
          if (search && experiment.search)
            v.add(axis_path, "a second search in one experiment; search one axis per experiment");
          const Contenders c = search ? search_contenders(*search) : Contenders{};
          const std::string at = axis_path + ".search.compare";
          if (search && !experiment.search && v.check_value(at, *c.key, c.baseline, workload) &&
              v.check_value(at, *c.key, c.contender, workload))
            experiment.search = std::move(search);
          continue;
        }
        if (!values.is_array() || values.empty()) {
          v.add(axis_path, "got " + shown(values) + ", expected a non-empty list of " +
                               spec->expected +
                               " (a single value belongs in \"settings\"; a search is "
                               "{\"search\": {\"from\": ..., \"to\": ...}})");
          continue;
        }
        std::vector<Json> accepted;
        std::unordered_set<std::string> seen;  // linear in the axis's length, however long
        for (std::size_t k = 0; k < values.size(); ++k) {
          if (!v.check_value(index_path(axis_path, k), *spec, values[k], workload)) continue;
          if (!seen.insert(values[k].dump()).second) {
            v.add(index_path(axis_path, k),
                  "duplicate value " + shown(values[k]) + " in this axis");
            continue;
          }
          accepted.push_back(values[k]);
        }
        experiment.axes.emplace_back(key, accepted);
      }
    }
  }
}

// An experiment's exclude rules.
void parse_excludes(Validator& v, const Json& e, const std::string& path,
                    const WorkloadInfo* workload, Experiment& experiment) {
  if (e.contains("exclude")) {
    const std::string exclude_path = key_path(path, "exclude");
    if (!e["exclude"].is_array()) {
      v.add(exclude_path, "wrong type: got " + shown(e["exclude"]) +
                              ", expected a list of objects such as {\"device\": \"cpu\", "
                              "\"pin_memory\": true}");
    } else {
      for (std::size_t k = 0; k < e["exclude"].size(); ++k) {
        const std::string rule_path = index_path(exclude_path, k);
        const Json& rule = e["exclude"][k];
        if (!rule.is_object() || rule.empty()) {
          v.add(rule_path, "got " + shown(rule) + ", expected a non-empty object of key: value");
          continue;
        }
        bool ok = true;
        for (const auto& [key, value] : rule.items()) {
          const GridKey* spec = find_setting(key);
          if (spec == nullptr) {
            v.unknown_key(rule_path, key, settable_key_names());
            ok = false;
            continue;
          }
          // A list is "any of these", except a shape's own list of sizes.
          const bool one_shape = spec->kind == KeyKind::kShape && !value.empty() &&
                                 value.is_array() && !value.front().is_array();
          if (value.is_array() && !one_shape) {
            for (std::size_t m = 0; m < value.size(); ++m) {
              ok &=
                  v.check_value(index_path(key_path(rule_path, key), m), *spec, value[m], workload);
            }
          } else {
            ok &= v.check_value(key_path(rule_path, key), *spec, value, workload);
          }
        }
        if (ok) experiment.excludes.push_back(rule);
      }
    }
  }
}

// One experiment, or nothing when it is not an object (the problem is in `v`).
std::optional<Experiment> parse_experiment(Validator& v, const Json& e, const std::string& path,
                                           const Json& defaults) {
  if (!e.is_object()) {
    v.add(path,
          "wrong type: got " + shown(e) + ", expected an object with \"workload\" and \"grid\"");
    return std::nullopt;
  }
  static const std::vector<std::string> experiment_keys = {"workload", "name", "description",
                                                           "settings", "grid", "exclude"};
  for (const auto& [key, value] : e.items()) {
    if (std::find(experiment_keys.begin(), experiment_keys.end(), key) == experiment_keys.end()) {
      v.unknown_key(path, key, experiment_keys);
    }
  }
  Experiment experiment;
  const WorkloadInfo* workload = parse_workload(v, e, path, experiment);
  experiment.label = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>()
                                                                 : experiment.workload;
  for (const auto& key : grid_keys()) {  // defaults checked again against this workload
    if (key.workload_choices && workload != nullptr && defaults.contains(key.name))
      v.check_value("defaults." + key.name, key, defaults[key.name], workload);
  }
  experiment.settings = defaults;
  if (e.contains("settings")) {
    const Json own = check_settings(v, key_path(path, "settings"), e["settings"], workload);
    for (const auto& [key, value] : own.items()) experiment.settings[key] = value;
  }

  parse_axes(v, e, path, workload, experiment);
  std::vector<GridIssue> fit;
  fit_search_axes(path, experiment, fit);
  for (auto& issue : fit) v.add(std::move(issue.path), std::move(issue.message));
  parse_excludes(v, e, path, workload, experiment);
  return experiment;
}

}  // namespace

Grid parse_grid(const std::string& text, const std::string& file) {
  const Json root = parse_grid_json(text, file);
  Validator v;
  Grid grid;
  grid.file = file;
  if (!root.is_object()) {
    throw GridError(file, {{"(document)",
                            "a grid is a JSON object with \"name\" and "
                            "\"experiments\"; got " +
                                shown(root)}});
  }
  parse_head(v, root, grid);

  // Defaults are checked once without a workload; `dataset` there is checked per experiment.
  Json defaults = Json::object();
  if (root.contains("defaults"))
    defaults = check_settings(v, "defaults", root["defaults"], nullptr);

  if (!root.contains("experiments")) {
    v.add("experiments", "missing: a grid needs a list of experiments");
  } else if (!root["experiments"].is_array() || root["experiments"].empty()) {
    v.add("experiments",
          "got " + shown(root["experiments"]) + ", expected a non-empty list of experiments");
  } else {
    const Json& experiments = root["experiments"];
    for (std::size_t i = 0; i < experiments.size(); ++i) {
      auto experiment = parse_experiment(v, experiments[i], index_path("experiments", i), defaults);
      if (experiment) grid.experiments.push_back(std::move(*experiment));
    }
  }

  if (!v.issues().empty()) throw GridError(file, v.issues());
  return grid;
}

Grid load_grid(const std::string& path) {
  std::string text = read_grid_file(path);
  Grid grid = parse_grid(text, path);
  grid.text = std::move(text);
  return grid;
}

std::string shown(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

}  // namespace crossover
