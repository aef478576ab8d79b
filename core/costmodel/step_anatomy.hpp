#pragma once
// A training step as the dispatcher sees it: the operators it dispatches in each phase, what each
// computes (FLOPs) and moves (bytes read and written), the bytes it copies from the host to the
// device, and how long it waited for its batch. Recorded once per cell, outside the timed epochs
// (workloads/anatomy/step_probe), and the input of the cost model (core/costmodel/cost_model). No
// LibTorch.

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text/words.hpp"

namespace crossover {

/// The phases of a training step, in order.
enum class Phase { kData, kCopy, kForward, kBackward, kOptimizer };
inline constexpr int kPhaseCount = 5;

/// "data", "copy", "forward", "backward", "optimizer".
inline constexpr auto words(Phase) {
  return std::array{std::pair{Phase::kData, std::string_view("data")},
                    std::pair{Phase::kCopy, std::string_view("copy")},
                    std::pair{Phase::kForward, std::string_view("forward")},
                    std::pair{Phase::kBackward, std::string_view("backward")},
                    std::pair{Phase::kOptimizer, std::string_view("optimizer")}};
}

/// The arithmetic an operator's FLOPs are: what a device runs them on. A matrix product and a
/// convolution run on a GPU's tensor cores where the precision allows (TF32 convolutions by
/// default on Ampere and newer, as cuDNN does; matrix products in TF32 only when asked); an
/// element-wise update (the optimiser's) is bound by its bytes on any device.
enum class Math { kNone, kMatmul, kConvolution, kElementwise };
inline constexpr int kMathCount = 4;

/// "none", "matmul", "convolution", "elementwise".
inline constexpr auto words(Math) {
  return std::array{std::pair{Math::kNone, std::string_view("none")},
                    std::pair{Math::kMatmul, std::string_view("matmul")},
                    std::pair{Math::kConvolution, std::string_view("convolution")},
                    std::pair{Math::kElementwise, std::string_view("elementwise")}};
}

/// Operators of one phase that cost the same: the same FLOPs of the same arithmetic and the same
/// bytes each.
struct OpGroup {
  Phase phase = Phase::kForward;
  double count = 0.0;  ///< how many
  /// each: 2 m n k of a matrix product or a convolution (forward or backward), an optimiser
  /// update's arithmetic per element; 0 for the rest
  double flops = 0.0;
  double bytes = 0.0;       ///< each: its tensors read and written
  Math math = Math::kNone;  ///< what the FLOPs are
};

/// How a step's FLOPs are counted: 1, matrix products and forward convolutions only (results
/// before 2026-12-02, whose ResNet steps count one third of their arithmetic); 2, every backward
/// convolution and the optimiser's arithmetic too, each group with its Math. A recorded anatomy
/// under an older rule is taken again where it is predicted from (predict --check).
inline constexpr int kFlopsRule = 2;

/// One step's anatomy.
struct StepAnatomy {
  std::vector<OpGroup> groups;  ///< every top-level operator, grouped
  double h2d_bytes = 0.0;       ///< copied from the host to the device per step
  double loader_seconds = 0.0;  ///< the probe step's data phase: waiting for and making its batch
  double step_seconds = 0.0;    ///< the probe step, end to end (synchronised per phase)
  /// What making one batch costs the host: the training thread's wait where it makes each batch,
  /// for a DataLoader with workers the wait of its twin without them (runner/anatomy).
  double batch_seconds = 0.0;

  /// Adds one operator to its group.
  void add(Phase phase, double flops, double bytes, Math math = Math::kNone);
  /// Operators dispatched in `phase`.
  double ops(Phase phase) const;
  double ops() const;
  double flops() const;
  double bytes() const;
  bool empty() const { return groups.empty(); }
};

/// The groups as results.jsonl keeps them: [[phase, count, flops, bytes, math], ...] (math the
/// index of Math).
std::vector<std::vector<double>> groups_to_rows(const std::vector<OpGroup>& groups);

/// The groups back from their rows; throws std::runtime_error for a row that is not four or five
/// finite numbers, a phase outside 0-4, a math outside 0-3, or a count, FLOPs or bytes below 0.
/// A row of four (a result from before the math was kept) with FLOPs is a matrix product's.
std::vector<OpGroup> groups_from_rows(const std::vector<std::vector<double>>& rows);

}  // namespace crossover
