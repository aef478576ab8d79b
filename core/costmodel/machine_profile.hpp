#pragma once
// What a machine does per operator, per FLOP and per byte: the profile the cost model predicts a
// step from. `crossover profile` measures one (runner/machine/profile_measure); profiles/ ships
// the ones the project has, each with where its numbers came from. A profile is a small JSON
// file read as a user's file: every number checked before it is used. No LibTorch.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cells/modes.hpp"
#include "core/costmodel/bound.hpp"
#include "core/costmodel/prediction_band.hpp"

namespace crossover {

/// One device's constants.
struct DeviceProfile {
  /// The host's fixed cost of one dispatched operator in a training step (autograd included),
  /// synchronised: what a step of tiny operators costs per operator.
  double dispatch_seconds = 0.0;
  /// Matrix-multiply throughput by size: (n, FLOP/s of an n x n x n product), n ascending. Small
  /// products are slower per FLOP than large ones; a size between two rungs is interpolated on
  /// log scales.
  std::vector<std::pair<double, double>> gemm;
  double memory_bytes_per_second = 0.0;  ///< element-wise: bytes read and written per second
  /// CPU: the same into a tensor allocated afresh, as a training step's activations are (its pages
  /// touched for the first time); 0 where the profile did not measure it, and
  /// memory_bytes_per_second stands in.
  double fresh_memory_bytes_per_second = 0.0;
  double h2d_pageable_bytes_per_second = 0.0;  ///< CUDA: host-to-device copies from pageable
  double h2d_pinned_bytes_per_second = 0.0;    ///< and from page-locked memory
  double sync_seconds = 0.0;                   ///< CUDA: one synchronisation of an idle device
  /// CUDA: what one operator of a step replayed as a CUDA graph costs (its kernels run back to
  /// back, with no dispatch); 0 where the profile did not measure it (a profile from before it
  /// was measured, or a derived one), and graph replays then count their operators as free.
  double graph_op_seconds = 0.0;
  /// CPU: what one operator of making a batch on the host costs (a sample's indexing and
  /// normalisation, the collation: no autograd); 0 where the profile did not measure it, and
  /// dispatch_seconds stands in.
  double batch_op_seconds = 0.0;

  /// CUDA: the tensor cores' top throughput in TF32 and in BF16, FLOP/s, as the profile's
  /// FP32 ladder tops out at its FP32 peak; 0 where the card has none (Turing's TF32) or the
  /// profile does not know it, and FP32 stands in.
  double tf32_flops_per_second = 0.0;
  double bf16_flops_per_second = 0.0;
  /// CUDA: a convolution's top rate in FP32, TF32 and BF16, FLOP/s: the card's peak in that math
  /// times the share of it convolutions reach (a convolution is no square matrix product: the
  /// small ones of a CIFAR ResNet reach far less); 0 where unknown, and the matrix products' rate
  /// stands in.
  double convolution_fp32_flops_per_second = 0.0;
  double convolution_tf32_flops_per_second = 0.0;
  double convolution_bf16_flops_per_second = 0.0;
  /// Where these came from, in a line: measured, or how they were borrowed.
  std::string tensor_source;

  /// FLOP/s of a matrix product with `flops` FLOPs (its size: the cube root of flops / 2).
  double gemm_flops_per_second(double flops) const;
  /// The same product at a top rate of `top` FLOP/s: the ladder's time for its size less its
  /// work at the ladder's top (the fixed part: launch, tiles) plus its work at `top`. The
  /// ladder's own rate where `top` is 0.
  double flops_per_second_at(double flops, double top) const;
};

/// How a profile's predictions of one device kind did against real runs (`crossover predict
/// --check ... --fit-band`).
struct Validation {
  double median_abs_error = 0.0;             ///< of the epoch, over the cells below
  PredictionBand band;                       ///< every bound class together
  std::map<Bound, PredictionBand> by_bound;  ///< each class with kMinBandCells cells or more
  std::vector<std::string> runs;             ///< the runs the cells came from
  /// How the band's coverage was measured: "leave-one-run-out" (each run's cells against a band
  /// fitted without them), with what that gave; "" in a profile from before it was recorded,
  /// whose coverage was measured on the cells that set its band.
  std::string coverage_method;
  Coverage coverage;
  /// What the band was not measured on, said wherever the band is (a profile derived for a card
  /// of another architecture than the cards that set it); "" for none.
  std::string note;
};

/// A validation as a profile's file holds it, and back; from_json throws std::runtime_error
/// naming the field under `at` that is wrong.
nlohmann::ordered_json validation_to_json(const Validation& v);
Validation validation_from_json(const nlohmann::ordered_json& j, const std::string& at);

/// How far `v`'s band can be trusted, in words: "its band held 82 % of 33 real cells of 5 runs,
/// each run's against a band fitted without it", or what an older profile's band lacks.
std::string band_validation_text(const Validation& v);

/// A machine's profile: its CPU at one thread and at every core, its GPU when it has one.
struct MachineProfile {
  std::string name;  ///< "h100-80gb", "this machine"
  /// The file it was read from (a catalogued GPU's: the catalog, with the card's name); "" for one
  /// measured or derived here. No part of the profile's JSON: env.json records it beside.
  std::string file;
  nlohmann::ordered_json provenance;  ///< machine, date, commit, how each number was obtained
  std::string cpu_model;
  int logical_cores = 0;
  std::string libtorch_version;
  DeviceProfile cpu_one_thread;
  DeviceProfile cpu_all_threads;
  std::optional<DeviceProfile> cuda;
  std::string gpu_name;  ///< "" without a GPU
  /// How its predictions did against real runs, by device kind, as `crossover predict --check`
  /// measured it ("validation" in the file, keyed "cpu" and "cuda").
  std::map<DeviceKind, Validation> validation;

  /// The band of a prediction of `kind` whose bound is `bound`: the bound's own where it has
  /// one, else the kind's (factor 0: none).
  PredictionBand band(DeviceKind kind, Bound bound) const;

  /// The CPU's constants for a cell with `threads` (1: one thread; 0 or more: every core).
  const DeviceProfile& cpu(int threads) const;
};

/// The profile as its file holds it.
nlohmann::ordered_json profile_to_json(const MachineProfile& profile);

/// What a profile's name (and its other texts) must be, as `profile --name` is checked before
/// anything is measured: they go into report headings and the terminal.
inline constexpr const char* kProfileTextRule =
    "one line of printable text of at most 200 characters";
bool is_profile_text(const std::string& text);

/// A profile from its JSON; throws std::runtime_error naming the field that is missing, of the
/// wrong type, outside the range a machine's can have (a dispatch from 1e-10 to 1 s, a rate
/// from 1e6 to 1e17 FLOP/s, a bandwidth from 1e6 to 1e15 bytes/s, 1 to 65,536 cores), or a
/// matrix-size ladder that is empty or not ascending.
MachineProfile profile_from_json(const nlohmann::ordered_json& json);

/// A profile file, read as a user's file (a regular file of at most 1 MiB); throws
/// std::runtime_error naming the file and what is wrong.
MachineProfile load_profile(const std::string& path);

/// load_profile, and a profile without a GPU refused: the one `run --predict cuda=FILE` needs.
MachineProfile load_gpu_profile(const std::string& path);

}  // namespace crossover
