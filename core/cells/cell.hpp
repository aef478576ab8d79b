#pragma once
// One concrete benchmark configuration: every axis and setting resolved to a single value.
// The grid expands into a flat list of these before anything runs.

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cells/device.hpp"
#include "core/cells/modes.hpp"

namespace crossover {

/// A key's role (core/cells/keys.hpp, which declares every key of a cell).
enum class KeyRole;

/// A batch size or data set size of "full" (the whole training split).
inline constexpr std::int64_t kFull = -1;
/// kFull's word in grids and results.
inline constexpr const char* kFullWord = "full";

/// One cell of a grid. Sizes of kFull mean "the whole training split".
struct Cell {
  std::size_t index = 0;       ///< position in the expanded grid, from 0
  std::size_t experiment = 0;  ///< index into the grid's `experiments`
  std::string workload;
  std::string dataset;  ///< resolved: the workload's default when the grid names none
  Device device;
  std::int64_t batch_size = kFull;
  std::int64_t dataset_size = kFull;
  Loader loader = Loader::kTensor;
  Placement data_placement = Placement::kDevice;  ///< where the tensor loader keeps the data
  int num_workers = 0;
  bool pin_memory = false;
  int gpus = 1;  ///< GPUs used; recorded as 0 on the CPU, where it has no meaning
  Parallel parallel = Parallel::kNone;
  int nproc = 1;          ///< ddp: processes (ranks) on this node; 1 otherwise
  int output_device = 0;  ///< dp: the GPU (index among those used) that gathers outputs
  int threads = 0;        ///< 0 = the libraries' defaults
  int epochs = 1;
  int warmup_epochs = 1;
  int min_repeats = 3;  ///< `repeats: N` in a grid sets both bounds to N
  int max_repeats = 10;
  /// Child processes the repeats are spread over, one after another (1: the sweep's own process
  /// or one child); with more, each process's median is a sample of the variation between
  /// processes, which `compare` tests the change against.
  int processes = 1;
  double time_budget_seconds = 60.0;  ///< per cell: no new repeat starts after this
  double ci_target = 0.02;            ///< stop when the median's 95 % CI is this narrow, relative
  Timing timing = Timing::kEndToEnd;
  /// Counted: the instructions (and estimated cycles) of every timed epoch, in a process of its
  /// own under the counter (CPU cells; a CUDA cell is timed only).
  Count count = Count::kNone;
  bool deterministic = false;  ///< deterministic algorithms, cuDNN deterministic, benchmark off
  std::int64_t seed = 0;
  /// Run the cell in a child process, so that an abort, a crash or a hang costs only this cell.
  /// A grid that does not set it gets true for CUDA cells, false for CPU cells.
  bool isolate = false;
  double timeout_seconds = 0.0;  ///< end the cell as failed after this long (0: no limit); isolates
  Optimizer optimizer = Optimizer::kAdam;
  double lr = 0.01;
  double momentum = 0.0;
  Execution execution = Execution::kEager;
  OptimizerImpl optimizer_impl = OptimizerImpl::kLoop;
  Precision precision = Precision::kFp32;  ///< tf32 on CUDA alone; bf16 autocasts
  // The generic `mlp` workload's model (0 for every other workload, whose model is fixed).
  int features = 0;  ///< input features
  int classes = 0;   ///< output classes
  int width = 0;     ///< units per hidden layer
  int depth = 0;     ///< hidden layers
  // The `torchscript` workload's model ("" and empty for every other workload).
  std::string model;                      ///< a torch.jit.save file: absolute once expanded
  std::vector<std::int64_t> input_shape;  ///< one sample's shape
  int outputs = 0;                        ///< regression targets (0: classes says the task)
  /// The machine's label (`run --label`, by default the host name): a dimension when `report`
  /// reads the runs of several machines, never a reason for `compare` to unpair cells.
  std::string host;
};

/// The configuration keys of a cell, as they appear in results (sizes of kFull as "full"), in
/// the order of grid_keys().
nlohmann::ordered_json cell_config_json(const Cell& cell);

/// The identity keys of a cell: cell_config_json without protection and policy keys. Cells are
/// paired, tabled and matched across runs on these alone.
nlohmann::ordered_json cell_identity_json(const Cell& cell);

/// The identity keys less the machine's label: what matches a cell across runs of one grid made
/// on other machines (`compare`, `--resume`, `merge`, a search's probes).
nlohmann::ordered_json cell_match_json(const Cell& cell);

/// What pairs `cell` with a cell that differs from it in `axis` alone: every identity key but the
/// axis and, when the axis is the device, but the keys that mean nothing on the CPU (grid_keys'
/// cpu_value: gpus, data_placement) or only on CUDA (cuda_only: execution). The one pairing rule of
/// the device table, the crossovers and the recommendations.
nlohmann::ordered_json pairing_key(const Cell& cell, const std::string& axis);

/// `key` (a pairing_key across devices) less the keys a device pair may also differ in: with
/// `host`, the host_only keys (`threads`: a predicted CUDA cell is made once for every value of
/// them); with `forced`, the keys a cuda_only key sets on a CUDA cell (follows_cuda_only: a graph
/// cell's optimizer_impl is fused), where the CUDA side sets one.
nlohmann::ordered_json loosened(nlohmann::ordered_json key, bool host, bool forced);

/// The identity keys less the machine's label and the host_only keys: cells of the same value
/// here are one prediction of a CUDA cell.
nlohmann::ordered_json predicted_identity(const Cell& cell);

/// Whether every host_only key of `cell` is at its default (a default Cell's value).
bool host_keys_at_defaults(const Cell& cell);

/// Whether every cuda_only key of `cell` is at its default (`execution` "eager").
bool cuda_keys_at_defaults(const Cell& cell);

/// What a cell is compared within: its identity keys less the device, every knob (threads,
/// precision, execution, optimizer_impl, the data path's keys), the keys that mean something on
/// one device only, and the machine's label. Cells with one comparison unit are what the device
/// tables, crossovers and --compare pair with each other, so a sharded sweep keeps them in one
/// part (on one machine).
nlohmann::ordered_json comparison_unit(const Cell& cell);

/// The keys of `role` whose values differ between two cells, as "min_repeats 3 -> 10" texts
/// (`compare` and `--resume` name the policy and protection keys that changed).
std::vector<std::string> key_differences(const Cell& from, const Cell& to, KeyRole role);

/// key_differences of the policy keys, then of the protection keys: how two cells that measure
/// the same thing were measured or guarded differently.
std::vector<std::string> measuring_differences(const Cell& from, const Cell& to);

/// A cell back from its configuration keys plus "cell" (its index), as in results.jsonl; throws
/// std::runtime_error naming a missing or mistyped key (keys added later may be missing).
Cell cell_from_json(const nlohmann::json& json);

/// A value of a file users hand in (results.jsonl) as T. An integer T takes only a whole number
/// that fits it (nlohmann's get<int>() of 1e91 is undefined behaviour, found by fuzz_results);
/// throws std::runtime_error naming the value otherwise. A floating-point T reads null as NaN:
/// JSON has no NaN, and nlohmann writes a non-finite number (a diverged loss) as null. Other types
/// are nlohmann's get<T>().
template <typename T>
T json_as(const nlohmann::json& value) {
  if constexpr (std::is_floating_point_v<T>) {
    return value.is_null() ? std::numeric_limits<T>::quiet_NaN() : value.get<T>();
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const double x = value.is_number() ? value.get<double>() : std::nan("");
    if (!(x == std::trunc(x) && x >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
          x < static_cast<double>(std::numeric_limits<T>::max()))) {
      throw std::runtime_error("expected a whole number in range, got " + value.dump());
    }
    return value.is_number_float() ? static_cast<T>(x) : value.get<T>();
  } else {
    return value.get<T>();
  }
}

/// The two workloads the model keys shape (core/cells/model_keys.cpp), named once: a user's
/// TorchScript model, and the MLP sized by features, width, depth and classes. The catalog
/// (workloads/data/catalog.cpp) describes them with the others.
inline constexpr const char* kUserModelWorkload = "torchscript";
inline constexpr const char* kSizedMlpWorkload = "mlp";

/// A short label for progress lines: "iris_mlp cpu batch=full size=1000 threads=1"; the generic
/// mlp names its model ("mlp 32-256x2-10 cpu ..."), torchscript its file ("torchscript mynet.pt
/// cpu ...").
std::string cell_label(const Cell& cell);

/// The data path in a few words: "tensor", "tensor@host pinned", "dataloader w2".
std::string data_path_text(const Cell& cell);

/// "full" or the number.
std::string size_text(std::int64_t size);

/// How many model replicas a cell trains: GPUs for dp, processes for ddp, otherwise 1.
int replicas(const Cell& cell);

/// The end of a cell whose grid sets no `timeout_seconds`: 4 x its time budget + 120 s (6 minutes
/// at the default budget of 60 s). An isolated cell is then killed and `failed`; a cell in the
/// run's own process ends the run (runner/execution/watchdog.hpp). docs/grids.md says so.
double default_timeout_seconds(const Cell& cell);

}  // namespace crossover
