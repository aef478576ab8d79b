#include "runner/grid.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "runner/text.hpp"
#include "runner/user_files.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

enum class Kind { kInteger, kNumber, kBoolean, kText, kSizeOrFull };

struct KeySpec {
  const char* name;
  Kind kind;
  double min;
  double max;
  const char* expected;
};

// Every key a cell has. Ranges are generous but catch slips such as a negative batch size.
const std::vector<KeySpec>& key_specs() {
  static const std::vector<KeySpec> specs = {
      {"device", Kind::kText, 0, 0, "\"cpu\", \"cuda\" or \"cuda:N\""},
      {"dataset", Kind::kText, 0, 0, "a data set the workload accepts"},
      {"batch_size", Kind::kSizeOrFull, 1, 1e9, "a positive integer or \"full\""},
      {"dataset_size", Kind::kSizeOrFull, 1, 1e9, "a positive integer or \"full\""},
      {"loader", Kind::kText, 0, 0, "\"tensor\" or \"dataloader\""},
      {"data_placement", Kind::kText, 0, 0, "\"device\" or \"host\""},
      {"num_workers", Kind::kInteger, 0, 256, "an integer from 0 to 256"},
      {"pin_memory", Kind::kBoolean, 0, 0, "true or false"},
      {"gpus", Kind::kInteger, 1, 1024, "an integer from 1 to 1024"},
      {"parallel", Kind::kText, 0, 0, "\"none\", \"dp\" or \"ddp\""},
      {"nproc", Kind::kInteger, 1, 1024, "an integer from 1 to 1024 (ddp processes per node)"},
      {"output_device", Kind::kInteger, 0, 1023, "an integer from 0 (dp: index among the GPUs)"},
      {"threads", Kind::kInteger, 0, 4096, "an integer from 0 (library default) to 4096"},
      {"epochs", Kind::kInteger, 1, 1e8, "an integer from 1 to 100000000"},
      {"warmup_epochs", Kind::kInteger, 0, 1e6, "an integer from 0 to 1000000"},
      {"repeats", Kind::kInteger, 1, 10000, "an integer from 1 to 10000 (a fixed count)"},
      {"min_repeats", Kind::kInteger, 1, 10000, "an integer from 1 to 10000"},
      {"max_repeats", Kind::kInteger, 1, 10000, "an integer from 1 to 10000"},
      {"time_budget_seconds", Kind::kNumber, 0, 1e7, "a number of seconds from 0"},
      {"ci_target", Kind::kNumber, 1e-6, 1, "a relative width above 0 and at most 1 (0.02 = 2 %)"},
      {"timing", Kind::kText, 0, 0, "\"end_to_end\" or \"phases\""},
      {"deterministic", Kind::kBoolean, 0, 0, "true or false"},
      {"seed", Kind::kInteger, 0, 9.0e15, "a non-negative integer"},
      {"isolate", Kind::kBoolean, 0, 0, "true or false"},
      {"timeout_seconds", Kind::kNumber, 0, 1e7, "a number of seconds from 0 (0: no limit)"},
      {"optimizer", Kind::kText, 0, 0, "\"sgd\" or \"adam\""},
      {"lr", Kind::kNumber, 1e-12, 100, "a number greater than 0 and at most 100"},
      {"momentum", Kind::kNumber, 0, 0.999999, "a number from 0 to below 1"},
  };
  return specs;
}

const KeySpec* find_spec(const std::string& name) {
  for (const auto& spec : key_specs()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

std::vector<std::string> spec_names() {
  std::vector<std::string> names;
  for (const auto& spec : key_specs()) names.emplace_back(spec.name);
  return names;
}

std::string shown(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
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
    const std::string guess = did_you_mean(key, known);
    if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
    message += "; known keys: " + join(known);
    add(key_path(path, key), message);
  }

  // Checks one scalar value of a cell key; `workload` may be null when it is itself invalid.
  bool check_value(const std::string& path, const KeySpec& spec, const Json& value,
                   const WorkloadInfo* workload) {
    const auto wrong = [&](const std::string& problem) {
      add(path, problem + "got " + shown(value) + ", expected " + spec.expected);
      return false;
    };
    switch (spec.kind) {
      case Kind::kBoolean:
        if (!value.is_boolean()) return wrong("wrong type: ");
        return true;
      case Kind::kText:
        if (!value.is_string()) return wrong("wrong type: ");
        return check_text(path, spec, value.get<std::string>(), workload);
      case Kind::kSizeOrFull:
        if (value.is_string()) {
          if (value.get<std::string>() == "full") return true;
          return wrong("");
        }
        [[fallthrough]];
      case Kind::kInteger: {
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
      case Kind::kNumber: {
        if (!value.is_number()) return wrong("wrong type: ");
        const double x = value.get<double>();
        if (x < spec.min || x > spec.max) return wrong("out of range: ");
        return true;
      }
    }
    return true;
  }

 private:
  bool check_text(const std::string& path, const KeySpec& spec, const std::string& text,
                  const WorkloadInfo* workload) {
    const std::string name = spec.name;
    std::vector<std::string> choices;
    if (name == "device") {
      static const std::regex device_pattern("cpu|cuda(:[0-9]{1,3})?");
      if (std::regex_match(text, device_pattern)) return true;
      choices = {"cpu", "cuda", "cuda:0"};
    } else if (name == "optimizer") {
      choices = {"sgd", "adam"};
    } else if (name == "loader") {
      choices = {"tensor", "dataloader"};
    } else if (name == "data_placement") {
      choices = {"device", "host"};
    } else if (name == "timing") {
      choices = {"end_to_end", "phases"};
    } else if (name == "parallel") {
      choices = {"none", "dp", "ddp"};
    } else if (name == "dataset") {
      if (workload == nullptr) return true;
      choices = workload->datasets;
    }
    for (const auto& choice : choices) {
      if (text == choice) return true;
    }
    std::string message = "unknown " + name + " \"" + text + "\"";
    const std::string guess = did_you_mean(text, choices);
    if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
    if (name == "dataset" && workload != nullptr) {
      message += "; " + workload->name + " accepts " + join(workload->datasets);
    } else {
      message += "; expected " + std::string(spec.expected);
    }
    add(path, message);
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
    const KeySpec* spec = find_spec(key);
    if (spec == nullptr) {
      v.unknown_key(path, key, spec_names());
      continue;
    }
    if (value.is_array()) {
      v.add(key_path(path, key),
            "a list belongs in \"grid\"; settings take one value, " + std::string(spec->expected));
      continue;
    }
    if (v.check_value(key_path(path, key), *spec, value, workload)) accepted[key] = value;
  }
  return accepted;
}

Json parse_json(const std::string& text, const std::string& file) {
  // Nesting and duplicate keys first: the parser would keep one of two equal keys silently.
  if (const auto problem = check_json_shape(text)) {
    throw GridError(file, {{problem->path, problem->message}});
  }
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Turn the byte offset into the line and column an editor shows.
    std::size_t line = 1;
    std::size_t column = 1;
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string detail = e.what();
    const auto colon = detail.find("parse error");
    if (colon != std::string::npos) detail = detail.substr(colon);
    throw GridError(file,
                    {{"(document)", "malformed JSON at line " + std::to_string(line) + ", column " +
                                        std::to_string(column) + ": " + detail}});
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double (1e400) is an out_of_range error without a position.
    std::string detail = e.what();
    const auto bracket = detail.find("] ");
    if (bracket != std::string::npos) detail = detail.substr(bracket + 2);
    throw GridError(file, {{"(document)", "malformed JSON: " + detail}});
  }
}

// Sets one key of a cell; the key and value were validated against key_specs().
void apply(Cell& cell, const std::string& key, const Json& value) {
  const auto size_of = [](const Json& v) { return v.is_string() ? kFull : v.get<std::int64_t>(); };
  const std::map<std::string, std::function<void()>> setters = {
      {"device", [&] { cell.device = value.get<std::string>(); }},
      {"dataset", [&] { cell.dataset = value.get<std::string>(); }},
      {"batch_size", [&] { cell.batch_size = size_of(value); }},
      {"dataset_size", [&] { cell.dataset_size = size_of(value); }},
      {"loader", [&] { cell.loader = value.get<std::string>(); }},
      {"data_placement", [&] { cell.data_placement = value.get<std::string>(); }},
      {"num_workers", [&] { cell.num_workers = value.get<int>(); }},
      {"pin_memory", [&] { cell.pin_memory = value.get<bool>(); }},
      {"gpus", [&] { cell.gpus = value.get<int>(); }},
      {"parallel", [&] { cell.parallel = value.get<std::string>(); }},
      {"nproc", [&] { cell.nproc = value.get<int>(); }},
      {"output_device", [&] { cell.output_device = value.get<int>(); }},
      {"threads", [&] { cell.threads = value.get<int>(); }},
      {"epochs", [&] { cell.epochs = value.get<int>(); }},
      {"warmup_epochs", [&] { cell.warmup_epochs = value.get<int>(); }},
      {"repeats", [&] { cell.min_repeats = cell.max_repeats = value.get<int>(); }},
      {"min_repeats", [&] { cell.min_repeats = value.get<int>(); }},
      {"max_repeats", [&] { cell.max_repeats = value.get<int>(); }},
      {"time_budget_seconds", [&] { cell.time_budget_seconds = value.get<double>(); }},
      {"ci_target", [&] { cell.ci_target = value.get<double>(); }},
      {"timing", [&] { cell.timing = value.get<std::string>(); }},
      {"deterministic", [&] { cell.deterministic = value.get<bool>(); }},
      {"seed", [&] { cell.seed = value.get<std::int64_t>(); }},
      {"isolate", [&] { cell.isolate = value.get<bool>(); }},
      {"timeout_seconds", [&] { cell.timeout_seconds = value.get<double>(); }},
      {"optimizer", [&] { cell.optimizer = value.get<std::string>(); }},
      {"lr", [&] { cell.lr = value.get<double>(); }},
      {"momentum", [&] { cell.momentum = value.get<double>(); }},
  };
  setters.at(key)();
}

bool excluded(const Json& config, const std::vector<Json>& rules) {
  for (const auto& rule : rules) {
    bool all = true;
    for (const auto& [key, wanted] : rule.items()) {
      const Json& actual = config.at(key);
      const bool hit = wanted.is_array()
                           ? std::find(wanted.begin(), wanted.end(), actual) != wanted.end()
                           : wanted == actual;
      if (!hit) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

std::string read_file(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0)
    throw GridError(path, {{"(file)", "cannot open the grid file: no such file or not readable"}});
  try {
    return read_user_file(path, kMaxGridBytes, "a grid");
  } catch (const UserFileError& e) {
    throw GridError(path, {{"(file)", e.problem()}});
  }
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

const std::vector<SettingKey>& setting_keys() {
  static const std::vector<SettingKey> keys = [] {
    std::vector<SettingKey> out;
    for (const auto& spec : key_specs()) out.push_back({spec.name, spec.expected});
    return out;
  }();
  return keys;
}

Grid parse_grid(const std::string& text, const std::string& file) {
  const Json root = parse_json(text, file);
  Validator v;
  Grid grid;
  grid.file = file;
  if (!root.is_object()) {
    throw GridError(file, {{"(document)",
                            "a grid is a JSON object with \"name\" and "
                            "\"experiments\"; got " +
                                shown(root)}});
  }
  const std::vector<std::string> top_keys = {"name", "description", "defaults", "experiments"};
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
  } else {
    grid.name = root["name"].get<std::string>();
  }
  if (root.contains("description")) {
    if (root["description"].is_string())
      grid.description = root["description"].get<std::string>();
    else
      v.add("description", "wrong type: got " + shown(root["description"]) + ", expected a string");
  }

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
    const std::vector<std::string> experiment_keys = {"workload", "name", "description",
                                                      "settings", "grid", "exclude"};
    const Json& experiments = root["experiments"];
    for (std::size_t i = 0; i < experiments.size(); ++i) {
      const std::string path = index_path("experiments", i);
      const Json& e = experiments[i];
      if (!e.is_object()) {
        v.add(path, "wrong type: got " + shown(e) +
                        ", expected an object with \"workload\" and \"grid\"");
        continue;
      }
      for (const auto& [key, value] : e.items()) {
        if (std::find(experiment_keys.begin(), experiment_keys.end(), key) ==
            experiment_keys.end()) {
          v.unknown_key(path, key, experiment_keys);
        }
      }
      Experiment experiment;
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
          const std::string guess = did_you_mean(experiment.workload, workload_names());
          if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
          v.add(key_path(path, "workload"),
                message + "; known workloads: " + join(workload_names()));
        }
      }
      experiment.label = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>()
                                                                     : experiment.workload;
      if (workload != nullptr && defaults.contains("dataset")) {
        v.check_value("defaults.dataset", *find_spec("dataset"), defaults["dataset"], workload);
      }
      experiment.settings = defaults;
      if (e.contains("settings")) {
        const Json own = check_settings(v, key_path(path, "settings"), e["settings"], workload);
        for (const auto& [key, value] : own.items()) experiment.settings[key] = value;
      }

      if (e.contains("grid")) {
        const std::string grid_path = key_path(path, "grid");
        if (!e["grid"].is_object()) {
          v.add(grid_path, "wrong type: got " + shown(e["grid"]) + ", expected an object of axes");
        } else {
          for (const auto& [key, values] : e["grid"].items()) {
            const std::string axis_path = key_path(grid_path, key);
            const KeySpec* spec = find_spec(key);
            if (spec == nullptr) {
              v.unknown_key(grid_path, key, spec_names());
              continue;
            }
            if (!values.is_array() || values.empty()) {
              v.add(axis_path, "got " + shown(values) + ", expected a non-empty list of " +
                                   spec->expected + " (a single value belongs in \"settings\")");
              continue;
            }
            if (e.contains("settings") && e["settings"].is_object() &&
                e["settings"].contains(key)) {
              v.add(axis_path,
                    "\"" + key + "\" is set in both \"settings\" and \"grid\"; keep one");
            }
            std::vector<Json> accepted;
            for (std::size_t k = 0; k < values.size(); ++k) {
              if (!v.check_value(index_path(axis_path, k), *spec, values[k], workload)) continue;
              if (std::find(accepted.begin(), accepted.end(), values[k]) != accepted.end()) {
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
              v.add(rule_path,
                    "got " + shown(rule) + ", expected a non-empty object of key: value");
              continue;
            }
            bool ok = true;
            for (const auto& [key, value] : rule.items()) {
              const KeySpec* spec = find_spec(key);
              if (spec == nullptr) {
                v.unknown_key(rule_path, key, spec_names());
                ok = false;
                continue;
              }
              if (value.is_array()) {
                for (std::size_t m = 0; m < value.size(); ++m) {
                  ok &= v.check_value(index_path(key_path(rule_path, key), m), *spec, value[m],
                                      workload);
                }
              } else {
                ok &= v.check_value(key_path(rule_path, key), *spec, value, workload);
              }
            }
            if (ok) experiment.excludes.push_back(rule);
          }
        }
      }
      grid.experiments.push_back(std::move(experiment));
    }
  }

  if (!v.issues().empty()) throw GridError(file, v.issues());
  return grid;
}

Grid load_grid(const std::string& path) { return parse_grid(read_file(path), path); }

namespace {

// Problems of a whole cell that no single key shows (seed 002's data-parallel pitfalls); "" if
// none.
std::string cell_problem(const Cell& cell) {
  const std::string at = " (cell: " + cell_label(cell) + ")";
  if (cell.parallel != "ddp" && cell.nproc != 1)
    return "nproc " + std::to_string(cell.nproc) + " needs parallel \"ddp\"" + at;
  if (cell.parallel == "none" && is_cuda_device(cell.device) && cell.gpus > 1)
    return "gpus " + std::to_string(cell.gpus) +
           " needs parallel \"dp\" or \"ddp\" to use more than one GPU" + at;
  if (cell.parallel == "dp" && is_cuda_device(cell.device) && cell.output_device >= cell.gpus)
    return "output_device " + std::to_string(cell.output_device) +
           " is not among the GPUs used (0 to " + std::to_string(cell.gpus - 1) + ")" + at;
  const int n = replicas(cell);
  if (cell.batch_size != kFull && cell.batch_size < n)
    return "batch_size " + std::to_string(cell.batch_size) + " is smaller than the " +
           std::to_string(n) + " replicas: some would get no data" + at;
  return "";
}

}  // namespace

Expansion expand_grid(const Grid& grid) {
  Expansion out;
  std::vector<GridIssue> issues;
  std::set<std::string> seen;
  for (std::size_t e = 0; e < grid.experiments.size(); ++e) {
    const Experiment& experiment = grid.experiments[e];
    const WorkloadInfo* info = find_workload(experiment.workload);
    Cell base;
    base.experiment = e;
    base.workload = experiment.workload;
    if (info != nullptr) {
      base.dataset = info->datasets.front();
      base.batch_size = info->batch_size;
      base.epochs = info->epochs;
      base.optimizer = info->optimizer;
      base.lr = info->lr;
      base.momentum = info->momentum;
      base.loader = info->loader;
    }
    for (const auto& [key, value] : experiment.settings.items()) apply(base, key, value);

    // A few long axes multiply into more cells than any sweep can run (or memory can hold).
    std::size_t product = 1;
    for (const auto& axis : experiment.axes)
      product = std::min(product * std::max<std::size_t>(axis.second.size(), 1), kMaxCells + 1);
    if (product > kMaxCells) {
      issues.push_back({"experiments[" + std::to_string(e) + "].grid",
                        "expands to more than " + std::to_string(kMaxCells) +
                            " cells; split the experiment or shorten its lists"});
      continue;
    }

    // Odometer over the axes: the last axis varies fastest.
    std::vector<std::size_t> position(experiment.axes.size(), 0);
    const auto advance = [&] {
      for (std::size_t a = experiment.axes.size(); a-- > 0;) {
        if (++position[a] < experiment.axes[a].second.size()) return true;
        position[a] = 0;
      }
      return false;
    };
    do {
      Cell cell = base;
      for (std::size_t a = 0; a < experiment.axes.size(); ++a) {
        apply(cell, experiment.axes[a].first, experiment.axes[a].second[position[a]]);
      }
      if (excluded(cell_config_json(cell), experiment.excludes)) {
        ++out.excluded;
        continue;
      }
      cell.max_repeats = std::max(cell.max_repeats, cell.min_repeats);
      // Settings without meaning for this cell take one value, so equal cells are not run twice.
      if (!is_cuda_device(cell.device)) {
        cell.gpus = 0;
        cell.data_placement = "device";  // on the CPU, host memory is the device's
      }
      if (cell.loader == "dataloader")
        cell.data_placement = "host";  // its batches are made on the host
      const bool isolate_set =
          experiment.settings.contains("isolate") ||
          std::any_of(experiment.axes.begin(), experiment.axes.end(),
                      [](const auto& axis) { return axis.first == "isolate"; });
      if (!isolate_set) cell.isolate = is_cuda_device(cell.device);
      if (cell.timeout_seconds > 0.0) cell.isolate = true;  // a timeout needs a process to end
      if (cell.parallel == "ddp" && is_cuda_device(cell.device))
        cell.gpus = cell.nproc;  // one GPU per rank
      if (cell.parallel != "dp") cell.output_device = 0;
      if (const std::string problem = cell_problem(cell); !problem.empty()) {
        issues.push_back({"experiments[" + std::to_string(e) + "]", problem});
        continue;
      }
      if (!seen.insert(cell_config_json(cell).dump()).second) {
        ++out.duplicates;
        continue;
      }
      cell.index = out.cells.size();
      out.cells.push_back(cell);
    } while (advance());
  }
  if (!issues.empty()) throw GridError(grid.file, issues);
  return out;
}

}  // namespace crossover
