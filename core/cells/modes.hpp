#pragma once
// The settings that take one of a few words (loader, parallel, execution, precision, ...), as
// types: code compares values, and the words appear only where grids, results and reports are read
// or written. Each enum's words are declared once, in its `words` table (core/text/words.hpp), in
// the order the key table lists them.

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/text/words.hpp"

namespace crossover {

/// How batches reach the step.
enum class Loader {
  kTensor,      ///< batches cut from one tensor per epoch (no workers)
  kDataLoader,  ///< torch::data's DataLoader: per-sample gets, collation, optional workers
};
/// Where the tensor loader keeps the data set.
enum class Placement { kDevice, kHost };
/// How replicas share the work.
enum class Parallel {
  kNone,
  kDp,   ///< LibTorch's DataParallel over several GPUs (CUDA builds only)
  kDdp,  ///< one process per replica, gradients all-reduced through c10d
};
/// How the step is executed.
enum class Execution {
  kEager,  ///< one kernel launch at a time
  kGraph,  ///< the whole step captured once in a CUDA graph and replayed
};
/// The optimiser: plain SGD (with the cell's momentum) or Adam.
enum class Optimizer { kSgd, kAdam };
/// Which optimiser implementation updates the parameters.
enum class OptimizerImpl {
  kLoop,     ///< torch::optim: one parameter at a time
  kForeach,  ///< ATen's _foreach_* operators: a few calls for all parameters together
  kFlat,     ///< parameters and gradients as views of one buffer each: a few calls in all
  kFused,    ///< ATen's multi-tensor fused kernels
};
/// The arithmetic of the forward and backward passes.
enum class Precision { kFp32, kTf32, kBf16 };
/// What the timed epochs measure.
enum class Timing {
  kEndToEnd,  ///< the epoch, with one synchronisation at its end
  kPhases,    ///< synchronised per-phase times (data, forward, backward, step)
};
/// The kind of device a cell runs on ("cpu"; "cuda" or "cuda:N").
enum class DeviceKind { kCpu, kCuda };
/// What a counted cell counts in its timed epochs besides their time (runner/hardware/counter).
enum class Count {
  kNone,          ///< timed only
  kInstructions,  ///< instructions executed: hardware counters, else Callgrind
  kCycles,        ///< also cycles estimated from Callgrind's cache simulation
};

// The words of each enum, found by argument-dependent lookup: words(Parallel{}).
inline constexpr auto words(Loader) {
  return std::array{std::pair{Loader::kTensor, std::string_view("tensor")},
                    std::pair{Loader::kDataLoader, std::string_view("dataloader")}};
}
inline constexpr auto words(Placement) {
  return std::array{std::pair{Placement::kDevice, std::string_view("device")},
                    std::pair{Placement::kHost, std::string_view("host")}};
}
inline constexpr auto words(Parallel) {
  return std::array{std::pair{Parallel::kNone, std::string_view("none")},
                    std::pair{Parallel::kDp, std::string_view("dp")},
                    std::pair{Parallel::kDdp, std::string_view("ddp")}};
}
inline constexpr auto words(Execution) {
  return std::array{std::pair{Execution::kEager, std::string_view("eager")},
                    std::pair{Execution::kGraph, std::string_view("graph")}};
}
inline constexpr auto words(Optimizer) {
  return std::array{std::pair{Optimizer::kSgd, std::string_view("sgd")},
                    std::pair{Optimizer::kAdam, std::string_view("adam")}};
}
inline constexpr auto words(OptimizerImpl) {
  return std::array{std::pair{OptimizerImpl::kLoop, std::string_view("loop")},
                    std::pair{OptimizerImpl::kForeach, std::string_view("foreach")},
                    std::pair{OptimizerImpl::kFlat, std::string_view("flat")},
                    std::pair{OptimizerImpl::kFused, std::string_view("fused")}};
}
inline constexpr auto words(Precision) {
  return std::array{std::pair{Precision::kFp32, std::string_view("fp32")},
                    std::pair{Precision::kTf32, std::string_view("tf32")},
                    std::pair{Precision::kBf16, std::string_view("bf16")}};
}
inline constexpr auto words(Timing) {
  return std::array{std::pair{Timing::kEndToEnd, std::string_view("end_to_end")},
                    std::pair{Timing::kPhases, std::string_view("phases")}};
}
inline constexpr auto words(DeviceKind) {
  return std::array{std::pair{DeviceKind::kCpu, std::string_view("cpu")},
                    std::pair{DeviceKind::kCuda, std::string_view("cuda")}};
}

inline constexpr auto words(Count) {
  return std::array{std::pair{Count::kNone, std::string_view("none")},
                    std::pair{Count::kInstructions, std::string_view("instructions")},
                    std::pair{Count::kCycles, std::string_view("cycles")}};
}

// JSON: the word (core/text/words.hpp).
CROSSOVER_JSON_AS_WORD(Loader)
CROSSOVER_JSON_AS_WORD(Placement)
CROSSOVER_JSON_AS_WORD(Parallel)
CROSSOVER_JSON_AS_WORD(Execution)
CROSSOVER_JSON_AS_WORD(Optimizer)
CROSSOVER_JSON_AS_WORD(OptimizerImpl)
CROSSOVER_JSON_AS_WORD(Precision)
CROSSOVER_JSON_AS_WORD(Timing)
CROSSOVER_JSON_AS_WORD(DeviceKind)
CROSSOVER_JSON_AS_WORD(Count)

/// The word, for logs and test messages.
template <typename E, typename = std::enable_if_t<kHasWords<E>>>
std::ostream& operator<<(std::ostream& out, E value) {
  return out << text_of(value);
}

}  // namespace crossover
