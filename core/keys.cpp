#include "core/keys.hpp"

#include <utility>

#include "core/cell.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Builds one declaration: the key, its field in Cell, and what the key table says of it.
class Declare {
 public:
  template <typename T>
  Declare(std::string name, KeyKind kind, T Cell::*field) {
    key_.name = std::move(name);
    key_.kind = kind;
    key_.get = [field](const Cell& cell) { return Json(cell.*field); };
    key_.set = [field](Cell& cell, const nlohmann::json& value) {
      cell.*field = json_as<T>(value);
    };
  }
  /// A size: a positive integer or "full" (kFull).
  Declare(std::string name, std::int64_t Cell::*field) {
    key_.name = std::move(name);
    key_.kind = KeyKind::kSizeOrFull;
    key_.get = [field](const Cell& cell) {
      return cell.*field == kFull ? Json("full") : Json(cell.*field);
    };
    key_.set = [field](Cell& cell, const nlohmann::json& value) {
      cell.*field = value.is_string() ? kFull : json_as<std::int64_t>(value);
    };
  }
  /// A key without a field of its own (`repeats`).
  Declare(std::string name, KeyKind kind, std::function<void(Cell&, const nlohmann::json&)> set) {
    key_.name = std::move(name);
    key_.kind = kind;
    key_.set = std::move(set);
  }

  Declare& role(KeyRole role) {
    key_.role = role;
    return *this;
  }
  Declare& range(double min, double max) {
    key_.min = min;
    key_.max = max;
    return *this;
  }
  Declare& choices(std::vector<std::string> choices) {
    key_.choices = std::move(choices);
    return *this;
  }
  Declare& expects(std::string expected) {
    key_.expected = std::move(expected);
    return *this;
  }
  Declare& means(std::string description) {
    key_.description = std::move(description);
    return *this;
  }
  Declare& defaults_to(std::string text) {
    key_.default_text = std::move(text);
    return *this;
  }
  Declare& on_cuda(nlohmann::json value) {
    key_.cuda_default = std::move(value);
    return *this;
  }
  Declare& on_cpu(nlohmann::json value) {
    key_.cpu_value = std::move(value);
    return *this;
  }
  Declare& cuda_only() {
    key_.cuda_only = true;
    return *this;
  }
  Declare& not_settable() {
    key_.settable = false;
    return *this;
  }
  Declare& added_later() {
    key_.added_later = true;
    return *this;
  }
  operator GridKey() const { return key_; }  // NOLINT: a builder turns into its key

 private:
  GridKey key_;
};

constexpr auto kInteger = KeyKind::kInteger;
constexpr auto kNumber = KeyKind::kNumber;
constexpr auto kBoolean = KeyKind::kBoolean;
constexpr auto kText = KeyKind::kText;

std::vector<GridKey> declare_keys() {
  std::vector<GridKey> keys;
  const auto add = [&keys](GridKey key) { keys.push_back(std::move(key)); };
  // What is measured.
  add(Declare("workload", kText, &Cell::workload)
          .not_settable()
          .expects("a workload (see `crossover list`)")
          .means("the model and its training recipe; set by each experiment's \"workload\""));
  add(Declare("dataset", kText, &Cell::dataset)
          .expects("a data set the workload accepts")
          .means("a data set the workload accepts (see `crossover list`)")
          .defaults_to("the workload's"));
  add(Declare("device", kText, &Cell::device)
          .expects("\"cpu\", \"cuda\" or \"cuda:N\"")
          .means("`\"cpu\"`, `\"cuda\"`, `\"cuda:N\"`"));
  add(Declare("batch_size", &Cell::batch_size)
          .range(1, 1e9)
          .expects("a positive integer or \"full\"")
          .means("a positive integer or `\"full\"` (the whole training split per step)")
          .defaults_to("the workload's"));
  add(Declare("dataset_size", &Cell::dataset_size)
          .range(1, 1e9)
          .expects("a positive integer or \"full\"")
          .means("training rows: a positive integer or `\"full\"`; fewer rows are a seeded "
                 "subsample, more rows are drawn with replacement from the training split; the "
                 "test split never changes"));
  add(Declare("loader", kText, &Cell::loader)
          .choices({"tensor", "dataloader"})
          .expects("\"tensor\" or \"dataloader\"")
          .means("`\"tensor\"` or `\"dataloader\"` (see *The data path*)")
          .defaults_to("the workload's"));
  add(Declare("data_placement", kText, &Cell::data_placement)
          .choices({"device", "host"})
          .on_cpu("device")
          .expects("\"device\" or \"host\"")
          .means("`\"device\"` or `\"host\"`: where the tensor loader keeps the data set "
                 "(`dataloader` batches are always made on the host; on the CPU it is "
                 "`\"device\"`)"));
  add(Declare("num_workers", kInteger, &Cell::num_workers)
          .range(0, 256)
          .expects("an integer from 0 to 256")
          .means("0 to 256: DataLoader worker threads"));
  add(Declare("pin_memory", kBoolean, &Cell::pin_memory)
          .expects("true or false")
          .means("`true` / `false`: page-locked host memory for copies to a CUDA device"));
  add(Declare("gpus", kInteger, &Cell::gpus)
          .range(1, 1024)
          .on_cpu(0)
          .expects("an integer from 1 to 1024")
          .means("1 to 1024: GPUs used by a CUDA cell (ignored on the CPU, recorded as 0; more "
                 "than 1 needs `parallel`)"));
  add(Declare("parallel", kText, &Cell::parallel)
          .choices({"none", "dp", "ddp"})
          .added_later()
          .expects("\"none\", \"dp\" or \"ddp\"")
          .means("`\"none\"`, `\"dp\"` (LibTorch's DataParallel over `gpus` CUDA devices from "
                 "`device`, loss on `output_device`; CUDA builds only) or `\"ddp\"` (one process "
                 "per replica, c10d; see *Several processes and machines*)"));
  add(Declare("nproc", kInteger, &Cell::nproc)
          .range(1, 1024)
          .added_later()
          .expects("an integer from 1 to 1024 (ddp processes per node)")
          .means("ddp: processes (ranks) on this machine; on CUDA each rank uses one GPU (`gpus` "
                 "= `nproc`)"));
  add(Declare("output_device", kInteger, &Cell::output_device)
          .range(0, 1023)
          .added_later()
          .expects("an integer from 0 (dp: index among the GPUs)")
          .means("dp: the GPU, by index among those used, that gathers the outputs and computes "
                 "the loss"));
  add(Declare("threads", kInteger, &Cell::threads)
          .range(0, 4096)
          .expects("an integer from 0 (library default) to 4096")
          .means("0 (library defaults) or a thread count that bounds **every** pool: LibTorch "
                 "intra-op, OpenMP and the BLAS library's own threads"));
  add(Declare("epochs", kInteger, &Cell::epochs)
          .range(1, 1e8)
          .expects("an integer from 1 to 100000000")
          .means("timed epochs per repeat")
          .defaults_to("the workload's"));
  add(Declare("warmup_epochs", kInteger, &Cell::warmup_epochs)
          .range(0, 1e6)
          .expects("an integer from 0 to 1000000")
          .means("untimed epochs before each repeat"));
  // How long and how often it is measured.
  add(Declare("min_repeats", kInteger, &Cell::min_repeats)
          .role(KeyRole::kPolicy)
          .range(1, 10000)
          .expects("an integer from 1 to 10000")
          .means("the fewest repetitions of adaptive repetition"));
  add(Declare("max_repeats", kInteger, &Cell::max_repeats)
          .role(KeyRole::kPolicy)
          .range(1, 10000)
          .expects("an integer from 1 to 10000")
          .means("the most repetitions of adaptive repetition"));
  add(Declare("repeats", kInteger,
              [](Cell& cell, const nlohmann::json& value) {
                cell.min_repeats = cell.max_repeats = json_as<int>(value);
              })
          .role(KeyRole::kPolicy)
          .range(1, 10000)
          .expects("an integer from 1 to 10000 (a fixed count)")
          .means("a fixed number of repetitions, each from a freshly initialised model (sets "
                 "both `min_repeats` and `max_repeats`; not a results column)")
          .defaults_to("—"));
  add(Declare("time_budget_seconds", kNumber, &Cell::time_budget_seconds)
          .role(KeyRole::kPolicy)
          .range(0, 1e7)
          .expects("a number of seconds from 0")
          .means("per cell: no new repeat starts after this (the minimum always runs)"));
  add(Declare("ci_target", kNumber, &Cell::ci_target)
          .role(KeyRole::kPolicy)
          .range(1e-6, 1)
          .expects("a relative width above 0 and at most 1 (0.02 = 2 %)")
          .means("stop when the median's 95 % CI is this narrow, relative to the median"));
  // What is measured, again.
  add(Declare("timing", kText, &Cell::timing)
          .choices({"end_to_end", "phases"})
          .expects("\"end_to_end\" or \"phases\"")
          .means("`\"end_to_end\"` or `\"phases\"` (synchronised per-phase times; adds syncs)"));
  add(Declare("deterministic", kBoolean, &Cell::deterministic)
          .expects("true or false")
          .means("`true`: deterministic algorithms, cuDNN deterministic, benchmark off"));
  add(Declare("seed", kInteger, &Cell::seed)
          .range(0, 9.0e15)
          .expects("a non-negative integer")
          .means("seeds the split, the resampling and the weights"));
  // How the cell is guarded.
  add(Declare("isolate", kBoolean, &Cell::isolate)
          .role(KeyRole::kProtection)
          .on_cuda(true)
          .added_later()
          .expects("true or false")
          .means("`true`: run the cell in a child process (`crossover worker`), so that an abort, "
                 "a segfault, an out-of-memory kill or a hang costs only this cell — it becomes "
                 "`failed` with the signal and the last lines the child wrote (about 0.5 s more "
                 "per cell, to start LibTorch)")
          .defaults_to("`true` for CUDA cells, `false` for CPU cells"));
  add(Declare("timeout_seconds", kNumber, &Cell::timeout_seconds)
          .role(KeyRole::kProtection)
          .range(0, 1e7)
          .added_later()
          .expects("a number of seconds from 0 (0: no limit)")
          .means("end the cell as `failed` (\"timed out after N s\") after this long; isolates "
                 "the cell; 0 = no limit"));
  // What is measured: the optimiser.
  add(Declare("optimizer", kText, &Cell::optimizer)
          .choices({"sgd", "adam"})
          .expects("\"sgd\" or \"adam\"")
          .means("`\"sgd\"` or `\"adam\"`")
          .defaults_to("the workload's"));
  add(Declare("lr", kNumber, &Cell::lr)
          .range(1e-12, 100)
          .expects("a number greater than 0 and at most 100")
          .means("learning rate")
          .defaults_to("the workload's"));
  add(Declare("momentum", kNumber, &Cell::momentum)
          .range(0, 0.999999)
          .expects("a number from 0 to below 1")
          .means("SGD momentum")
          .defaults_to("the workload's"));
  // What is measured: how the step is executed.
  add(Declare("execution", kText, &Cell::execution)
          .choices({"eager", "graph"})
          .cuda_only()
          .added_later()
          .expects("\"eager\" or \"graph\"")
          .means("`\"eager\"` (one kernel launch at a time, as the seeds ran) or `\"graph\"`: "
                 "the whole training step captured once in a CUDA graph and replayed (CUDA "
                 "cells; a graph cell's optimiser is always `\"fused\"`, so it is recorded so)"));
  add(Declare("optimizer_impl", kText, &Cell::optimizer_impl)
          .choices({"loop", "fused"})
          .added_later()
          .expects("\"loop\" or \"fused\"")
          .means("`\"loop\"` (LibTorch's `torch::optim`, one parameter at a time) or "
                 "`\"fused\"` (ATen's multi-tensor kernels `_fused_adam_` / `_fused_sgd_`, "
                 "step counts on the device; skipped where the LibTorch lacks the kernel)"));
  add(Declare("precision", kText, &Cell::precision)
          .choices({"fp32", "tf32", "bf16"})
          .added_later()
          .expects("\"fp32\", \"tf32\" or \"bf16\"")
          .means("`\"fp32\"` (LibTorch's defaults), `\"tf32\"` (TF32 matrix products and "
                 "convolutions; CUDA cells) or `\"bf16\"` (forward and loss autocast to "
                 "bfloat16, images channels-last; CPU and CUDA)"));
  return keys;
}

}  // namespace

const std::vector<GridKey>& grid_keys() {
  static const std::vector<GridKey> keys = declare_keys();
  return keys;
}

const GridKey* find_grid_key(const std::string& name) {
  for (const auto& key : grid_keys()) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

std::vector<std::string> settable_key_names() {
  std::vector<std::string> names;
  for (const auto& key : grid_keys()) {
    if (key.settable) names.push_back(key.name);
  }
  return names;
}

KeyRole key_role(const std::string& name) {
  const GridKey* key = find_grid_key(name);
  return key != nullptr ? key->role : KeyRole::kIdentity;
}

std::string role_name(KeyRole role) {
  switch (role) {
    case KeyRole::kIdentity:
      return "identity";
    case KeyRole::kProtection:
      return "protection";
    case KeyRole::kPolicy:
      return "policy";
  }
  return "identity";
}

std::string default_text(const GridKey& key) {
  if (!key.default_text.empty()) return key.default_text;
  if (!key.get) return "—";
  const Json value = key.get(Cell{});
  return "`" + value.dump() + "`";
}

std::string key_table_markdown() {
  std::string out = "| key | role | values and meaning | default |\n|---|---|---|---|\n";
  for (const auto& key : grid_keys()) {
    if (!key.settable) continue;
    out += "| `" + key.name + "` | " + role_name(key.role) + " | " + key.description + " | " +
           default_text(key) + " |\n";
  }
  return out;
}

}  // namespace crossover
