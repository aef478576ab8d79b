#pragma once
// env.json, the environment record of a run: what explains a number. Typed, and read and written
// here only: runner/machine/env.cpp fills the machine's part, the sweep adds the run's, merge adds
// its shards', and the summary, the warnings, the comparison of two runs, gbench.json's context,
// the history and the calibration read the fields. Read back from a user's folder, an env.json may
// be older (fields missing), hand-written or hostile: a field of the wrong type reads as not
// recorded, and the keys this version does not know are kept as they were. No LibTorch.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/costmodel/machine_profile.hpp"
#include "core/records/prices.hpp"
#include "core/records/reference.hpp"

namespace crossover {

/// One GPU as NVML saw it at the start of the run.
struct GpuRecord {
  std::int64_t index = 0;
  std::string name;
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t sm_clock_mhz = 0;      ///< the current SM clock
  std::uint64_t sm_clock_max_mhz = 0;  ///< its maximum
  std::uint64_t temperature_c = 0;
  std::uint64_t throttle_reasons = 0;  ///< NVML's clocks-event reasons bit mask
};

/// The part K of N of a grid a run measured (`run --shard K/N`).
struct ShardRecord {
  std::int64_t index = 0;
  std::int64_t count = 0;
  std::string source;  ///< where the part came from ("--shard" or a scheduler's variables)
};

/// What can be read of energy and clocks on a machine, and why not (docs/energy.md).
struct EnergyRecord {
  std::string cpu, cuda;
  double cpu_mhz = 0.0;
};

struct MergedShard;

/// A string left empty and a number left unset were not recorded.
struct Environment {
  // Who measured, and when.
  std::string crossover_version, crossover_revision, compiler, recorded_at;
  struct Host {
    std::string hostname, kernel, os;
  } host;
  struct Cpu {
    std::string model;
    std::optional<std::int64_t> logical_cores;
    std::string governor;  ///< "" where it cannot be read (a VM)
    std::vector<double> load_average;
  } cpu;
  /// How this LibTorch was built; `package` and its version: the Debian package that installed
  /// the library (its version can differ: Debian's 1.13.1 calls itself 1.13.0).
  struct LibTorch {
    std::string version, library, package, package_version, blas_info, use_cuda, use_cudnn,
        use_openmp, use_mkldnn;
    bool cxx11_abi = false;
    std::vector<std::string> fused_kernels;  ///< "adam/cuda": the fused optimiser kernels it has
    std::string parallel_backend;
  } libtorch;
  struct Threads {
    std::optional<std::int64_t> intra_op, inter_op;
    std::optional<std::int64_t> blas;  ///< 0: the BLAS library cannot be asked
    std::string omp_num_threads;       ///< OMP_NUM_THREADS as set, "" when unset
  } threads;
  std::string allocator;  ///< "" where the process kept glibc's defaults
  /// The BLAS library LibTorch calls, and whether it is the reference one (40x too slow).
  struct Blas {
    std::string kind, library, version;
    bool reference = false;
    std::optional<double> matmul_1024_gflops;
  } blas;
  struct Cuda {
    bool compiled = false, available = false;
    std::int64_t device_count = 0;
    std::string runtime_version, cudnn_version;
  } cuda;
  /// Each device's float32 matrix-product peak, measured at the start ("cpu", "cuda:0", ...).
  std::vector<std::pair<std::string, double>> peak_gflops;
  struct Nvml {
    bool available = false;
    std::string error, driver_version;
  } nvml;
  std::vector<GpuRecord> gpus;
  /// What can be read of energy and clocks here, and why not (docs/energy.md).
  std::optional<EnergyRecord> energy;

  // What the run adds.
  /// This machine's profile, and the one a device it lacks was predicted with: each read by
  /// profile_from_json, which checks every number (one it refuses reads as not recorded).
  std::optional<MachineProfile> profile, predicted_with;
  /// The files they were read from (MachineProfile::file; "" for one measured here).
  std::string profile_file, predicted_with_file;
  /// The reference timings before and after the run and around each cell.
  ReferenceRecord reference;
  std::int64_t planted_load = 0;  ///< busy processes planted beside the run (CROSSOVER_PLANT_LOAD)
  double planted_slowdown =
      0.0;                    ///< each timed epoch's planted extra share (CROSSOVER_PLANT_SLOWDOWN)
  double planted_work = 0.0;  ///< each timed epoch's planted extra work (CROSSOVER_PLANT_WORK)
  /// The counter of the run's counted cells and why ("callgrind: perf_event_open: ..."); ""
  /// when it counted none.
  std::string counter;
  std::string isolation;  ///< how isolated cells ran
  /// The env.json whose measurement of the machine (BLAS rate, peaks, profile, reference before)
  /// the run reused instead of measuring (CROSSOVER_MACHINE_RECORD); "" when it measured.
  std::string machine_record;
  std::string label;  ///< `run --label`
  Prices prices;
  std::optional<ShardRecord> shard;
  /// Each data set's fingerprint as the run found it (what --resume compares).
  std::vector<std::pair<std::string, std::string>> datasets;
  /// A merged run's parts, each with its own record.
  std::vector<MergedShard> shards;
  /// The keys this version does not know, as they were.
  nlohmann::ordered_json others = nlohmann::ordered_json::object();

  /// The fingerprint recorded for `dataset`, or "".
  std::string dataset_fingerprint(const std::string& dataset) const;
};

struct MergedShard {
  std::string folder;
  Environment env;
};

/// The record as env.json holds it.
nlohmann::ordered_json environment_json(const Environment& environment);

/// An env.json document read back; tolerant: see the top of this file. A document that is not
/// an object reads as an empty record. A number outside the range a machine can have (1e308
/// cores, a negative or zero matrix-product rate) reads as not recorded, with one warning naming
/// `file` and each such field (none when `file` is ""). With `mistyped`, each field of another
/// type than its own is added to it ("label is 7, expected text"), for a reader that refuses
/// such a document (merge); without it, such a field reads as not recorded, with one warning
/// naming `file` and each such field (report, compare, history, predict, --resume).
Environment environment_from_json(const nlohmann::ordered_json& document,
                                  const std::string& file = "",
                                  std::vector<std::string>* mistyped = nullptr);

}  // namespace crossover
